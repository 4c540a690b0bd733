// Large constants (model weights) as bytes no compiler parses: they go into a file next to the
// generated source, FILE.cpp.weights, and the source assembles them into its read-only data with
// `.incbin`, naming the file through __FILE__ (docs/generated-code.md, "Constants and the
// weights file"). Small constants stay literal arrays, so a small graph keeps one file.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "code_writer.h"
#include "model_layout.h"
#include "stax/ir/program.h"
#include "stax/support/tensor.h"

namespace stax::codegen {

// One constant array of the generated code: a graph constant the kernels read as it is, or one
// packed for the GEMM at compile time (packed_weights.h).
struct ConstantArray {
  std::string name;     // its identifier in the model's namespace
  std::string comment;  // "constant w: float32[64, 64]"
  const Tensor* data = nullptr;
};

// Where each constant goes: inline (a literal array of the source) or at an offset of the
// weights file.
struct WeightsPlan {
  static constexpr std::size_t kAlignment = 64;  // of every constant in the file (and in memory)
  std::vector<ConstantArray> arrays;             // every constant array, in file order
  std::vector<bool> in_file;                     // per array
  std::vector<std::size_t> offsets;              // per array (meaningful where in_file)
  std::string bytes;                             // the file: each constant little-endian, zero padding
  bool any() const { return !bytes.empty(); }
};

// Arrays of more than `threshold` bytes go to the file, in order.
WeightsPlan plan_weights(std::vector<ConstantArray> arrays, std::size_t threshold);

// At global scope, before the model's namespace: the little-endian check, the top-level asm
// that assembles each file constant at its symbol, and their declarations (in the namespace
// stax_NAME_weights: external linkage in C++, so no compiler warns of an undefined internal
// variable, while the symbols themselves are local to the object file). The declarations are
// hidden, so the compiler addresses them PC-relative: through the GOT, a local symbol becomes
// its section plus an offset, and AArch64's linker gives every offset of a section one GOT
// entry (all the constants would read the first). Nothing without file constants.
void emit_weights_block(const ModelLayout& m, const WeightsPlan& w, CodeWriter& out);

// Inside the model's namespace: each constant, a literal array or a using-declaration of the
// file constant.
void emit_constants(const ModelLayout& m, const WeightsPlan& w, CodeWriter& out);

}  // namespace stax::codegen
