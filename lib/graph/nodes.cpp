// Nodes: op, arguments (value names, scalar literals, null, inline nodes), attribute keys, and
// dispatch to the per-op inference (graph-format.md "Nodes").
#include "reader.h"

#include <cstdint>

#include "stax/support/error.h"

namespace stax::graph::detail {

namespace {

struct Arity {
  std::size_t min, max;  // max == SIZE_MAX: unbounded
};

Arity arity(Op op) {
  switch (op_category(op)) {
    case OpCategory::Unary:
    case OpCategory::UnaryFloat:
    case OpCategory::UnaryPred:
    case OpCategory::Cast:
    case OpCategory::Reduction:
    case OpCategory::ArgReduce:
    case OpCategory::Scan:
    case OpCategory::View:
    case OpCategory::Pad:
    case OpCategory::Pool: return {1, 1};
    case OpCategory::Binary:
    case OpCategory::Compare:
    case OpCategory::Logical:
    case OpCategory::Matmul:
    case OpCategory::Indexing: return {2, 2};
    case OpCategory::Conv: return {2, 3};
    case OpCategory::Where: return {3, 3};
    case OpCategory::Creation: return {0, 0};
    case OpCategory::Concat: return {1, SIZE_MAX};
    case OpCategory::Composite:
      if (op == Op::LayerNorm) return {1, 3};
      if (op == Op::RmsNorm) return {1, 2};
      if (op == Op::Linear) return {2, 3};
      if (op == Op::BatchNorm) return {3, 5};
      return {1, 1};  // softmax, log_softmax, hardswish, hardsigmoid, softplus, elu
  }
  return {1, 1};
}

std::string arity_text(Arity a) {
  auto plural = [](std::size_t n) {
    return std::to_string(n) + (n == 1 ? " argument" : " arguments");
  };
  if (a.max == 0) return "no arguments";
  if (a.max == SIZE_MAX) return "at least " + plural(a.min);
  if (a.min == a.max) return plural(a.min);
  return std::to_string(a.min) + " to " + plural(a.max);
}

bool scalar_allowed(Op op) {
  switch (op_category(op)) {
    case OpCategory::Binary:
    case OpCategory::Compare:
    case OpCategory::Logical:
    case OpCategory::Where: return true;
    case OpCategory::Unary:
    case OpCategory::UnaryFloat:
    case OpCategory::UnaryPred:
    case OpCategory::Cast:
    case OpCategory::Creation:
    case OpCategory::Reduction:
    case OpCategory::ArgReduce:
    case OpCategory::Scan:
    case OpCategory::View:
    case OpCategory::Concat:
    case OpCategory::Pad:
    case OpCategory::Composite:
    case OpCategory::Matmul:
    case OpCategory::Conv:
    case OpCategory::Pool:
    case OpCategory::Indexing: return false;
  }
  return false;
}

// Optional arguments that may be null: layer_norm weight and bias, rms_norm weight, linear and
// convolution bias, batch_norm weight and bias.
bool null_allowed(Op op, std::size_t k) {
  if (op == Op::LayerNorm) return k == 1 || k == 2;
  if (op == Op::RmsNorm) return k == 1;
  if (op == Op::Linear || op == Op::Conv1d || op == Op::Conv2d) return k == 2;
  if (op == Op::BatchNorm) return k == 3 || k == 4;
  return false;
}

void infer(const NodeCtx& c, Value& v) {
  switch (op_category(c.op)) {
    case OpCategory::Unary:
    case OpCategory::UnaryFloat:
    case OpCategory::UnaryPred:
    case OpCategory::Binary:
    case OpCategory::Compare:
    case OpCategory::Logical:
    case OpCategory::Where:
    case OpCategory::Cast: infer_elementwise(c, v); return;
    case OpCategory::Reduction:
    case OpCategory::ArgReduce:
    case OpCategory::Scan: infer_reduction(c, v); return;
    case OpCategory::View:
    case OpCategory::Concat:
    case OpCategory::Pad: infer_view(c, v); return;
    case OpCategory::Creation: infer_creation(c, v); return;
    case OpCategory::Matmul: infer_matmul(c, v); return;
    case OpCategory::Composite: infer_composite(c, v); return;
    case OpCategory::Conv: infer_conv(c, v); return;
    case OpCategory::Pool: infer_pool(c, v); return;
    case OpCategory::Indexing: infer_indexing(c, v); return;
  }
}

}  // namespace

void GraphReader::read_nodes(const Json& list) {
  Site top{"", "", ""};
  if (!list.is_array()) top.fail(".nodes", "expected a list, got " + json_brief(list));
  // Every named node's position, to tell a use before definition from an unknown name.
  for (std::size_t k = 0; k < list.items.size(); ++k) {
    const Json* name = list.items[k].find("name");
    if (name != nullptr && name->is_string()) node_index_.emplace(name->text, k);
  }
  for (std::size_t k = 0; k < list.items.size(); ++k) {
    current_index_ = k;
    current_node_.clear();
    inline_count_ = 0;
    read_node(list.items[k], index_path("nodes", k), false);
  }
}

ValueId GraphReader::read_node(const Json& obj, const std::string& path, bool is_inline) {
  Site s{path, current_node_, ""};
  if (!obj.is_object()) s.fail("", "a node is an object, got " + json_brief(obj));
  std::string name;
  if (is_inline) {
    if (obj.find("name") != nullptr)
      s.fail(".name", "an inline node has no name (define it as a node of its own instead)");
  } else {
    name = read_value_name(s, obj);
    current_node_ = name;
    s.node = name;
  }
  const Json* op_json = obj.find("op");
  if (op_json == nullptr || op_json->is_null()) s.fail("", "missing key 'op'");
  std::string op_text = read_string(s, *op_json, ".op");
  std::optional<Op> op = parse_op(op_text);
  if (!op) s.fail(".op", "unknown op '" + printable(op_text) + "'");
  s.op = op_text;

  std::vector<std::string_view> allowed = allowed_attrs(*op);
  allowed.insert(allowed.begin(), {"op", "args"});
  if (!is_inline) allowed.insert(allowed.begin(), "name");
  check_keys(s, obj, allowed, "op '" + op_text + "'");

  std::vector<Arg> args;
  const Json* args_json = obj.find("args");
  if (args_json != nullptr && !args_json->is_null()) {
    if (!args_json->is_array()) s.fail(".args", "expected a list, got " + json_brief(*args_json));
    Arity a = arity(*op);
    std::size_t n = args_json->items.size();
    if (n < a.min || n > a.max)
      s.fail(".args", "op '" + op_text + "' takes " + arity_text(a) + ", got " + std::to_string(n));
    for (std::size_t k = 0; k < n; ++k) args.push_back(read_arg(s, args_json->items[k], k));
  }
  check_args(s, *op, args);

  Value v;
  v.kind = ValueKind::Node;
  v.op = *op;
  v.path = path;
  v.args = args;
  NodeCtx c{s, *op, &obj, &g_, std::move(args)};
  infer(c, v);
  check_value_shape(s, v.shape, v.dtype, "");
  if (is_inline) {
    v.name = current_node_ + "#" + std::to_string(inline_count_++);
    v.anonymous = true;
  } else {
    v.name = name;
  }
  return add_value(std::move(v));
}

Arg GraphReader::read_arg(const Site& s, const Json& a, std::size_t k) {
  std::string sub = index_path(".args", k);
  if (a.is_object())
    return Arg::of_value(read_node(a, s.at(sub), true));
  if (a.is_null()) return Arg::none();
  if (std::optional<Scalar> lit = read_scalar_literal(s, a, sub)) return Arg::of_scalar(*lit);
  if (!a.is_string())
    s.fail(sub, "an argument is a value name, a number, a boolean, null or an inline node; got " +
                    json_brief(a));
  auto it = ids_.find(a.text);
  if (it != ids_.end()) return Arg::of_value(it->second);
  auto later = node_index_.find(a.text);
  if (later != node_index_.end()) {
    if (later->second == current_index_) s.fail(sub, "node '" + a.text + "' uses itself");
    s.fail(sub, "'" + printable(a.text) + "' is used before its definition (nodes[" +
                    std::to_string(later->second) + "])");
  }
  s.fail(sub, "unknown value '" + printable(a.text) + "'");
}

void GraphReader::check_args(const Site& s, Op op, const std::vector<Arg>& args) {
  Arity a = arity(op);
  if (args.size() < a.min)
    s.fail(".args", "op '" + s.op + "' takes " + arity_text(a) + ", got " +
                        std::to_string(args.size()));
  bool any_tensor = false;
  for (std::size_t k = 0; k < args.size(); ++k) {
    std::string sub = index_path(".args", k);
    const Arg& arg = args[k];
    if (arg.is_none() && !null_allowed(op, k))
      s.fail(sub, "null is allowed only for an optional argument (layer_norm weight and bias, "
                  "rms_norm weight, linear, conv1d and conv2d bias, batch_norm weight and bias)");
    if (arg.is_scalar() && !scalar_allowed(op))
      s.fail(sub, "op '" + s.op + "' needs a tensor here (a value name or an inline node), got "
                  "the scalar " + scalar_str(arg.scalar));
    any_tensor = any_tensor || arg.is_value();
  }
  if (scalar_allowed(op) && !any_tensor)
    s.fail(".args", "op '" + s.op + "' needs at least one tensor argument");
}

}  // namespace stax::graph::detail
