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
