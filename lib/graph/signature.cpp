// The readable signature of a graph, one line per value (what `staxc validate` prints).
#include "stax/graph/frontend.h"

#include "frontend_impl.h"

namespace stax::graph {

namespace {

std::string list_str(const std::vector<int64_t>& xs) { return shape_str(xs); }
std::string bool_str(bool b) { return b ? "true" : "false"; }
std::string float_str(double f) { return detail::scalar_str(Scalar::of_float(f)); }

// The window attributes of a convolution or pool, normalized.
template <typename Add>
void window_attrs_str(const Value& v, Add& add) {
  const Attrs& a = v.attrs;
  if (v.op == Op::AdaptiveAvgPool2d) {
    add("output_size", list_str(a.output_size));
    return;
  }
  if (op_category(v.op) == OpCategory::Pool) add("kernel_size", list_str(a.kernel));
  add("stride", list_str(a.stride));
  add("padding", list_str(a.pad_begin));
  if (a.pad_end != a.pad_begin) add("padding_end", list_str(a.pad_end));
  if (v.op != Op::AvgPool2d) add("dilation", list_str(a.dilation));
  if (op_category(v.op) == OpCategory::Conv) add("groups", std::to_string(a.groups));
  if (op_category(v.op) == OpCategory::Pool) add("ceil_mode", bool_str(a.ceil_mode));
  if (v.op == Op::AvgPool2d) {
    add("count_include_pad", bool_str(a.count_include_pad));
    if (a.divisor_override != 0) add("divisor_override", std::to_string(a.divisor_override));
  }
}

// ", key=value" for the attributes that matter to `op`.
std::string attrs_str(const Value& v) {
  const Attrs& a = v.attrs;
  std::string s;
  auto add = [&s](std::string_view key, const std::string& value) {
    s += ", ";
    s += key;
    s += "=";
    s += value;
  };
  switch (op_category(v.op)) {
    case OpCategory::Unary:
      if (v.op == Op::Clamp) {
        if (a.min) add("min", detail::scalar_str(*a.min));
        if (a.max) add("max", detail::scalar_str(*a.max));
      }
      if (v.op == Op::LeakyRelu) add("negative_slope", float_str(a.negative_slope));
      if (v.op == Op::Gelu && a.approximate_tanh) add("approximate", "tanh");
      break;
    case OpCategory::Binary:
      if (v.op == Op::Div && a.rounding_mode == RoundingMode::Trunc) add("rounding_mode", "trunc");
      if (v.op == Op::Div && a.rounding_mode == RoundingMode::Floor) add("rounding_mode", "floor");
      break;
    case OpCategory::UnaryFloat:
    case OpCategory::UnaryPred:
    case OpCategory::Compare:
    case OpCategory::Logical:
    case OpCategory::Where:
    case OpCategory::Matmul: break;
    case OpCategory::Conv:
    case OpCategory::Pool: window_attrs_str(v, add); break;
    case OpCategory::Indexing:
      if (v.op != Op::Embedding) add("dim", std::to_string(a.dim));
      break;
    case OpCategory::Cast: add("dtype", std::string(dtype_name(a.dtype))); break;
    case OpCategory::Creation:
      if (v.op == Op::Full) {
        add("shape", shape_str(a.shape));
        add("value", detail::scalar_str(a.value));
      } else {
        add("start", detail::scalar_str(a.arange_start));
        add("end", detail::scalar_str(a.arange_end));
        add("step", detail::scalar_str(a.arange_step));
      }
      add("dtype", std::string(dtype_name(a.dtype)));
      break;
    case OpCategory::Reduction:
      add("dim", list_str(a.dims));
      add("keepdim", bool_str(a.keepdim));
      if (v.op == Op::Var || v.op == Op::Std) add("correction", float_str(a.correction));
      break;
    case OpCategory::ArgReduce:
      if (a.has_dim) add("dim", std::to_string(a.dim));
      add("keepdim", bool_str(a.keepdim));
      break;
    case OpCategory::Scan: add("dim", std::to_string(a.dim)); break;
    case OpCategory::View:
      if (v.op == Op::Reshape || v.op == Op::Expand) add("shape", shape_str(a.shape));
      if (v.op == Op::Permute || v.op == Op::Transpose) add("dims", list_str(a.dims));
      if (v.op == Op::Unsqueeze) add("dim", std::to_string(a.dim));
      if (v.op == Op::Squeeze) add("dim", list_str(a.dims));
      if (v.op == Op::Flatten) {
        add("start_dim", std::to_string(a.start));
        add("end_dim", std::to_string(a.end));
      }
      if (v.op == Op::Slice) {
        add("dim", std::to_string(a.dim));
        add("start", std::to_string(a.start));
        add("end", std::to_string(a.end));
        add("step", std::to_string(a.step));
      }
      if (v.op == Op::Select) {
        add("dim", std::to_string(a.dim));
        add("index", std::to_string(a.index));
      }
      break;
    case OpCategory::Concat: add("dim", std::to_string(a.dim)); break;
    case OpCategory::Pad:
      add("pad", list_str(a.pad));
      add("value", detail::scalar_str(a.value));
      break;
    case OpCategory::Composite:
      if (v.op == Op::Softmax || v.op == Op::LogSoftmax) add("dim", std::to_string(a.dim));
      if (v.op == Op::LayerNorm || v.op == Op::RmsNorm) {
        add("normalized_shape", shape_str(a.normalized_shape));
        add("eps", float_str(a.eps));
      }
      if (v.op == Op::BatchNorm) add("eps", float_str(a.eps));
      if (v.op == Op::Softplus) {
        add("beta", float_str(a.beta));
        add("threshold", float_str(a.threshold));
      }
      if (v.op == Op::Elu) add("alpha", float_str(a.alpha));
      break;
  }
  return s;
}

std::string arg_str(const Graph& g, const Arg& a) {
  switch (a.kind) {
    case Arg::Kind::Value: return g[a.value].name;
    case Arg::Kind::Scalar: return detail::scalar_str(a.scalar);
    case Arg::Kind::None: return "null";
  }
  return "?";
}

}  // namespace

std::string format_signature(const Graph& g) {
  std::string out = "graph " + g.name + "\n";
  for (const Value& v : g.values) {
    out += v.name + ": " + std::string(dtype_name(v.dtype)) + shape_str(v.shape);
    switch (v.kind) {
      case ValueKind::Input: out += " input\n"; continue;
      case ValueKind::Constant: out += " constant\n"; continue;
      case ValueKind::Node: break;
    }
    out += " = " + std::string(op_name(v.op)) + "(";
    std::string args;
    for (std::size_t k = 0; k < v.args.size(); ++k) {
      if (k) args += ", ";
      args += arg_str(g, v.args[k]);
    }
    std::string attrs = attrs_str(v);
    if (args.empty() && !attrs.empty()) attrs = attrs.substr(2);
    out += args + attrs + ")\n";
  }
  out += "outputs:";
  for (std::size_t k = 0; k < g.outputs.size(); ++k)
    out += (k ? ", " : " ") + g[g.outputs[k]].name;
  return out + "\n";
}

}  // namespace stax::graph
