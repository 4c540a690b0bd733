# Turns the runtime prelude header into a C++ source file holding its text as a raw string
# literal, so that staxc carries the prelude without reading files at run time.
# Usage: cmake -DINPUT=stax_prelude.h -DOUTPUT=prelude_text.cpp -P embed_prelude.cmake
file(READ "${INPUT}" text)
string(FIND "${text}" ")stax_prelude\"" clash)
if(NOT clash EQUAL -1)
  message(FATAL_ERROR "${INPUT} contains the raw-string delimiter )stax_prelude\"")
endif()
set(content "// Generated from lib/codegen/runtime/stax_prelude.h by embed_prelude.cmake; do not edit.\n")
string(APPEND content "#include <string_view>\n\n")
string(APPEND content "namespace stax::codegen::detail {\n")
string(APPEND content "extern const std::string_view kPreludeSource;\n")
string(APPEND content "const std::string_view kPreludeSource = R\"stax_prelude(${text})stax_prelude\";\n")
string(APPEND content "}  // namespace stax::codegen::detail\n")
# Rewrite only when the text changed, so an unchanged prelude does not trigger a rebuild.
if(EXISTS "${OUTPUT}")
  file(READ "${OUTPUT}" old)
  if(old STREQUAL content)
    return()
  endif()
endif()
file(WRITE "${OUTPUT}" "${content}")
