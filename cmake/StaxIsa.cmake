# The ISA table (include/stax/support/isa.def) read into CMake, so that the tests build the
# vector layer once per instruction set with the record's own flags.
#   STAX_ISA_NAMES          every record's name, narrowest first
#   STAX_ISA_<name>_ARCH    "any", "x86_64" or "aarch64"
#   STAX_ISA_<name>_FLAGS   the compiler flags, as a list
file(STRINGS ${PROJECT_SOURCE_DIR}/include/stax/support/isa.def stax_isa_lines REGEX "^STAX_ISA\\(")
set(STAX_ISA_NAMES)
foreach(line ${stax_isa_lines})
  # STAX_ISA(Id, "name", "arch", lanes, bits, "tag", "runtime", "flags", ...)
  if(NOT line MATCHES "^STAX_ISA\\([A-Za-z0-9]+, \"([a-z0-9_]+)\", \"([a-z0-9_]+)\", [0-9]+, [0-9]+, \"[A-Za-z0-9]+\", \"[^\"]*\", \"([^\"]*)\"")
    message(FATAL_ERROR "isa.def: cannot read the record: ${line}")
  endif()
  set(name ${CMAKE_MATCH_1})
  list(APPEND STAX_ISA_NAMES ${name})
  set(STAX_ISA_${name}_ARCH ${CMAKE_MATCH_2})
  separate_arguments(STAX_ISA_${name}_FLAGS UNIX_COMMAND "${CMAKE_MATCH_3}")
endforeach()

# The records of aarch64 (NEON) on a machine of another architecture: built with the cross
# compiler and run under qemu-user (scripts/setup.sh installs both, with SLEEF and libgomp for
# arm64). Where either is missing the tests that need them say so and skip.
#   STAX_AARCH64_CXX          aarch64-linux-gnu-g++, or empty
#   STAX_AARCH64_RUN_PREFIX   the command a program of that compiler runs under (a list), or empty
# qemu takes the cross toolchain's root for the guest's absolute paths (-L), and the guest's
# loader is told to look there first for libraries (LD_LIBRARY_PATH): the dynamic loader and
# libc.so.6 share a private layout (glibc's _rtld_global) and must come from one glibc build,
# but -L alone gives the cross root's loader with the libc of the arm64 multiarch packages
# (/lib/aarch64-linux-gnu, found through the host's ld.so.cache; libsleef3:arm64 brings it),
# a slightly different build: its pthread_create then walks a list head 8 bytes off and spins
# forever, so every program that starts a thread (OpenMP with 2 threads) hangs.
string(TOLOWER "${CMAKE_SYSTEM_PROCESSOR}" stax_host_arch)
set(STAX_AARCH64_CXX "")
set(STAX_AARCH64_RUN_PREFIX "")
if(NOT stax_host_arch MATCHES "^(aarch64|arm64)$")
  find_program(STAX_AARCH64_CXX_PROGRAM aarch64-linux-gnu-g++)
  find_program(STAX_QEMU_AARCH64_PROGRAM qemu-aarch64)
  set(STAX_AARCH64_SYSROOT /usr/aarch64-linux-gnu CACHE PATH "the aarch64 cross toolchain's root (qemu -L)")
  if(STAX_AARCH64_CXX_PROGRAM AND STAX_QEMU_AARCH64_PROGRAM AND EXISTS ${STAX_AARCH64_SYSROOT}/lib)
    set(STAX_AARCH64_CXX ${STAX_AARCH64_CXX_PROGRAM})
    set(STAX_AARCH64_RUN_PREFIX ${STAX_QEMU_AARCH64_PROGRAM} -L ${STAX_AARCH64_SYSROOT}
        -E LD_LIBRARY_PATH=${STAX_AARCH64_SYSROOT}/lib)
  endif()
endif()
