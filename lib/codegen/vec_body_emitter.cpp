#include "vec_body_emitter.h"

#include "body_emitter.h"
#include "stax/support/isa.h"
#include "stax/codegen/literals.h"
#include "stax/support/error.h"

namespace stax::codegen {

namespace {

using ir::Expr;
using ir::ExprOp;

// Vector texts carry their type names, so they may run longer than scalar ones before an
// inline expression becomes a temporary.
constexpr std::size_t kMaxInlineText = 120;

bool is_float(DType dt) { return is_floating(dt); }

bool is_checked_division(const Expr& e) {
  const bool division =
      e.op() == ExprOp::FloorDiv || e.op() == ExprOp::TruncDiv || e.op() == ExprOp::Remainder;
  return division && !is_float(e.dtype());
}

// The sections of the instruction set a tag names; any other name may be any of them.
std::vector<std::string> isa_sections(const std::string& tag) {
  std::vector<std::string> all;
  for (const IsaRecord& r : isa_table()) {
    if (r.tag_type() == tag) return {r.section()};
    all.push_back(r.section());
  }
  return all;
}

// True when `text` can take a member access (`.storeu(...)`) as it is: no operator at its top
// level (spaces appear only around binary operators there, or inside parentheses and template
// arguments) and no leading unary operator.
bool postfix_safe(const std::string& text) {
  if (text.empty() || text[0] == '-' || text[0] == '~' || text[0] == '!') return false;
  int depth = 0;
  for (char c : text) {
    if (c == '(' || c == '<') ++depth;
    if (c == ')' || c == '>') --depth;
    if (c == ' ' && depth == 0) return false;
  }
  return true;
}

}  // namespace

std::string vec_type(DType dt, const std::string& isa_tag) {
  if (dt == DType::Bool) return "stax_rt::Mask<" + isa_tag + ">";
  return "stax_rt::Vec<" + cxx_type(dt) + ", " + isa_tag + ">";
}

// Vec and Mask spell their stores alike; `dt` states what is stored for the reader of a call.
std::string vec_store(DType /*dt*/, const std::string& v, const std::string& ptr_plus_index,
                      const std::string& live_lanes) {
  const std::string value = postfix_safe(v) ? v : "(" + v + ")";
  const std::string n = live_lanes.empty() ? "" : ", " + live_lanes;
  return value + ".storeu(" + bare(ptr_plus_index) + n + ");";
}

std::string vec_stream(const std::string& v, const std::string& ptr_plus_index) {
  const std::string value = postfix_safe(v) ? v : "(" + v + ")";
  return value + ".stream(" + bare(ptr_plus_index) + ");";
}

VecBodyEmitter::VecBodyEmitter(std::function<std::string(ir::BufferId)> buffer_name,
                               std::function<std::string(const ir::Index&)> index_text,
                               std::function<ir::Index(const ir::Index&)> rewrite, ir::Var inner,
                               std::string isa_tag, std::set<std::string>& sections,
                               int& temp_counter)
    : buffer_name_(std::move(buffer_name)), index_text_(std::move(index_text)),
      rewrite_(std::move(rewrite)), inner_(inner), isa_(std::move(isa_tag)), sections_(sections),
      temp_counter_(temp_counter) {}

std::string VecBodyEmitter::why_not(const Expr& body) const {
  for (const Expr& e : ir::topo_order(body)) {
    // A gather of positions read from data: left to the scalar loop.
    if (e.op() == ExprOp::IndirectLoad)
      return "indexed load of " + buffer_name_(e.buffer()) + " (positions read from data)";
    if (e.op() != ExprOp::Load) continue;
    const std::optional<int64_t> stride = lane_stride(rewrite_(e.index()), inner_);
    if (stride && (*stride == 0 || *stride == 1)) continue;
    if (stride == std::optional<int64_t>(2) && e.dtype() != DType::Bool) continue;
    const std::string what = "load of " + buffer_name_(e.buffer()) + "[" + bare(index_text_(e.index())) + "]";
    const std::string var = ir::var_name(inner_);
    if (!stride) return what + " is not linear in " + var;
    return what + " steps by " + std::to_string(*stride) + " in " + var;
  }
  return "";
}

std::string VecBodyEmitter::vtype(DType dt) const { return vec_type(dt, isa_); }

std::string VecBodyEmitter::emit(const Expr& root, CodeWriter& out, const std::string& live_lanes) {
  sections_.insert("vec");
  for (const std::string& s : isa_sections(isa_)) sections_.insert(s);
  live_ = live_lanes;
  info_.clear();
  for (const Expr& e : ir::topo_order(root)) {
    NodeInfo& n = info_[e.node()];
    n.reads = e.op() == ExprOp::Load && local_of(e).empty();
    n.divides = is_checked_division(e);
    if (e.op() == ExprOp::Load || e.op() == ExprOp::IndexValue) {
      n.stride = lane_stride(rewrite_(e.index()), inner_);
      n.varies = n.stride != 0;
      STAX_ASSERT(e.op() != ExprOp::Load || why_not(e).empty(), "vector emission of a body it refuses: " + why_not(root));
    }
    for (const Expr& operand : e.operands()) {
      NodeInfo& o = info_.at(operand.node());
      ++o.uses;
      n.varies = n.varies || o.varies;
      n.reads = n.reads || o.reads;
      n.divides = n.divides || o.divides;
    }
  }
  ++info_.at(root.node()).uses;
  scopes_.assign(1, {});
  // A tail's lanes past n are no iterations: a Masked body counts only lanes [0, n).
  active_.assign(1, live_.empty() ? "" : vtype(DType::Bool) + "::first(" + live_ + ")");
  return text_of(root, out, true);
}

const std::string* VecBodyEmitter::lookup(const ir::ExprNode* n) const {
  for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
    auto found = it->find(n);
    if (found != it->end()) return &found->second;
  }
  return nullptr;
}

std::string VecBodyEmitter::declare(const Expr& e, const std::string& text, CodeWriter& out) {
  std::string name = "t" + std::to_string(temp_counter_++);
  out.line("const " + vtype(e.dtype()) + " " + name + " = " + bare(text) + ";");
  scopes_.back()[e.node()] = name;
  return name;
}

std::string VecBodyEmitter::temp_of(const Expr& e, CodeWriter& out) {
  if (const std::string* name = lookup(e.node())) return *name;
  std::string text = text_of(e, out);
  if (const std::string* name = lookup(e.node())) return *name;  // text_of made it a temporary
  if (e.op() == ExprOp::Constant) return text;
  return declare(e, text, out);
}

std::string VecBodyEmitter::text_of(const Expr& e, CodeWriter& out, bool root) {
  if (const std::string* name = lookup(e.node())) return *name;
  if (e.op() == ExprOp::Masked) return masked_text(e, out, root);
  std::string text = lane_range_text(e);
  if (text.empty()) {
    std::vector<std::string> args;
    for (const Expr& a : e.operands()) args.push_back(text_of(a, out));
    text = op_text(e, args);
  }
  if (e.op() == ExprOp::Constant || (!shared(e) && (root || text.size() <= kMaxInlineText))) return text;
  return declare(e, text, out);
}

// A comparison of an int64 index value with an integer constant: where the index steps by s != 0
// along the vector loop, the lanes where it holds are a range, [k, W) or [0, k), computed from
// lane 0's index alone (stax_rt::lanes_at_least); where it does not step, one scalar comparison
// made a mask; either instead of W int64 lanes and a vector compare. The edges of pooling
// windows and pads: ResNet's max pool 0.35 -> 0.12 ms. "" for anything else.
std::string VecBodyEmitter::lane_range_text(const Expr& e) const {
  const ExprOp op = e.op();
  if (op != ExprOp::Lt && op != ExprOp::Le && op != ExprOp::Gt && op != ExprOp::Ge) return "";
  const auto affine = [&](const Expr& x) {
    return x.op() == ExprOp::IndexValue && x.dtype() == DType::Int64 && info_.at(x.node()).stride;
  };
  const auto bound = [](const Expr& x) { return x.op() == ExprOp::Constant && x.dtype() == DType::Int64; };
  bool swapped = false;
  if (!(affine(e.operand(0)) && bound(e.operand(1)))) {
    if (!(affine(e.operand(1)) && bound(e.operand(0)))) return "";
    swapped = true;
  }
  const Expr& x = e.operand(swapped ? 1 : 0);
  const int64_t c = e.operand(swapped ? 0 : 1).int_value();
  // x op c, with op turned around when the constant comes first (c < x is x > c).
  ExprOp o = op;
  if (swapped) o = op == ExprOp::Lt ? ExprOp::Gt : op == ExprOp::Le ? ExprOp::Ge : op == ExprOp::Gt ? ExprOp::Lt : ExprOp::Le;
  const std::string first = bare(index_text_(x.index()));
  const int64_t stride = *info_.at(x.node()).stride;
  if (stride == 0) {  // the same in every lane: one scalar comparison
    const char* sym = o == ExprOp::Lt ? " < " : o == ExprOp::Le ? " <= " : o == ExprOp::Gt ? " > " : " >= ";
    return vtype(DType::Bool) + "(" + first + sym + int_literal(DType::Int64, c) + ")";
  }
  // x >= c and x > c (x >= c + 1) directly, x < c and x <= c as their complements.
  const bool strict = o == ExprOp::Gt || o == ExprOp::Le, complement = o == ExprOp::Lt || o == ExprOp::Le;
  const std::string call = "stax_rt::lanes_at_least<" + isa_ + ">(" + first + ", " + std::to_string(stride) + ", " +
                           int_literal(DType::Int64, c) + ", " + (strict ? "true" : "false") + ")";
  return complement ? "(~" + call + ")" : call;
}

// Masked(mask, body, other): see the header. A body that reads no memory and divides no
// integer is computed on every lane and selected; otherwise it runs in an if-block, with the
// lanes it counts on pushed on active_. The body goes to its own writer and scope either way
// (its temporaries are valid only where it is evaluated).
std::string VecBodyEmitter::masked_text(const Expr& e, CodeWriter& out, bool root) {
  const Expr& mask_e = e.operand(0);
  const Expr& body_e = e.operand(1);
  const std::string mask = temp_of(mask_e, out);
  const std::string other = text_of(e.operand(2), out);
  const bool block = info_.at(body_e.node()).reads || info_.at(body_e.node()).divides;
  const bool uniform = !info_.at(mask_e.node()).varies;
  const std::string outer = active_.back();
  std::string active = outer;
  if (block && !uniform) {
    active = outer.empty() ? mask : "t" + std::to_string(temp_counter_++);
    if (!outer.empty()) out.line("const " + vtype(DType::Bool) + " " + active + " = " + outer + " & " + mask + ";");
  }
  CodeWriter body_out(0);
  scopes_.emplace_back();
  active_.push_back(active);
  const std::string body = text_of(body_e, body_out, true);
  active_.pop_back();
  scopes_.pop_back();

  const std::string select = "stax_rt::where(" + mask + ", " + bare(body) + ", ";
  if (!block) {
    out.append(body_out.str());
    const std::string text = select + bare(other) + ")";
    if (!shared(e) && (root || text.size() <= kMaxInlineText)) return text;
    return declare(e, text, out);
  }
  const std::string name = "t" + std::to_string(temp_counter_++);
  out.line(vtype(e.dtype()) + " " + name + " = " + bare(other) + ";");
  // A uniform mask holds in all lanes or in none: inside the if-block, in all.
  out.open("if (stax_rt::any(" + (uniform ? mask : active) + "))");
  out.append(body_out.str());
  out.line(name + " = " + (uniform ? bare(body) : select + name + ")") + ";");
  out.close();
  scopes_.back()[e.node()] = name;
  return name;
}

// The lanes a load or a division must leave alone: those outside the innermost Masked body's
// active set; "" at the top level and in uniform bodies (where a tail goes by live_ instead).
std::string VecBodyEmitter::masked_lanes() const {
  return active_.back() == active_.front() ? std::string() : active_.back();
}

std::string VecBodyEmitter::local_of(const Expr& load) const {
  return local_load_ ? local_load_(load.buffer(), load.index()) : std::string();
}

std::string VecBodyEmitter::load_text(const Expr& e) {
  const DType dt = e.dtype();
  const std::optional<int64_t> stride = info_.at(e.node()).stride;
  const std::string local = local_of(e);
  if (!local.empty()) return stride == std::optional<int64_t>(0) ? vtype(dt) + "(" + local + ")" : local;
  std::string buf, idx;
  if (address_) {
    if (auto at = address_(e.buffer(), e.index())) {
      buf = at->first;
      idx = bare(at->second);
    }
  }
  if (buf.empty()) {
    buf = buffer_name_(e.buffer());
    idx = bare(index_text_(e.index()));
  }
  // A broadcast: inside a Masked body only under `if (any(active))`, so some lane's scalar
  // iteration reads the same address.
  if (stride == std::optional<int64_t>(0)) return vtype(dt) + "(" + buf + "[" + idx + "])";
  const std::string ptr = buf + " + (" + idx + ")";
  const std::string active = masked_lanes();
  if (stride == std::optional<int64_t>(2)) {  // p[0], p[2], ...: two loads and a shuffle
    if (!active.empty()) return "stax_rt::load_even_masked(" + ptr + ", " + active + ")";
    return "stax_rt::load_even<" + isa_ + ">(" + ptr + (live_.empty() ? "" : ", " + live_) + ")";
  }
  if (!active.empty()) return "stax_rt::load_masked(" + ptr + ", " + active + ")";
  if (!live_.empty()) return vtype(dt) + "::loadu(" + ptr + ", " + live_ + ")";
  return vtype(dt) + "::loadu(" + ptr + ")";
}

std::string VecBodyEmitter::index_value_text(const Expr& e) {
  const DType dt = e.dtype();
  const std::string T = cxx_type(dt);
  const std::string V = vtype(dt);
  const std::string start = bare(index_text_(e.index()));
  // Int32 values wrap as the scalar static_cast does; lane arithmetic in T wraps alike.
  const std::string first = dt == DType::Int64 ? start : "static_cast<" + T + ">(" + start + ")";
  const std::optional<int64_t> stride = info_.at(e.node()).stride;
  if (!stride) {
    const std::string var = ir::var_name(inner_);
    return "stax_rt::from_lanes<" + T + ", " + isa_ + ">([&](int64_t " + var + ") { return " + first + "; }, " +
           var + ")";
  }
  if (*stride == 0) return V + "(" + first + ")";
  if (*stride == 1) return V + "::iota(" + first + ")";
  return "(" + V + "(" + first + ") + " + V + "::iota(0) * " + V + "(" + int_literal(dt, *stride) + "))";
}

std::string VecBodyEmitter::op_text(const Expr& e, const std::vector<std::string>& a) {
  const DType dt = e.dtype();
  const bool flt = is_float(dt);
  auto call = [&](const std::string& fn) {
    std::string s = "stax_rt::" + fn + "(";
    for (std::size_t i = 0; i < a.size(); ++i) s += (i ? ", " : "") + bare(a[i]);
    return s + ")";
  };
  auto infix = [&](const char* op) { return "(" + a[0] + " " + op + " " + a[1] + ")"; };
  // Integer division checks its divisor on the lanes that count: lanes outside a Masked body's
  // active set divide by 1, a tail checks its first n lanes.
  auto checked = [&](const std::string& fn) {
    if (flt) return call(fn);
    fallible_ = true;
    const std::string active = masked_lanes();
    if (!active.empty()) {
      const std::string divisor = "stax_rt::where(" + active + ", " + bare(a[1]) + ", " + vtype(dt) + "(" +
                                  int_literal(dt, 1) + "))";
      return "stax_rt::" + fn + "(" + bare(a[0]) + ", " + divisor + ", err)";
    }
    return "stax_rt::" + fn + "(" + bare(a[0]) + ", " + bare(a[1]) + ", err" + (live_.empty() ? "" : ", " + live_) + ")";
  };

  switch (e.op()) {
    case ExprOp::Load: return load_text(e);
    case ExprOp::Constant:
      if (dt == DType::Bool) return vtype(dt) + "(" + int_literal(dt, e.int_value()) + ")";
      return vtype(dt) + "(" + (flt ? float_literal(dt, e.float_value()) : int_literal(dt, e.int_value())) + ")";
    case ExprOp::IndexValue: return index_value_text(e);
    case ExprOp::Neg: return "(-" + a[0] + ")";
    case ExprOp::Abs: return call("abs");
    case ExprOp::Sign: return call("sign");
    case ExprOp::Floor: return call("floor");
    case ExprOp::Ceil: return call("ceil");
    case ExprOp::Round: return call("round");
    case ExprOp::Trunc: return call("trunc");
    case ExprOp::BitwiseNot: return "(~" + a[0] + ")";
    case ExprOp::Exp: return call("exp");
    case ExprOp::Exp2: return call("exp2");
    case ExprOp::Expm1: return call("expm1");
    case ExprOp::Log: return call("log");
    case ExprOp::Log2: return call("log2");
    case ExprOp::Log10: return call("log10");
    case ExprOp::Log1p: return call("log1p");
    case ExprOp::Sqrt: return call("sqrt");
    case ExprOp::Sin: return call("sin");
    case ExprOp::Cos: return call("cos");
    case ExprOp::Tan: return call("tan");
    case ExprOp::Asin: return call("asin");
    case ExprOp::Acos: return call("acos");
    case ExprOp::Atan: return call("atan");
    case ExprOp::Sinh: return call("sinh");
    case ExprOp::Cosh: return call("cosh");
    case ExprOp::Tanh: return call("tanh");
    case ExprOp::Sigmoid: return call("sigmoid");
    case ExprOp::Erf: return call("erf");
    case ExprOp::Erfc: return call("erfc");
    case ExprOp::IsNan: return call("isnan");
    case ExprOp::IsInf: return call("isinf");
    case ExprOp::IsFinite: return call("isfinite");
    case ExprOp::Cast: return "stax_rt::cast<" + cxx_type(dt) + ">(" + bare(a[0]) + ")";
    // Vector + - * wrap on integers (the layer's contract), as the prelude's add/sub/mul.
    case ExprOp::Add: return infix("+");
    case ExprOp::Sub: return infix("-");
    case ExprOp::Mul: return infix("*");
    case ExprOp::Div: return infix("/");
    case ExprOp::FloorDiv: return checked("div_floor");
    case ExprOp::TruncDiv: return checked("div_trunc");
    case ExprOp::Remainder: return checked("remainder");
    case ExprOp::Pow: return call("pow");
    case ExprOp::Maximum: return call("maximum");
    case ExprOp::Minimum: return call("minimum");
    case ExprOp::Atan2: return call("atan2");
    // On bools these are the Masks' & | ^, which evaluate both operands as the scalar code
    // does whenever an operand could have an effect (BodyEmitter).
    case ExprOp::BitwiseAnd: return infix("&");
    case ExprOp::BitwiseOr: return infix("|");
    case ExprOp::BitwiseXor: return infix("^");
    case ExprOp::Eq: return infix("==");
    case ExprOp::Ne: return infix("!=");
    case ExprOp::Lt: return infix("<");
    case ExprOp::Le: return infix("<=");
    case ExprOp::Gt: return infix(">");
    case ExprOp::Ge: return infix(">=");
    case ExprOp::Where: return call("where");
    case ExprOp::Masked: break;  // masked_text
    case ExprOp::IndirectLoad: break;  // refused by why_not
  }
  internal_error(__FILE__, __LINE__, "op_text of " + std::string(ir::expr_op_name(e.op())));
}

}  // namespace stax::codegen
