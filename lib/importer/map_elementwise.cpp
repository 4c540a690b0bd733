// Elementwise ops with a stax op of the same meaning: unary math and activations, binary
// arithmetic, comparisons and logic, Where, Cast, the variadic Min/Max/Sum/Mean.
#include <optional>

#include "fold.h"
#include "map_util.h"
#include "stax/graph/promote.h"
#include "tensors.h"

namespace stax::importer::detail {

namespace {

struct UnaryOp {
  const char* onnx;
  const char* stax;
  std::optional<fold::Unary> fold;
};

// ONNX admits only the dtypes the stax op computes in the same dtype (float math on floats,
// Abs/Neg/Sign/Relu also on ints), which ONNX's type inference has checked.
constexpr UnaryOp kUnary[] = {
    {"Abs", "abs", fold::Unary::Abs},          {"Neg", "neg", fold::Unary::Neg},
    {"Relu", "relu", fold::Unary::Relu},       {"Sign", "sign", fold::Unary::Sign},
    {"Sigmoid", "sigmoid", fold::Unary::Sigmoid}, {"Tanh", "tanh", fold::Unary::Tanh},
    {"Erf", "erf", fold::Unary::Erf},          {"Exp", "exp", fold::Unary::Exp},
    {"Log", "log", fold::Unary::Log},          {"Sqrt", "sqrt", fold::Unary::Sqrt},
    {"Reciprocal", "reciprocal", fold::Unary::Reciprocal},
    {"Floor", "floor", fold::Unary::Floor},    {"Ceil", "ceil", fold::Unary::Ceil},
    {"Round", "round", fold::Unary::Round},    {"Sin", "sin", fold::Unary::Sin},
    {"Cos", "cos", fold::Unary::Cos},          {"Tan", "tan", std::nullopt},
    {"Asin", "asin", std::nullopt},            {"Acos", "acos", std::nullopt},
    {"Atan", "atan", std::nullopt},            {"Sinh", "sinh", std::nullopt},
    {"Cosh", "cosh", std::nullopt},            {"Not", "logical_not", fold::Unary::Not},
    {"IsNaN", "isnan", std::nullopt},          {"HardSwish", "hardswish", std::nullopt},
    {"Softplus", "softplus", std::nullopt},
};

const UnaryOp& unary_entry(const NodeCtx& c) {
  for (const UnaryOp& u : kUnary)
    if (c.op_type() == u.onnx) return u;
  c.fail("no unary mapping");
}

void map_unary(NodeCtx& c) {
  const UnaryOp& u = unary_entry(c);
  DType dt = (c.op_type() == "Not" || c.op_type() == "IsNaN") ? DType::Bool : c.dtype(0);
  if (u.fold && c.fold(dt, c.shape(0))) return c.set_known(0, fold::unary(*u.fold, c.require_known(0, "x")));
  c.set_node(0, op_node(u.stax, {c.arg(0)}), dt, c.shape(0));
}

void map_identity(NodeCtx& c) { c.set_alias(0, 0); }

void map_leaky_relu(NodeCtx& c) {
  Json node = with(op_node("leaky_relu", {c.arg(0)}), {{"negative_slope", float_attr_json(c.attr_float("alpha", 0.01f), c.dtype(0))}});
  c.set_node(0, std::move(node), c.dtype(0), c.shape(0));
}

void map_elu(NodeCtx& c) {
  c.set_node(0, with(op_node("elu", {c.arg(0)}), {{"alpha", float_attr_json(c.attr_float("alpha", 1.0f), c.dtype(0))}}), c.dtype(0), c.shape(0));
}

// Selu: gamma * elu(x, alpha); ONNX's default alpha and gamma are PyTorch's SELU constants
// rounded to float32.
void map_selu(NodeCtx& c) {
  const DType dt = c.dtype(0);
  float alpha = c.attr_float("alpha", 1.67326319217681884765625f), gamma = c.attr_float("gamma", 1.05070102214813232421875f);
  Json elu = with(op_node("elu", {c.arg(0)}), {{"alpha", float_attr_json(alpha, dt)}});
  c.set_node(0, op_node("mul", {std::move(elu), float_attr_json(gamma, dt)}), dt, c.shape(0));
}

// Celu: x where x > 0, alpha * expm1(x / alpha) elsewhere (PyTorch's celu).
void map_celu(NodeCtx& c) {
  const DType dt = c.dtype(0);
  float alpha = c.attr_float("alpha", 1.0f);
  if (alpha == 0.0f) c.fail("alpha must not be 0");
  Json neg = op_node("mul", {op_node("expm1", {op_node("div", {c.arg(0), float_attr_json(alpha, dt)})}), float_attr_json(alpha, dt)});
  c.set_node(0, op_node("where", {op_node("gt", {c.arg(0), 0}), c.arg(0), std::move(neg)}), dt, c.shape(0));
}

// ThresholdedRelu: x where x > alpha, 0 elsewhere.
void map_thresholded_relu(NodeCtx& c) {
  const DType dt = c.dtype(0);
  Json cond = op_node("gt", {c.arg(0), float_attr_json(c.attr_float("alpha", 1.0f), dt)});
  c.set_node(0, op_node("where", {std::move(cond), c.arg(0), float_attr_json(0.0f, dt)}), dt, c.shape(0));
}

// HardSigmoid is max(0, min(1, alpha * x + beta)); PyTorch's hardsigmoid is the case alpha = 1/6
// (as a float32), beta = 0.5, which torch.onnx.export writes.
void map_hard_sigmoid(NodeCtx& c) {
  float alpha = c.attr_float("alpha", 0.2f), beta = c.attr_float("beta", 0.5f);
  Json node;
  if (alpha == 1.0f / 6.0f && beta == 0.5f) {
    node = op_node("hardsigmoid", {c.arg(0)});
  } else {
    Json affine = op_node("add", {op_node("mul", {c.arg(0), float_attr_json(alpha, c.dtype(0))}), float_attr_json(beta, c.dtype(0))});
    node = with(op_node("clamp", {std::move(affine)}), {{"min", 0.0}, {"max", 1.0}});
  }
  c.set_node(0, std::move(node), c.dtype(0), c.shape(0));
}

// Softsign: x / (1 + |x|).
void map_softsign(NodeCtx& c) {
  Json node = op_node("div", {c.arg(0), op_node("add", {op_node("abs", {c.arg(0)}), 1.0})});
  c.set_node(0, std::move(node), c.dtype(0), c.shape(0));
}

// PRelu: x where x >= 0, slope * x elsewhere (slope broadcast to x).
void map_prelu(NodeCtx& c) {
  Shape out = broadcast(c, c.shape(0), c.shape(1));
  if (out != c.shape(0)) c.fail("slope " + shape_str(c.shape(1)) + " does not broadcast to x " + shape_str(c.shape(0)));
  Json node = op_node("where", {op_node("lt", {c.arg(0), 0}), op_node("mul", {c.arg(0), c.arg(1)}), c.arg(0)});
  c.set_node(0, std::move(node), c.dtype(0), out);
}

// IsInf with detect_negative / detect_positive.
void map_isinf(NodeCtx& c) {
  bool neg = c.attr_int("detect_negative", 1) != 0, pos = c.attr_int("detect_positive", 1) != 0;
  Json node;
  if (neg && pos) node = op_node("isinf", {c.arg(0)});
  else if (!neg && !pos) node = with(op_node("full", {}), {{"shape", c.shape(0)}, {"value", false}});
  else node = op_node("eq", {c.arg(0), pos ? "inf" : "-inf"});
  c.set_node(0, std::move(node), DType::Bool, c.shape(0));
}

struct BinaryOp {
  const char* onnx;
  const char* stax;
  fold::Binary fold;
  bool to_bool;  // comparisons and logic return bool
};

constexpr BinaryOp kBinary[] = {
    {"Add", "add", fold::Binary::Add, false},       {"Sub", "sub", fold::Binary::Sub, false},
    {"Mul", "mul", fold::Binary::Mul, false},       {"Div", "div", fold::Binary::Div, false},
    {"Equal", "eq", fold::Binary::Eq, true},        {"Less", "lt", fold::Binary::Lt, true},
    {"Greater", "gt", fold::Binary::Gt, true},      {"LessOrEqual", "le", fold::Binary::Le, true},
    {"GreaterOrEqual", "ge", fold::Binary::Ge, true}, {"And", "logical_and", fold::Binary::And, true},
    {"Or", "logical_or", fold::Binary::Or, true},   {"Xor", "logical_xor", fold::Binary::Xor, true},
};

// Both operands have one dtype (ONNX's type constraint), so PyTorch's promotion keeps it.
void map_binary(NodeCtx& c) {
  const BinaryOp* b = nullptr;
  for (const BinaryOp& e : kBinary)
    if (c.op_type() == e.onnx) b = &e;
  Shape out = broadcast(c, c.shape(0), c.shape(1));
  DType dt = b->to_bool ? DType::Bool : c.dtype(0);
  if (c.fold(dt, out)) return c.set_known(0, fold::binary(b->fold, c.require_known(0, "A"), c.require_known(1, "B"), dt));
  Json node = op_node(b->stax, {c.arg(0), c.arg(1)});
  // ONNX's integer Div truncates (C semantics), PyTorch's true division would return floats.
  if (c.op_type() == "Div" && !is_floating(c.dtype(0))) node["rounding_mode"] = "trunc";
  c.set_node(0, std::move(node), dt, out);
}

// Mod: fmod = 0 takes the divisor's sign (PyTorch's remainder, integers only in ONNX);
// fmod = 1 the dividend's (C's fmod), expanded for integers as a - trunc(a / b) * b.
void map_mod(NodeCtx& c) {
  bool fmod = c.attr_int("fmod", 0) != 0;
  Shape out = broadcast(c, c.shape(0), c.shape(1));
  DType dt = c.dtype(0);
  if (is_floating(dt))
    c.fail("Mod of floats (C fmod) is not supported: stax has no fmod, and a - trunc(a / b) * b rounds differently");
  if (c.fold(dt, out))
    return c.set_known(0, fold::binary(fmod ? fold::Binary::FMod : fold::Binary::Mod, c.require_known(0, "A"),
                                       c.require_known(1, "B"), dt));
  Json node;
  if (!fmod) {
    node = op_node("remainder", {c.arg(0), c.arg(1)});
  } else {
    Json quotient = with(op_node("div", {c.arg(0), c.arg(1)}), {{"rounding_mode", "trunc"}});
    node = op_node("sub", {c.arg(0), op_node("mul", {std::move(quotient), c.arg(1)})});
  }
  c.set_node(0, std::move(node), dt, out);
}

// Pow: the result has the base's dtype. PyTorch promotes base and exponent; where that gives
// another dtype (an int base with a float exponent), the result is cast back as ONNX does.
void map_pow(NodeCtx& c) {
  Shape out = broadcast(c, c.shape(0), c.shape(1));
  using Rank = graph::PromoteOperand::Rank;
  auto operand = [&](std::size_t i) {
    return graph::PromoteOperand{c.dtype(i), c.rank(i) == 0 ? Rank::ZeroDim : Rank::Dim};
  };
  DType promoted = graph::result_type({operand(0), operand(1)});
  DType dt = c.dtype(0);
  if (c.fold(dt, out)) {
    Tensor r = fold::binary(fold::Binary::Pow, fold::cast(c.require_known(0, "X"), promoted),
                            fold::cast(c.require_known(1, "Y"), promoted), promoted);
    return c.set_known(0, fold::cast(r, dt));
  }
  Json node = op_node("pow", {c.arg(0), c.arg(1)});
  if (promoted != dt) node = with(op_node("to", {std::move(node)}), {{"dtype", dtype_name(dt)}});
  c.set_node(0, std::move(node), dt, out);
}

void map_where(NodeCtx& c) {
  Shape out = broadcast(c, broadcast(c, c.shape(0), c.shape(1)), c.shape(2));
  if (c.fold(c.dtype(1), out))
    return c.set_known(0, fold::where(c.require_known(0, "condition"), c.require_known(1, "X"), c.require_known(2, "Y")));
  c.set_node(0, op_node("where", {c.arg(0), c.arg(1), c.arg(2)}), c.dtype(1), out);
}

// Cast and CastLike. PyTorch's `to` rounds floats to ints toward zero, as ONNX's Cast does; a
// float out of the integer's range is unspecified in both.
void map_cast(NodeCtx& c) {
  DType dt = c.dtype(0);
  if (c.op_type() == "CastLike") {
    dt = c.dtype(1);
  } else {
    auto to = static_cast<int32_t>(c.attr_int("to", 0));
    std::optional<DType> d = dtype_from_onnx(to);
    if (!d) c.fail("a cast to " + onnx_type_name(to) + " is not supported (float32, float64, int32, int64 and bool are)");
    dt = *d;
  }
  if (dt == c.dtype(0)) return c.set_alias(0, 0);
  if (c.fold(dt, c.shape(0)) && c.known(0) != nullptr) return c.set_known(0, fold::cast(*c.known(0), dt));
  c.set_node(0, with(op_node("to", {c.arg(0)}), {{"dtype", dtype_name(dt)}}), dt, c.shape(0));
}

// Min, Max, Sum, Mean over one or more inputs, pairwise left to right with broadcasting.
void map_variadic(NodeCtx& c) {
  const std::string& op = c.op_type();
  const char* stax = op == "Min" ? "minimum" : op == "Max" ? "maximum" : "add";
  fold::Binary f = op == "Min" ? fold::Binary::Min : op == "Max" ? fold::Binary::Max : fold::Binary::Add;
  if (op == "Mean") require_float(c, 0, "Mean averages floats");
  Shape out = c.shape(0);
  for (std::size_t i = 1; i < c.num_inputs(); ++i) out = broadcast(c, out, c.shape(i));
  DType dt = c.dtype(0);
  if (c.num_inputs() == 1) return c.set_alias(0, 0);
  if (c.fold(dt, out)) {
    Tensor acc = c.require_known(0, "data_0");
    for (std::size_t i = 1; i < c.num_inputs(); ++i) acc = fold::binary(f, acc, c.require_known(i, "data"), dt);
    if (op == "Mean") {
      Tensor n(dt, {});
      n.set_double(0, static_cast<double>(c.num_inputs()));
      acc = fold::binary(fold::Binary::Div, acc, n, dt);
    }
    return c.set_known(0, std::move(acc));
  }
  Json node = c.arg(0);
  for (std::size_t i = 1; i < c.num_inputs(); ++i) node = op_node(stax, {std::move(node), c.arg(i)});
  if (op == "Mean") node = op_node("div", {std::move(node), float_json(static_cast<double>(c.num_inputs()))});
  c.set_node(0, std::move(node), dt, out);
}

}  // namespace

void add_elementwise_mappers(MapperTable& table) {
  for (const UnaryOp& u : kUnary) table[u.onnx] = map_unary;
  for (const BinaryOp& b : kBinary) table[b.onnx] = map_binary;
  table["Identity"] = map_identity;
  table["LeakyRelu"] = map_leaky_relu;
  table["Elu"] = map_elu;
  table["Selu"] = map_selu;
  table["Celu"] = map_celu;
  table["ThresholdedRelu"] = map_thresholded_relu;
  table["HardSigmoid"] = map_hard_sigmoid;
  table["Softsign"] = map_softsign;
  table["PRelu"] = map_prelu;
  table["IsInf"] = map_isinf;
  table["Mod"] = map_mod;
  table["Pow"] = map_pow;
  table["Where"] = map_where;
  table["Cast"] = map_cast;
  table["CastLike"] = map_cast;
  for (const char* op : {"Min", "Max", "Sum", "Mean"}) table[op] = map_variadic;
}

}  // namespace stax::importer::detail
