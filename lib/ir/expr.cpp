// Value expressions: nodes, checked factories, traversal and one-line printing.
#include "stax/ir/expr.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <unordered_set>

#include "index_internal.h"
#include "stax/support/error.h"

namespace stax::ir {

class ExprNode {
 public:
  ExprOp op = ExprOp::Constant;
  DType dtype = DType::Float32;
  std::vector<Expr> operands;
  BufferId buffer = -1;
  Index index;
  double f = 0.0;
  int64_t i = 0;        // Constant: the int value; IndirectLoad: the stride
  int64_t extent = 0;   // IndirectLoad
  std::size_t hash = 0;
};

class ExprBuilder {
 public:
  static Expr make(ExprNode n);
};

namespace {

using detail::mix;

bool is_number(DType t) { return is_floating(t) || is_integer(t); }
bool is_int_or_bool(DType t) { return is_integer(t) || t == DType::Bool; }

std::string op_str(ExprOp op) { return std::string(expr_op_name(op)); }

}  // namespace

Expr ExprBuilder::make(ExprNode n) {
  std::size_t h = mix(static_cast<std::size_t>(n.op), static_cast<std::size_t>(n.dtype));
  for (const Expr& o : n.operands) h = mix(h, o.hash());
  h = mix(h, std::hash<int32_t>()(n.buffer));
  h = mix(h, n.index.hash());
  h = mix(h, std::hash<uint64_t>()(std::bit_cast<uint64_t>(n.f)));
  h = mix(h, std::hash<int64_t>()(n.i));
  h = mix(h, std::hash<int64_t>()(n.extent));
  n.hash = h;
  return Expr(std::make_shared<const ExprNode>(std::move(n)));
}

std::string_view expr_op_name(ExprOp op) {
  switch (op) {
#define STAX_EXPR_OP(E, name, arity) \
  case ExprOp::E: return name;
#include "stax/ir/expr.def"
#undef STAX_EXPR_OP
  }
  return "?";
}

int expr_op_arity(ExprOp op) {
  switch (op) {
#define STAX_EXPR_OP(E, name, arity) \
  case ExprOp::E: return arity;
#include "stax/ir/expr.def"
#undef STAX_EXPR_OP
  }
  return 0;
}

bool is_expensive(ExprOp op) {
  static constexpr ExprOp kExpensive[] = {
      ExprOp::Exp,  ExprOp::Exp2, ExprOp::Expm1, ExprOp::Log,  ExprOp::Log2,    ExprOp::Log10, ExprOp::Log1p,
      ExprOp::Sin,  ExprOp::Cos,  ExprOp::Tan,   ExprOp::Asin, ExprOp::Acos,    ExprOp::Atan,  ExprOp::Sinh,
      ExprOp::Cosh, ExprOp::Tanh, ExprOp::Erf,   ExprOp::Erfc, ExprOp::Sigmoid, ExprOp::Pow,   ExprOp::Atan2};
  return std::find(std::begin(kExpensive), std::end(kExpensive), op) != std::end(kExpensive);
}

ExprOp Expr::op() const { return node_->op; }
DType Expr::dtype() const { return node_->dtype; }
const std::vector<Expr>& Expr::operands() const { return node_->operands; }

BufferId Expr::buffer() const {
  STAX_ASSERT(op() == ExprOp::Load || op() == ExprOp::IndirectLoad, "buffer() of a non-load expression");
  return node_->buffer;
}

const Index& Expr::index() const {
  STAX_ASSERT(op() == ExprOp::Load || op() == ExprOp::IndexValue || op() == ExprOp::IndirectLoad,
              "index() of an expression that is not a load or index value");
  return node_->index;
}

int64_t Expr::stride() const {
  STAX_ASSERT(op() == ExprOp::IndirectLoad, "stride() of a non-indirect load");
  return node_->i;
}

int64_t Expr::extent() const {
  STAX_ASSERT(op() == ExprOp::IndirectLoad, "extent() of a non-indirect load");
  return node_->extent;
}

double Expr::float_value() const {
  STAX_ASSERT(op() == ExprOp::Constant, "float_value() of a non-constant");
  return node_->f;
}

int64_t Expr::int_value() const {
  STAX_ASSERT(op() == ExprOp::Constant, "int_value() of a non-constant");
  return node_->i;
}

std::size_t Expr::hash() const { return node_ ? node_->hash : 0; }

bool Expr::operator==(const Expr& other) const {
  if (node_ == other.node_) return true;
  if (!node_ || !other.node_) return false;
  const ExprNode& a = *node_;
  const ExprNode& b = *other.node_;
  if (a.hash != b.hash || a.op != b.op || a.dtype != b.dtype || a.buffer != b.buffer ||
      a.i != b.i || a.extent != b.extent || std::bit_cast<uint64_t>(a.f) != std::bit_cast<uint64_t>(b.f) ||
      a.operands.size() != b.operands.size() || !(a.index == b.index))
    return false;
  for (std::size_t k = 0; k < a.operands.size(); ++k)
    if (!(a.operands[k] == b.operands[k])) return false;
  return true;
}

// ---------------------------------------------------------------- factories

Expr load(BufferId buffer, DType dtype, Index index) {
  STAX_ASSERT(buffer >= 0, "load of an invalid buffer id");
  ExprNode n;
  n.op = ExprOp::Load;
  n.dtype = dtype;
  n.buffer = buffer;
  n.index = std::move(index);
  return ExprBuilder::make(std::move(n));
}

Expr float_const(DType dtype, double v) {
  STAX_ASSERT(is_floating(dtype), "float_const of a non-float dtype");
  ExprNode n;
  n.op = ExprOp::Constant;
  n.dtype = dtype;
  n.f = dtype == DType::Float32 ? static_cast<double>(static_cast<float>(v)) : v;
  return ExprBuilder::make(std::move(n));
}

Expr int_const(DType dtype, int64_t v) {
  STAX_ASSERT(is_int_or_bool(dtype), "int_const of a float dtype");
  ExprNode n;
  n.op = ExprOp::Constant;
  n.dtype = dtype;
  if (dtype == DType::Bool) v = v != 0;
  if (dtype == DType::Int32) v = static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(v)));
  n.i = v;
  return ExprBuilder::make(std::move(n));
}

Expr bool_const(bool v) { return int_const(DType::Bool, v ? 1 : 0); }

Expr const_of(DType dtype, double v) {
  if (is_floating(dtype)) return float_const(dtype, v);
  if (dtype == DType::Bool) return bool_const(v != 0.0);
  STAX_ASSERT(std::isfinite(v), "non-finite integer constant");
  return int_const(dtype, static_cast<int64_t>(v));
}

Expr index_value(Index index, DType dtype) {
  STAX_ASSERT(is_integer(dtype), "index_value of a non-integer dtype");
  ExprNode n;
  n.op = ExprOp::IndexValue;
  n.dtype = dtype;
  n.index = std::move(index);
  return ExprBuilder::make(std::move(n));
}

Expr indirect_load(BufferId buffer, DType dtype, Index base, Expr position, int64_t stride,
                   int64_t extent) {
  STAX_ASSERT(buffer >= 0, "indirect load of an invalid buffer id");
  STAX_ASSERT(position && is_integer(position.dtype()), "indirect load: the position is not an int");
  STAX_ASSERT(stride >= 0 && extent >= 1, "indirect load: stride < 0 or extent < 1");
  ExprNode n;
  n.op = ExprOp::IndirectLoad;
  n.dtype = dtype;
  n.buffer = buffer;
  n.index = std::move(base);
  n.operands = {std::move(position)};
  n.i = stride;
  n.extent = extent;
  return ExprBuilder::make(std::move(n));
}

namespace {

// Result dtype of a unary op given its operand dtype; asserts the rule of expr.def.
DType unary_result(ExprOp op, DType t) {
  switch (op) {
    case ExprOp::Neg:
    case ExprOp::Abs:
    case ExprOp::Sign:
      STAX_ASSERT(is_number(t), op_str(op) + " needs an int or float operand");
      return t;
    case ExprOp::Floor:
    case ExprOp::Ceil:
    case ExprOp::Round:
    case ExprOp::Trunc:
    case ExprOp::Exp:
    case ExprOp::Exp2:
    case ExprOp::Expm1:
    case ExprOp::Log:
    case ExprOp::Log2:
    case ExprOp::Log10:
    case ExprOp::Log1p:
    case ExprOp::Sqrt:
    case ExprOp::Sin:
    case ExprOp::Cos:
    case ExprOp::Tan:
    case ExprOp::Asin:
    case ExprOp::Acos:
    case ExprOp::Atan:
    case ExprOp::Sinh:
    case ExprOp::Cosh:
    case ExprOp::Tanh:
    case ExprOp::Sigmoid:
    case ExprOp::Erf:
    case ExprOp::Erfc:
      STAX_ASSERT(is_floating(t), op_str(op) + " needs a float operand");
      return t;
    case ExprOp::BitwiseNot:
      STAX_ASSERT(is_int_or_bool(t), "bitwise_not needs an int or bool operand");
      return t;
    case ExprOp::IsNan:
    case ExprOp::IsInf:
    case ExprOp::IsFinite:
      STAX_ASSERT(is_floating(t), op_str(op) + " needs a float operand");
      return DType::Bool;
    case ExprOp::Load:
    case ExprOp::Constant:
    case ExprOp::IndexValue:
    case ExprOp::IndirectLoad:
    case ExprOp::Cast:
    case ExprOp::Add:
    case ExprOp::Sub:
    case ExprOp::Mul:
    case ExprOp::Div:
    case ExprOp::FloorDiv:
    case ExprOp::TruncDiv:
    case ExprOp::Remainder:
    case ExprOp::Pow:
    case ExprOp::Maximum:
    case ExprOp::Minimum:
    case ExprOp::Atan2:
    case ExprOp::BitwiseAnd:
    case ExprOp::BitwiseOr:
    case ExprOp::BitwiseXor:
    case ExprOp::Eq:
    case ExprOp::Ne:
    case ExprOp::Lt:
    case ExprOp::Le:
    case ExprOp::Gt:
    case ExprOp::Ge:
    case ExprOp::Where:
    case ExprOp::Masked: break;
  }
  STAX_ASSERT(false, op_str(op) + " is not a unary op");
  return t;
}

DType binary_result(ExprOp op, DType a, DType b) {
  STAX_ASSERT(a == b, op_str(op) + " operands differ in dtype: " + std::string(dtype_name(a)) +
                          " and " + std::string(dtype_name(b)));
  switch (op) {
    case ExprOp::Add:
    case ExprOp::Sub:
    case ExprOp::Mul:
    case ExprOp::FloorDiv:
    case ExprOp::TruncDiv:
    case ExprOp::Remainder:
    case ExprOp::Pow:
    case ExprOp::Maximum:
    case ExprOp::Minimum:
      STAX_ASSERT(is_number(a), op_str(op) + " needs int or float operands");
      return a;
    case ExprOp::Div:
    case ExprOp::Atan2:
      STAX_ASSERT(is_floating(a), op_str(op) + " needs float operands");
      return a;
    case ExprOp::BitwiseAnd:
    case ExprOp::BitwiseOr:
    case ExprOp::BitwiseXor:
      STAX_ASSERT(is_int_or_bool(a), op_str(op) + " needs int or bool operands");
      return a;
    case ExprOp::Eq:
    case ExprOp::Ne:
    case ExprOp::Lt:
    case ExprOp::Le:
    case ExprOp::Gt:
    case ExprOp::Ge: return DType::Bool;
    case ExprOp::Load:
    case ExprOp::Constant:
    case ExprOp::IndexValue:
    case ExprOp::IndirectLoad:
    case ExprOp::Neg:
    case ExprOp::Abs:
    case ExprOp::Sign:
    case ExprOp::Floor:
    case ExprOp::Ceil:
    case ExprOp::Round:
    case ExprOp::Trunc:
    case ExprOp::BitwiseNot:
    case ExprOp::Exp:
    case ExprOp::Exp2:
    case ExprOp::Expm1:
    case ExprOp::Log:
    case ExprOp::Log2:
    case ExprOp::Log10:
    case ExprOp::Log1p:
    case ExprOp::Sqrt:
    case ExprOp::Sin:
    case ExprOp::Cos:
    case ExprOp::Tan:
    case ExprOp::Asin:
    case ExprOp::Acos:
    case ExprOp::Atan:
    case ExprOp::Sinh:
    case ExprOp::Cosh:
    case ExprOp::Tanh:
    case ExprOp::Sigmoid:
    case ExprOp::Erf:
    case ExprOp::Erfc:
    case ExprOp::IsNan:
    case ExprOp::IsInf:
    case ExprOp::IsFinite:
    case ExprOp::Cast:
    case ExprOp::Where:
    case ExprOp::Masked: break;
  }
  STAX_ASSERT(false, op_str(op) + " is not a binary op");
  return a;
}

}  // namespace

Expr unary(ExprOp op, Expr a) {
  STAX_ASSERT(static_cast<bool>(a), "unary op of a null expression");
  ExprNode n;
  n.op = op;
  n.dtype = unary_result(op, a.dtype());
  n.operands = {std::move(a)};
  return ExprBuilder::make(std::move(n));
}

Expr cast(Expr a, DType to) {
  STAX_ASSERT(static_cast<bool>(a), "cast of a null expression");
  if (a.dtype() == to) return a;
  ExprNode n;
  n.op = ExprOp::Cast;
  n.dtype = to;
  n.operands = {std::move(a)};
  return ExprBuilder::make(std::move(n));
}

Expr binary(ExprOp op, Expr a, Expr b) {
  STAX_ASSERT(a && b, "binary op of a null expression");
  ExprNode n;
  n.op = op;
  n.dtype = binary_result(op, a.dtype(), b.dtype());
  n.operands = {std::move(a), std::move(b)};
  return ExprBuilder::make(std::move(n));
}

Expr where(Expr cond, Expr a, Expr b) {
  STAX_ASSERT(cond && a && b, "where of a null expression");
  STAX_ASSERT(cond.dtype() == DType::Bool, "where needs a bool condition");
  STAX_ASSERT(a.dtype() == b.dtype(), "where branches differ in dtype");
  ExprNode n;
  n.op = ExprOp::Where;
  n.dtype = a.dtype();
  n.operands = {std::move(cond), std::move(a), std::move(b)};
  return ExprBuilder::make(std::move(n));
}

Expr masked(Expr mask, Expr body, Expr other) {
  STAX_ASSERT(mask && body && other, "masked of a null expression");
  STAX_ASSERT(mask.dtype() == DType::Bool, "masked needs a bool mask");
  STAX_ASSERT(other.op() == ExprOp::Constant, "masked: `other` must be a constant");
  STAX_ASSERT(other.dtype() == body.dtype(), "masked: `other` and body differ in dtype");
  ExprNode n;
  n.op = ExprOp::Masked;
  n.dtype = body.dtype();
  n.operands = {std::move(mask), std::move(body), std::move(other)};
  return ExprBuilder::make(std::move(n));
}

// ---------------------------------------------------------------- traversal

std::vector<Expr> topo_order(const std::vector<Expr>& roots) {
  std::vector<Expr> order;
  std::unordered_set<const ExprNode*> seen;  // membership only; never iterated
  struct Frame {
    Expr e;
    std::size_t next;
  };
  for (const Expr& root : roots) {
    if (!root || seen.count(root.node())) continue;
    std::vector<Frame> stack{{root, 0}};
    seen.insert(root.node());
    while (!stack.empty()) {
      Frame& top = stack.back();
      if (top.next < top.e.operands().size()) {
        Expr child = top.e.operands()[top.next++];
        if (seen.insert(child.node()).second) stack.push_back({child, 0});
        continue;
      }
      order.push_back(top.e);
      stack.pop_back();
    }
  }
  return order;
}

std::vector<Expr> topo_order(const Expr& root) { return topo_order(std::vector<Expr>{root}); }

std::size_t node_count(const Expr& root) { return topo_order(root).size(); }

std::vector<LoadRef> collect_loads(const Expr& root) {
  // Nodes reachable without entering the body of a Masked node are evaluated unconditionally.
  std::unordered_set<const ExprNode*> unmasked;
  std::vector<Expr> stack{root};
  while (!stack.empty()) {
    Expr e = stack.back();
    stack.pop_back();
    if (!unmasked.insert(e.node()).second) continue;
    const auto& ops = e.operands();
    for (std::size_t k = 0; k < ops.size(); ++k) {
      if (e.op() == ExprOp::Masked && k == 1) continue;
      stack.push_back(ops[k]);
    }
  }
  std::vector<LoadRef> loads;
  for (const Expr& e : topo_order(root)) {
    if (e.op() != ExprOp::Load && e.op() != ExprOp::IndirectLoad) continue;
    const bool is_masked = unmasked.count(e.node()) == 0;
    const bool indirect = e.op() == ExprOp::IndirectLoad;
    bool merged = false;
    for (LoadRef& l : loads) {
      if (l.buffer == e.buffer() && l.index == e.index() && l.indirect == indirect) {
        l.masked = l.masked && is_masked;
        merged = true;
        break;
      }
    }
    if (!merged) loads.push_back(LoadRef{e.buffer(), e.index(), is_masked, indirect});
  }
  return loads;
}

bool may_fail(const Expr& root) {
  if (!root) return false;
  for (const Expr& e : topo_order(root)) {
    const ExprOp op = e.op();
    if (op == ExprOp::IndirectLoad) return true;
    const bool division = op == ExprOp::FloorDiv || op == ExprOp::TruncDiv || op == ExprOp::Remainder;
    if (division && !is_floating(e.dtype())) return true;
  }
  return false;
}

// ---------------------------------------------------------------- printing

std::string constant_text(const Expr& e) {
  std::string name(dtype_name(e.dtype()));
  if (e.dtype() == DType::Bool) return e.int_value() ? "true" : "false";
  if (is_integer(e.dtype())) return name + "(" + std::to_string(e.int_value()) + ")";
  double v = e.float_value();
  std::string text;
  if (std::isnan(v)) {
    text = "nan";
  } else if (std::isinf(v)) {
    text = v > 0 ? "inf" : "-inf";
  } else {
    char buf[64];
    std::snprintf(buf, sizeof buf, e.dtype() == DType::Float32 ? "%.9g" : "%.17g", v);
    text = buf;
  }
  return name + "(" + text + ")";
}

namespace {

std::string buffer_label(BufferId id, const std::vector<std::string>& names) {
  if (id >= 0 && static_cast<std::size_t>(id) < names.size()) return names[static_cast<std::size_t>(id)];
  return "buffer" + std::to_string(id);
}

void print_expr(std::ostringstream& os, const Expr& e, const std::vector<std::string>& names) {
  if (e.op() == ExprOp::Load) {
    os << buffer_label(e.buffer(), names) << '[' << to_string(e.index()) << ']';
    return;
  }
  if (e.op() == ExprOp::Constant) {
    os << constant_text(e);
    return;
  }
  if (e.op() == ExprOp::IndexValue) {
    os << "index<" << dtype_name(e.dtype()) << ">(" << to_string(e.index()) << ')';
    return;
  }
  if (e.op() == ExprOp::IndirectLoad) {  // x[x1 + 6*checked(p, 4)]
    os << buffer_label(e.buffer(), names) << '[' << to_string(e.index()) << " + " << e.stride()
       << "*checked(";
    print_expr(os, e.operand(0), names);
    os << ", " << e.extent() << ")]";
    return;
  }
  os << expr_op_name(e.op());
  if (e.op() == ExprOp::Cast) os << '<' << dtype_name(e.dtype()) << '>';
  os << '(';
  for (std::size_t k = 0; k < e.operands().size(); ++k) {
    if (k) os << ", ";
    print_expr(os, e.operands()[k], names);
  }
  os << ')';
}

}  // namespace

std::string to_string(const Expr& e, const std::vector<std::string>& buffer_names) {
  std::ostringstream os;
  print_expr(os, e, buffer_names);
  return os.str();
}

}  // namespace stax::ir
