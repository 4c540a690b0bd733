// The C API part of a generated file: the metadata tables, the extern "C" functions, and the
// optional header that declares them.
#pragma once

#include <string>

#include "code_writer.h"
#include "model_layout.h"

namespace stax::codegen {

// Shape arrays and TensorSpec tables of the inputs and outputs (inside the model's namespace).
void emit_metadata(const ModelLayout& m, CodeWriter& out);
// The extern "C" block (after the model's namespace).
void emit_c_api(const ModelLayout& m, CodeWriter& out);
// The header: C API types, workspace constants, declarations with their documentation.
std::string header_text(const ModelLayout& m);

}  // namespace stax::codegen
