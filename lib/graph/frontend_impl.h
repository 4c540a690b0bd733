// Internals of the front end shared by its files: error sites, attribute readers, scalar and
// shape helpers, and the per-op inference entry points. Not a public header.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "json_doc.h"
#include "stax/graph/frontend.h"
#include "stax/graph/graph.h"

namespace stax::graph::detail {

// Where a diagnostic points: the JSON object being read and, inside `nodes`, the named node
// it belongs to (an inline node reports the name of the named node that contains it) and the op.
struct Site {
  std::string path;  // "nodes[3]", "nodes[3].args[1]", "inputs[0]", "constants[2]"
  std::string node;
  std::string op;

  // path + sub, where sub is "" or starts with '.' or '['.
  std::string at(std::string_view sub) const;
  [[noreturn]] void fail(std::string_view sub, const std::string& message) const;
};

// ---- attribute readers (attrs.cpp). `sub` is the member's path suffix (".dim"). ----

// A JSON integer (not a bool, not 2.0) in int64.
int64_t read_int(const Site& s, const Json& j, std::string_view sub);
bool read_bool(const Site& s, const Json& j, std::string_view sub);
std::string read_string(const Site& s, const Json& j, std::string_view sub);
// A number or one of "inf", "-inf", "nan" (no bools).
double read_number(const Site& s, const Json& j, std::string_view sub);
// A JSON number only: the attributes where graph-format.md ("Non-finite numbers") admits no
// "inf", "-inf" or "nan" (leaky_relu's negative_slope, the norms' eps).
double read_finite_number(const Site& s, const Json& j, std::string_view sub);
// A scalar literal: JSON int -> Int, other number or non-finite string -> Float, bool -> Bool.
// nullopt when `j` is not one (the caller reports). An integer literal beyond int64 is an error.
std::optional<Scalar> read_scalar_literal(const Site& s, const Json& j, std::string_view sub);
// A shape: list of integers >= 1 ([] for 0-d); `allow_minus_one` lets entries be -1.
Shape read_shape(const Site& s, const Json& j, std::string_view sub, bool allow_minus_one);
// An int or a non-empty list of ints (`allow_list`); raw, not normalized.
std::vector<int64_t> read_dim_list(const Site& s, const Json& j, std::string_view sub,
                                   bool allow_list);
// A dtype name.
DType read_dtype(const Site& s, const Json& j, std::string_view sub);

// Normalizes dim `d` for a tensor of rank `ndim` (PyTorch wraps with max(ndim, 1)); error at
// `sub` when out of range. For a 0-d tensor the result is 0.
int64_t normalize_dim(const Site& s, int64_t d, int64_t ndim, std::string_view sub);

// Whether `v` may be stored in `dt` without leaving its range (int32/int64 range for ints,
// finite float32 for finite float32 values; non-finite floats fit any float dtype).
bool scalar_fits(const Scalar& v, DType dt);
// "3", "2.5", "1e+30", "inf", "true".
std::string scalar_str(const Scalar& v);
// Converts `v` to the kind matching `dt` (Float for floats, Int for ints, Bool for bool),
// truncating floats toward zero for ints; error at `sub` when out of range (incl. nan/inf to int).
Scalar scalar_to_dtype(const Site& s, const Scalar& v, DType dt, std::string_view sub);
// The dtype a Python scalar of this kind would have: bool, int64, float64.
DType scalar_natural_dtype(const Scalar& v);

// The element count of `shape` checked for int64 overflow (also of its byte size) and for
// zero-size dims; error at `sub`.
void check_value_shape(const Site& s, const Shape& shape, DType dt, std::string_view sub);

// ---- nodes ----

// What inference sees: the node's site, its JSON object (attributes) and resolved arguments.
struct NodeCtx {
  Site site;
  Op op = Op::Add;
  const Json* obj = nullptr;  // the node object
  const Graph* g = nullptr;
  std::vector<Arg> args;

  // The attribute `key`, or nullptr when absent or null.
  const Json* attr(std::string_view key) const;
  const Value& value(std::size_t i) const;  // args[i] must be a value
  std::string arg_path(std::size_t i) const;  // ".args[i]"
  std::string_view op_str() const;
};

// Helpers of the inference files (attrs.cpp).
std::string dt_str(DType dt);                                   // the dtype's name
const Json& required(const NodeCtx& c, std::string_view key);  // the attribute, or an error naming it
void require_float_data(const NodeCtx& c, std::size_t k);       // args[k] is floating, or an error
std::string index_path(std::string_view list, std::size_t k);  // "list[k]"

// Attribute names an op accepts besides name/op/args.
std::vector<std::string_view> allowed_attrs(Op op);
// Inference per op group: fills v.dtype, v.shape, v.compute_dtype and v.attrs.
void infer_elementwise(const NodeCtx& c, Value& v);  // Unary*, Binary, Compare, Logical, Where, Cast
void infer_reduction(const NodeCtx& c, Value& v);    // Reduction, ArgReduce, Scan
void infer_view(const NodeCtx& c, Value& v);         // View, Concat, Pad
void infer_creation(const NodeCtx& c, Value& v);     // full, arange
void infer_matmul(const NodeCtx& c, Value& v);       // matmul
void infer_composite(const NodeCtx& c, Value& v);    // softmax ... linear, batch_norm, activations
void infer_conv(const NodeCtx& c, Value& v);         // conv1d conv2d (infer_window.cpp)
void infer_pool(const NodeCtx& c, Value& v);         // max_pool2d avg_pool2d adaptive_avg_pool2d
void infer_indexing(const NodeCtx& c, Value& v);     // embedding index_select gather (infer_nn.cpp)
// batch_norm, hardswish, hardsigmoid, softplus, elu (infer_nn.cpp)
void infer_nn_composite(const NodeCtx& c, Value& v);

// Constant data from `data`, `file` or `fill` (constants.cpp).
Tensor read_constant_data(const Site& s, const Json& obj, DType dt, const Shape& shape,
                          const ConstantFiles& files);

}  // namespace stax::graph::detail
