#include "op_check.h"

#include <algorithm>

namespace stax::testing {

namespace {

// Inputs an op takes as shapes, axes, pads or indices stay initializers unless a case says
// otherwise: those the importer needs at import.
std::size_t runtime_inputs(const OpCase& c) {
  if (c.runtime != SIZE_MAX) return c.runtime;
  for (const char* op : {"Reshape", "Squeeze", "Unsqueeze", "Expand", "Tile", "Pad", "Slice", "Split", "ReduceSum",
                         "CumSum", "Gather", "GatherElements"})
    if (c.op == op) return 1;
  return SIZE_MAX;
}

}  // namespace

OnnxModel single_node(const OpCase& c, bool as_initializers) {
  OnnxModel m(c.opset);
  std::vector<std::string> names;
  for (std::size_t k = 0; k < c.inputs.size(); ++k) {
    std::string name = "x" + std::to_string(k);
    names.push_back(name);
    if (as_initializers || k >= runtime_inputs(c)) {
      m.initializer(name, c.inputs[k]);
    } else {
      std::vector<Dim> dims(c.inputs[k].shape().begin(), c.inputs[k].shape().end());
      m.input(name, c.inputs[k].dtype(), dims);
    }
  }
  std::vector<Dim> out(c.expected.shape().begin(), c.expected.shape().end());
  m.node(c.op, names, {"y"}, c.attrs).output("y", c.expected.dtype(), out);
  return m;
}

void check_op(const OpCase& c) {
  SCOPED_TRACE(c.op + " (opset " + std::to_string(c.opset) + ")");
  std::size_t n = std::min(runtime_inputs(c), c.inputs.size());
  std::vector<Tensor> run = run_model(single_node(c, false), std::vector<Tensor>(c.inputs.begin(), c.inputs.begin() + static_cast<std::ptrdiff_t>(n)));
  ASSERT_EQ(run.size(), 1u);
  EXPECT_TRUE(same_tensor(run[0], c.expected, c.tol)) << "inputs at run time";
  check_folded(c);
}

void check_folded(const OpCase& c) {
  SCOPED_TRACE(c.op + " (opset " + std::to_string(c.opset) + ")");
  std::vector<Tensor> folded = run_model(single_node(c, true), {});
  ASSERT_EQ(folded.size(), 1u);
  EXPECT_TRUE(same_tensor(folded[0], c.expected, c.tol)) << "inputs as initializers";
}

}  // namespace stax::testing
