// Small helpers shared by the mappers: axes, broadcasting, node builders. Not a public header.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "importer.h"

namespace stax::importer::detail {

// An ONNX axis in [-rank, rank - 1] made non-negative; fails naming `what` otherwise.
int64_t normalize_axis(const NodeCtx& c, int64_t axis, int64_t rank, std::string_view what);
// A list of axes normalized, sorted and checked for repeats.
std::vector<int64_t> normalize_axes(const NodeCtx& c, std::vector<int64_t> axes, int64_t rank,
                                    std::string_view what);
// Multidirectional (numpy) broadcasting; fails naming both shapes.
Shape broadcast(const NodeCtx& c, const Shape& a, const Shape& b);
// The element type must be float32 or float64 (the stax op takes floats only).
void require_float(const NodeCtx& c, std::size_t i, std::string_view why);
// A normalization's `epsilon` attribute (default 1e-5); fails unless finite and >= 0.
float epsilon_attr(const NodeCtx& c);

// Elements start, start + step, ... (count of them) along axis.
struct AxisSlice {
  int64_t axis = 0, start = 0, step = 1, count = 0;
};
// The node selecting `s` of x: a slice, or for a reversing step an index_select.
Json slice_node(NodeCtx& c, Json x, const AxisSlice& s);

// {"op": "reshape", "args": [x], "shape": shape}
Json reshape_node(Json x, const Shape& shape);
// Attributes added to a node in order: with(op_node(...), {{"dim", 1}, {"keepdim", true}}).
Json with(Json node, std::initializer_list<std::pair<const char*, Json>> attrs);
// A 1-D int64 tensor of `values`.
Tensor int64_tensor(const std::vector<int64_t>& values);

}  // namespace stax::importer::detail
