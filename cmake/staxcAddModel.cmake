# staxc_add_model(<target> MODEL <file.json|file.onnx> [NAME <c-name>] [ISA <isa>] [OPTIONS ...])
#
# Compiles a model with staxc at build time and builds the generated code into the static
# library <target>:
#   - a custom command runs `staxc compile` and writes, under
#     ${CMAKE_CURRENT_BINARY_DIR}/staxc/<target>/, <base>.cpp and its header <base>.h, where
#     <base> is NAME, or the model file's name without its extension when NAME is not given;
#   - NAME, when given, is the model's C name (the prefix of its C API: NAME_run, ...); without
#     it the graph's own "name" is;
#   - ISA is staxc's --isa: native (the default: the generated file is built with -march=native,
#     for the machine that builds it), one instruction set (scalar, avx2, avx512, neon: built
#     with that set's flags) or dispatch (every x86-64 set in one file, chosen at run time);
#     pin one for output that does not depend on the building machine;
#   - OPTIONS are passed to staxc as they are (e.g. OPTIONS --fusion-rules chapter);
#   - staxc writes a depfile (--depfile) naming the model, every constant or weights file it
#     reads and the staxc binary, so editing any of them reruns exactly this command, with
#     Ninja and with Makefiles;
#   - <target> is a static library of the generated code, built as C++17 with the ISA's flags,
#     linking OpenMP and SLEEF, its header directory a PUBLIC include directory: a program
#     that links <target> includes "<base>.h" and calls the model's C API.
# Calling it again with the same <target> adds the next model to the same library; the models'
# C names must differ (their symbols are the only ones with external linkage).
include_guard(GLOBAL)

function(_staxc_model_isa_flags isa out)
  if(isa STREQUAL "native")
    set(flags -march=native)
  elseif(isa STREQUAL "dispatch")
    set(flags "")
  elseif(isa IN_LIST STAXC_ISA_NAMES)
    string(TOLOWER "${CMAKE_SYSTEM_PROCESSOR}" arch)
    if(arch STREQUAL "amd64")
      set(arch x86_64)
    elseif(arch STREQUAL "arm64")
      set(arch aarch64)
    endif()
    if(NOT STAXC_ISA_${isa}_ARCH STREQUAL "any" AND NOT STAXC_ISA_${isa}_ARCH STREQUAL arch)
      message(FATAL_ERROR "staxc_add_model: ISA ${isa} is for ${STAXC_ISA_${isa}_ARCH}; this build targets ${CMAKE_SYSTEM_PROCESSOR}")
    endif()
    set(flags ${STAXC_ISA_${isa}_FLAGS})
  else()
    string(REPLACE ";" ", " known "native;dispatch;${STAXC_ISA_NAMES}")
    message(FATAL_ERROR "staxc_add_model: unknown ISA '${isa}' (one of: ${known})")
  endif()
  set(${out} "${flags}" PARENT_SCOPE)
endfunction()

# SLEEF (Debian's libsleef-dev) as the imported library staxc::sleef.
function(_staxc_find_sleef)
  if(TARGET staxc::sleef)
    return()
  endif()
  find_path(STAXC_SLEEF_INCLUDE_DIR sleef.h)
  find_library(STAXC_SLEEF_LIBRARY sleef)
  if(NOT STAXC_SLEEF_INCLUDE_DIR OR NOT STAXC_SLEEF_LIBRARY)
    message(FATAL_ERROR "staxc_add_model: SLEEF not found (sleef.h and libsleef; Debian: apt-get install libsleef-dev)")
  endif()
  add_library(staxc::sleef UNKNOWN IMPORTED GLOBAL)
  set_target_properties(staxc::sleef PROPERTIES
    IMPORTED_LOCATION ${STAXC_SLEEF_LIBRARY}
    INTERFACE_INCLUDE_DIRECTORIES ${STAXC_SLEEF_INCLUDE_DIR})
endfunction()

function(staxc_add_model target)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "" "MODEL;NAME;ISA" "OPTIONS")
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "staxc_add_model(${target}): unexpected arguments: ${ARG_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT ARG_MODEL)
    message(FATAL_ERROR "staxc_add_model(${target}): MODEL <file.json|file.onnx> is required")
  endif()
  if(NOT TARGET staxc::staxc)
    message(FATAL_ERROR "staxc_add_model(${target}): no staxc::staxc target (find_package(staxc) first)")
  endif()
  if(NOT ARG_ISA)
    set(ARG_ISA native)
  endif()
  _staxc_model_isa_flags(${ARG_ISA} isa_flags)

  get_filename_component(model "${ARG_MODEL}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
  if(ARG_NAME)
    set(base ${ARG_NAME})
    set(name_option --name ${ARG_NAME})
  else()
    get_filename_component(base "${model}" NAME_WLE)
    set(name_option "")
  endif()
  set(out_dir ${CMAKE_CURRENT_BINARY_DIR}/staxc/${target})
  set(source ${out_dir}/${base}.cpp)
  set(header ${out_dir}/${base}.h)
  set(depfile ${out_dir}/${base}.d)
  file(MAKE_DIRECTORY ${out_dir})

  add_custom_command(
    OUTPUT ${source} ${header}
    COMMAND staxc::staxc compile ${model} -o ${source} --header ${header} --isa ${ARG_ISA}
            ${name_option} --depfile ${depfile} ${ARG_OPTIONS}
    DEPENDS ${model} staxc::staxc
    DEPFILE ${depfile}
    COMMENT "staxc: compiling ${ARG_MODEL} (--isa ${ARG_ISA})"
    VERBATIM)
  set_source_files_properties(${source} PROPERTIES COMPILE_OPTIONS "${isa_flags}")

  if(TARGET ${target})
    get_target_property(ours ${target} STAXC_MODEL_LIBRARY)
    if(NOT ours)
      message(FATAL_ERROR "staxc_add_model(${target}): ${target} is a target staxc_add_model did not make")
    endif()
    target_sources(${target} PRIVATE ${source} ${header})
    target_include_directories(${target} PUBLIC ${out_dir})
    return()
  endif()

  find_package(OpenMP REQUIRED COMPONENTS CXX)
  _staxc_find_sleef()
  add_library(${target} STATIC ${source} ${header})
  set_target_properties(${target} PROPERTIES
    STAXC_MODEL_LIBRARY TRUE
    CXX_STANDARD 17
    CXX_STANDARD_REQUIRED ON
    CXX_EXTENSIONS OFF
    POSITION_INDEPENDENT_CODE ON)
  target_include_directories(${target} PUBLIC ${out_dir})
  target_link_libraries(${target} PUBLIC OpenMP::OpenMP_CXX staxc::sleef)
endfunction()
