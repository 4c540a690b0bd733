#include "body_emitter.h"

#include "stax/codegen/literals.h"
#include "stax/support/error.h"

namespace stax::codegen {

namespace {

using ir::Expr;
using ir::ExprOp;

// An inline expression longer than this becomes a temporary, to keep lines readable.
constexpr std::size_t kMaxInlineText = 96;

std::string atom_cxx(const ir::Index& e, bool parenthesize);

std::string operand_cxx(const ir::Index& e) {
  // The numerator of / or %: parenthesized unless it is a single variable.
  std::string s = atom_cxx(e, true);
  if (e.kind() == ir::IndexKind::Sum) return "(" + index_cxx(e) + ")";
  return s;
}

std::string atom_cxx(const ir::Index& e, bool parenthesize) {
  switch (e.kind()) {
    case ir::IndexKind::Const: return std::to_string(e.value());
    case ir::IndexKind::Var: return ir::var_name(e.var());
    case ir::IndexKind::FloorDiv:
    case ir::IndexKind::Mod: {
      const char* op = e.kind() == ir::IndexKind::FloorDiv ? " / " : " % ";
      std::string s = operand_cxx(e.operand()) + op + std::to_string(e.divisor());
      return parenthesize ? "(" + s + ")" : s;
    }
    case ir::IndexKind::Sum: return "(" + index_cxx(e) + ")";
  }
  return "?";
}

bool is_float(DType dt) { return is_floating(dt); }

// Expressions that are already a name or a literal and never need a temporary.
bool is_leaf_text(const Expr& e) { return e.op() == ExprOp::Constant; }

}  // namespace

std::string bare(const std::string& text) {
  if (text.size() < 2 || text.front() != '(' || text.back() != ')') return text;
  int depth = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '(') ++depth;
    if (text[i] == ')') --depth;
    if (depth == 0 && i + 1 < text.size()) return text;  // the first '(' closes early
  }
  return text.substr(1, text.size() - 2);
}

namespace {

std::string literal_text(const Expr& e) {
  if (is_float(e.dtype())) return float_literal(e.dtype(), e.float_value());
  return int_literal(e.dtype(), e.int_value());
}

}  // namespace

std::string index_cxx(const ir::Index& e) {
  if (e.kind() != ir::IndexKind::Sum) return atom_cxx(e, false);
  std::string s;
  for (const ir::IndexTerm& t : e.terms()) {
    int64_t c = t.coeff;
    if (s.empty()) {
      if (c < 0) s += "-";
    } else {
      s += c < 0 ? " - " : " + ";
    }
    const int64_t mag = c < 0 ? -c : c;
    std::string factors;
    for (const ir::Index& f : t.factors) {
      if (!factors.empty()) factors += " * ";
      factors += atom_cxx(f, true);
    }
    s += mag == 1 ? factors : std::to_string(mag) + " * " + factors;
  }
  if (e.constant() != 0) s += (e.constant() < 0 ? " - " : " + ") + std::to_string(e.constant() < 0 ? -e.constant() : e.constant());
  return s;
}

BodyEmitter::BodyEmitter(std::function<std::string(ir::BufferId)> buffer_name,
                         std::function<std::string(const ir::Index&)> index_text,
                         std::set<std::string>& sections, int& temp_counter)
    : buffer_name_(std::move(buffer_name)), index_text_(std::move(index_text)),
      sections_(sections), temp_counter_(temp_counter) {}

bool BodyEmitter::has_checked_division(const Expr& root) { return ir::may_fail(root); }

std::string BodyEmitter::emit(const Expr& root, CodeWriter& out) {
  uses_.clear();
  scopes_.assign(1, {});
  for (const Expr& e : ir::topo_order(root))
    for (const Expr& operand : e.operands()) ++uses_[operand.node()];
  ++uses_[root.node()];
  return text_of(root, out, true);
}

std::string BodyEmitter::new_temp() { return "t" + std::to_string(temp_counter_++); }

const std::string* BodyEmitter::lookup(const ir::ExprNode* n) const {
  for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
    auto found = it->find(n);
    if (found != it->end()) return &found->second;
  }
  return nullptr;
}

std::string BodyEmitter::temp_of(const Expr& e, CodeWriter& out) {
  if (is_leaf_text(e)) return literal_text(e);
  if (const std::string* name = lookup(e.node())) return *name;
  std::string text = text_of(e, out);
  if (const std::string* name = lookup(e.node())) return *name;  // text_of made it a temporary
  std::string name = new_temp();
  out.line("const " + cxx_type(e.dtype()) + " " + name + " = " + bare(text) + ";");
  scopes_.back()[e.node()] = name;
  return name;
}

std::string BodyEmitter::text_of(const Expr& e, CodeWriter& out, bool root) {
  if (e.op() == ExprOp::Constant) return literal_text(e);
  if (const std::string* name = lookup(e.node())) return *name;
  if (e.op() == ExprOp::Masked) return masked_text(e, out, root);

  std::vector<std::string> args;
  for (std::size_t i = 0; i < e.operands().size(); ++i) {
    const Expr& a = e.operand(i);
    // Both branches of a where are evaluated (PyTorch evaluates both eagerly, so a division by
    // zero in the branch not taken still reports): a branch that checks a divisor must not sit
    // inside `?:`.
    const bool hoist = e.op() == ExprOp::Where && i > 0 && has_checked_division(a);
    args.push_back(hoist ? temp_of(a, out) : text_of(a, out));
  }
  std::string text = op_text(e, args);
  auto uses = uses_.find(e.node());
  const bool shared = uses != uses_.end() && uses->second > 1;
  if (!shared && (root || text.size() <= kMaxInlineText)) return text;
  std::string name = new_temp();
  out.line("const " + cxx_type(e.dtype()) + " " + name + " = " + bare(text) + ";");
  scopes_.back()[e.node()] = name;
  return name;
}

std::string BodyEmitter::masked_text(const Expr& e, CodeWriter& out, bool root) {
  const std::string mask = text_of(e.operand(0), out);
  const std::string other = text_of(e.operand(2), out);
  // The body goes to its own writer and scope: its temporaries exist only where the mask holds.
  CodeWriter body_out(0);
  scopes_.emplace_back();
  const std::string body = text_of(e.operand(1), body_out, true);
  scopes_.pop_back();
  const std::string type = cxx_type(e.dtype());
  auto uses = uses_.find(e.node());
  const bool shared = uses != uses_.end() && uses->second > 1;
  if (body_out.empty()) {
    std::string text = "(" + mask + " ? " + body + " : " + other + ")";
    if (!shared && (root || text.size() <= kMaxInlineText)) return text;
    std::string name = new_temp();
    out.line("const " + type + " " + name + " = " + bare(text) + ";");
    scopes_.back()[e.node()] = name;
    return name;
  }
  std::string name = new_temp();
  out.line(type + " " + name + " = " + other + ";");
  out.open("if (" + bare(mask) + ")");
  out.append(body_out.str());
  out.line(name + " = " + bare(body) + ";");
  out.close();
  scopes_.back()[e.node()] = name;
  return name;
}

std::string BodyEmitter::op_text(const Expr& e, const std::vector<std::string>& a) {
  const DType dt = e.dtype();
  const std::string T = cxx_type(dt);
  const bool flt = is_float(dt);
  auto call = [&](const std::string& fn, std::size_t n, const std::string& targ) {
    std::string s = "stax_rt::" + fn + (targ.empty() ? "" : "<" + targ + ">") + "(";
    for (std::size_t i = 0; i < n; ++i) s += (i ? ", " : "") + bare(a[i]);
    return s + ")";
  };
  auto math = [&](const std::string& fn) {
    sections_.insert("math");
    return call(fn, e.operands().size(), "");
  };
  auto infix = [&](const char* op) { return "(" + a[0] + " " + op + " " + a[1] + ")"; };
  // A comparison of an operand with itself goes through a function (no self-comparison warning).
  auto compare = [&](const char* op, const std::string& fn) {
    if (a[0] != a[1]) return infix(op);
    return call(fn, 2, cxx_type(e.operand(0).dtype()));
  };
  auto checked = [&](const std::string& fn) {
    sections_.insert("intdiv");
    if (flt) return call(fn, 2, T);
    fallible_ = true;
    return "stax_rt::" + fn + "<" + T + ">(" + bare(a[0]) + ", " + bare(a[1]) + ", err)";
  };

  switch (e.op()) {
    case ExprOp::Load:
      if (local_load_) {
        std::string local = local_load_(e.buffer(), e.index());
        if (!local.empty()) return local;
      }
      return buffer_name_(e.buffer()) + "[" + bare(index_text_(e.index())) + "]";
    case ExprOp::IndirectLoad: {
      // buf[base + stride * p], p checked (0, inside the data, when out of range).
      sections_.insert("index");
      fallible_ = true;
      const std::string p = "stax_rt::checked_index(" + bare(a[0]) + ", " + std::to_string(e.extent()) + ", err)";
      const std::string base = bare(index_text_(e.index()));
      const std::string step = e.stride() == 1 ? p : std::to_string(e.stride()) + " * " + p;
      return buffer_name_(e.buffer()) + "[" + (base == "0" ? step : base + " + " + step) + "]";
    }
    case ExprOp::Constant: return literal_text(e);
    case ExprOp::IndexValue: {
      std::string idx = index_text_(e.index());
      if (dt == DType::Int64) return idx;
      return "static_cast<" + T + ">(" + idx + ")";
    }
    // The space keeps the negation of a negative literal from reading as `--`.
    case ExprOp::Neg: return flt ? (a[0].front() == '-' ? "(- " : "(-") + a[0] + ")" : call("neg", 1, T);
    case ExprOp::Abs: return call("abs", 1, T);
    case ExprOp::Sign: return call("sign", 1, T);
    case ExprOp::Floor: return call("floor", 1, T);
    case ExprOp::Ceil: return call("ceil", 1, T);
    case ExprOp::Round: return call("round", 1, T);
    case ExprOp::Trunc: return call("trunc", 1, T);
    case ExprOp::BitwiseNot: return call("bitwise_not", 1, T);
    case ExprOp::Exp: return math("exp");
    case ExprOp::Exp2: return math("exp2");
    case ExprOp::Expm1: return math("expm1");
    case ExprOp::Log: return math("log");
    case ExprOp::Log2: return math("log2");
    case ExprOp::Log10: return math("log10");
    case ExprOp::Log1p: return math("log1p");
    case ExprOp::Sqrt: return math("sqrt");
    case ExprOp::Sin: return math("sin");
    case ExprOp::Cos: return math("cos");
    case ExprOp::Tan: return math("tan");
    case ExprOp::Asin: return math("asin");
    case ExprOp::Acos: return math("acos");
    case ExprOp::Atan: return math("atan");
    case ExprOp::Sinh: return math("sinh");
    case ExprOp::Cosh: return math("cosh");
    case ExprOp::Tanh: return math("tanh");
    case ExprOp::Sigmoid: sections_.insert("activation"); return call("sigmoid", 1, T);
    case ExprOp::Erf: return math("erf");
    case ExprOp::Erfc: return math("erfc");
    case ExprOp::IsNan: return call("isnan", 1, cxx_type(e.operand(0).dtype()));
    case ExprOp::IsInf: return call("isinf", 1, cxx_type(e.operand(0).dtype()));
    case ExprOp::IsFinite: return call("isfinite", 1, cxx_type(e.operand(0).dtype()));
    case ExprOp::Cast: {
      const DType from = e.operand(0).dtype();
      // Conversions between floats and from int to float are plain; the rest need the prelude's
      // care (bool, narrowing ints, float -> int without UB).
      const bool plain = flt && from != DType::Bool;
      if (plain) return "static_cast<" + T + ">(" + bare(a[0]) + ")";
      return call("cast", 1, T);
    }
    case ExprOp::Add: return flt ? infix("+") : call("add", 2, T);
    case ExprOp::Sub: return flt ? infix("-") : call("sub", 2, T);
    case ExprOp::Mul: return flt ? infix("*") : call("mul", 2, T);
    case ExprOp::Div: return infix("/");
    case ExprOp::FloorDiv: return checked("div_floor");
    case ExprOp::TruncDiv: return checked("div_trunc");
    case ExprOp::Remainder: return checked("remainder");
    case ExprOp::Pow: return flt ? math("pow") : (sections_.insert("math"), call("pow", 2, T));
    case ExprOp::Maximum: return call("maximum", 2, T);
    case ExprOp::Minimum: return call("minimum", 2, T);
    case ExprOp::Atan2: return math("atan2");
    case ExprOp::BitwiseAnd:
    case ExprOp::BitwiseOr:
    case ExprOp::BitwiseXor: {
      const char* op = e.op() == ExprOp::BitwiseAnd ? "&" : e.op() == ExprOp::BitwiseOr ? "|" : "^";
      // Integers: a runtime call (stax_prelude.h bit_and/bit_or/bit_xor), so that neither
      // -Wparentheses (an index operand prints bare, "-x0 - 1") nor -Wtautological-compare (a
      // comparison of `x | 7` with 6) sees an operator.
      if (dt != DType::Bool)
        return call(e.op() == ExprOp::BitwiseAnd ? "bit_and" : e.op() == ExprOp::BitwiseOr ? "bit_or" : "bit_xor", 2, T);
      // On bools: the logical operators, unless the right operand checks a divisor (&& and ||
      // would skip it; PyTorch evaluates both), then & | on ints converted back to bool.
      if (e.op() == ExprOp::BitwiseXor) return compare("!=", "ne");
      if (!has_checked_division(e.operand(1))) return infix(e.op() == ExprOp::BitwiseAnd ? "&&" : "||");
      return "static_cast<bool>" + infix(op);
    }
    case ExprOp::Eq: return compare("==", "eq");
    case ExprOp::Ne: return compare("!=", "ne");
    case ExprOp::Lt: return compare("<", "lt");
    case ExprOp::Le: return compare("<=", "le");
    case ExprOp::Gt: return compare(">", "gt");
    case ExprOp::Ge: return compare(">=", "ge");
    case ExprOp::Where: return "(" + a[0] + " ? " + a[1] + " : " + a[2] + ")";
    case ExprOp::Masked: break;  // masked_text
  }
  internal_error(__FILE__, __LINE__, "op_text of " + std::string(ir::expr_op_name(e.op())));
}

}  // namespace stax::codegen
