// One ONNX node checked against hand-computed values, twice: with its inputs given at run time
// (the stax nodes it maps to, evaluated by the reference interpreter) and with its inputs as
// initializers (computed at import where the importer folds it).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "import_util.h"

namespace stax::testing {

struct OpCase {
  std::string op;
  std::vector<Tensor> inputs;
  Tensor expected;
  std::vector<onnx::AttributeProto> attrs = {};
  int opset = 13;
  double tol = 0;
  // How many leading inputs are given at run time in the first way; the others are
  // initializers both ways. By default, all but the shapes, axes, pads and indices of the ops
  // that take them (Reshape, Slice, Gather, ...), which the importer needs at import.
  std::size_t runtime = SIZE_MAX;
};

// The model: inputs x0, x1, ... (graph inputs, or initializers when `as_initializers` or past
// c.runtime), one node, output y of c.expected's dtype and shape.
OnnxModel single_node(const OpCase& c, bool as_initializers);

// Both ways, each compared with c.expected.
void check_op(const OpCase& c);
// The inputs as initializers only: for mappings to ops the front end does not take yet
// (index_select ...), whose folded result is still checked.
void check_folded(const OpCase& c);

}  // namespace stax::testing
