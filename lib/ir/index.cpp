// Index expressions: nodes, order, hashing, evaluation, substitution and printing (the
// normal-form factories and bounds are in normal_form.cpp).
#include "stax/ir/index.h"

#include <algorithm>
#include <numeric>
#include <sstream>

#include "index_internal.h"
#include "stax/support/error.h"

namespace stax::ir {

using detail::floor_div;
using detail::py_mod;

namespace {

using detail::mix;

int kind_rank(IndexKind k) {
  switch (k) {
    case IndexKind::Const: return 0;
    case IndexKind::Var: return 1;
    case IndexKind::FloorDiv: return 2;
    case IndexKind::Mod: return 3;
    case IndexKind::Sum: return 4;
  }
  return 5;
}

}  // namespace

// ---------------------------------------------------------------- nodes

Index IndexBuilder::make(IndexNode node) {
  std::size_t h = std::hash<int>()(static_cast<int>(node.kind));
  switch (node.kind) {
    case IndexKind::Const: h = mix(h, std::hash<int64_t>()(node.value)); break;
    case IndexKind::Var:
      h = mix(h, static_cast<std::size_t>(node.var.kind));
      h = mix(h, std::hash<int32_t>()(node.var.id));
      break;
    case IndexKind::Sum:
      for (const IndexTerm& t : node.terms) {
        h = mix(h, std::hash<int64_t>()(t.coeff));
        for (const Index& f : t.factors) h = mix(h, f.hash());
      }
      h = mix(h, std::hash<int64_t>()(node.value));
      break;
    case IndexKind::FloorDiv:
    case IndexKind::Mod:
      h = mix(h, node.operand->hash());
      h = mix(h, std::hash<int64_t>()(node.value));
      break;
  }
  node.hash = h;
  return Index(std::make_shared<const IndexNode>(std::move(node)));
}

Index::Index() {
  static const Index zero = constant(0);
  node_ = zero.node_;
}

Index Index::constant(int64_t value) {
  IndexNode n;
  n.kind = IndexKind::Const;
  n.value = value;
  return IndexBuilder::make(std::move(n));
}

Index Index::var(Var v) {
  IndexNode n;
  n.kind = IndexKind::Var;
  n.var = v;
  return IndexBuilder::make(std::move(n));
}

IndexKind Index::kind() const { return node_->kind; }

int64_t Index::value() const {
  STAX_ASSERT(kind() == IndexKind::Const, "value() of a non-constant index");
  return node_->value;
}

Var Index::var() const {
  STAX_ASSERT(kind() == IndexKind::Var, "var() of a non-variable index");
  return node_->var;
}

const std::vector<IndexTerm>& Index::terms() const {
  STAX_ASSERT(kind() == IndexKind::Sum, "terms() of a non-sum index");
  return node_->terms;
}

int64_t Index::constant() const {
  STAX_ASSERT(kind() == IndexKind::Sum, "constant() of a non-sum index");
  return node_->value;
}

const Index& Index::operand() const {
  STAX_ASSERT(kind() == IndexKind::FloorDiv || kind() == IndexKind::Mod,
              "operand() of an index that is not // or %");
  return *node_->operand;
}

int64_t Index::divisor() const {
  STAX_ASSERT(kind() == IndexKind::FloorDiv || kind() == IndexKind::Mod,
              "divisor() of an index that is not // or %");
  return node_->value;
}

std::size_t Index::hash() const { return node_->hash; }

bool Index::operator==(const Index& other) const {
  if (node_ == other.node_) return true;
  if (node_->hash != other.node_->hash) return false;
  return (*this <=> other) == std::strong_ordering::equal;
}

std::strong_ordering Index::operator<=>(const Index& other) const {
  if (node_ == other.node_) return std::strong_ordering::equal;
  const IndexNode& a = *node_;
  const IndexNode& b = *other.node_;
  if (auto c = kind_rank(a.kind) <=> kind_rank(b.kind); c != 0) return c;
  switch (a.kind) {
    case IndexKind::Const: return a.value <=> b.value;
    case IndexKind::Var: return a.var <=> b.var;
    case IndexKind::FloorDiv:
    case IndexKind::Mod:
      if (auto c = *a.operand <=> *b.operand; c != 0) return c;
      return a.value <=> b.value;
    case IndexKind::Sum: {
      std::size_t n = std::min(a.terms.size(), b.terms.size());
      for (std::size_t i = 0; i < n; ++i) {
        if (auto c = a.terms[i].factors <=> b.terms[i].factors; c != 0) return c;
        if (auto c = a.terms[i].coeff <=> b.terms[i].coeff; c != 0) return c;
      }
      if (auto c = a.terms.size() <=> b.terms.size(); c != 0) return c;
      return a.value <=> b.value;
    }
  }
  return std::strong_ordering::equal;
}

std::string var_name(Var v) {
  const char* prefix = "x";
  switch (v.kind) {
    case VarKind::X: prefix = "x"; break;
    case VarKind::R: prefix = "r"; break;
    case VarKind::C: prefix = "c"; break;
  }
  std::string name(prefix);
  name += std::to_string(v.id);
  return name;
}

// ---------------------------------------------------------------- queries

int64_t evaluate(const Index& e, const std::function<int64_t(Var)>& value_of) {
  switch (e.kind()) {
    case IndexKind::Const: return e.value();
    case IndexKind::Var: return value_of(e.var());
    case IndexKind::Sum: {
      int64_t total = e.constant();
      for (const IndexTerm& t : e.terms()) {
        int64_t prod = t.coeff;
        for (const Index& f : t.factors) prod *= evaluate(f, value_of);
        total += prod;
      }
      return total;
    }
    case IndexKind::FloorDiv: return floor_div(evaluate(e.operand(), value_of), e.divisor());
    case IndexKind::Mod: return py_mod(evaluate(e.operand(), value_of), e.divisor());
  }
  return 0;
}

Index substitute(const Index& e, const std::map<Var, Index>& replacement) {
  switch (e.kind()) {
    case IndexKind::Const: return e;
    case IndexKind::Var: {
      auto it = replacement.find(e.var());
      return it == replacement.end() ? e : it->second;
    }
    case IndexKind::Sum: {
      Index total = Index::constant(e.constant());
      for (const IndexTerm& t : e.terms()) {
        Index prod = Index::constant(t.coeff);
        for (const Index& f : t.factors) prod = prod * substitute(f, replacement);
        total = total + prod;
      }
      return total;
    }
    case IndexKind::FloorDiv: return floordiv(substitute(e.operand(), replacement), e.divisor());
    case IndexKind::Mod: return mod(substitute(e.operand(), replacement), e.divisor());
  }
  return e;
}

namespace {
void collect_vars(const Index& e, std::vector<Var>& out) {
  switch (e.kind()) {
    case IndexKind::Const: return;
    case IndexKind::Var: out.push_back(e.var()); return;
    case IndexKind::Sum:
      for (const IndexTerm& t : e.terms())
        for (const Index& f : t.factors) collect_vars(f, out);
      return;
    case IndexKind::FloorDiv:
    case IndexKind::Mod: collect_vars(e.operand(), out); return;
  }
}
}  // namespace

std::vector<Var> free_vars(const Index& e) {
  std::vector<Var> vars;
  collect_vars(e, vars);
  std::sort(vars.begin(), vars.end());
  vars.erase(std::unique(vars.begin(), vars.end()), vars.end());
  return vars;
}

bool uses_var(const Index& e, Var v) {
  switch (e.kind()) {
    case IndexKind::Const: return false;
    case IndexKind::Var: return e.var() == v;
    case IndexKind::Sum:
      for (const IndexTerm& t : e.terms())
        for (const Index& f : t.factors)
          if (uses_var(f, v)) return true;
      return false;
    case IndexKind::FloorDiv:
    case IndexKind::Mod: return uses_var(e.operand(), v);
  }
  return false;
}

bool is_affine(const Index& e) {
  switch (e.kind()) {
    case IndexKind::Const:
    case IndexKind::Var: return true;
    case IndexKind::Sum:
      return std::all_of(e.terms().begin(), e.terms().end(), [](const IndexTerm& t) {
        return t.factors.size() == 1 && t.factors[0].kind() == IndexKind::Var;
      });
    case IndexKind::FloorDiv:
    case IndexKind::Mod: return false;
  }
  return false;
}

int64_t affine_coefficient(const Index& e, Var v) {
  STAX_ASSERT(is_affine(e), "affine_coefficient of a non-affine index " + to_string(e));
  if (e.kind() == IndexKind::Var) return e.var() == v ? 1 : 0;
  if (e.kind() != IndexKind::Sum) return 0;
  for (const IndexTerm& t : e.terms())
    if (t.factors[0].var() == v) return t.coeff;
  return 0;
}

int64_t affine_constant(const Index& e) {
  STAX_ASSERT(is_affine(e), "affine_constant of a non-affine index " + to_string(e));
  if (e.kind() == IndexKind::Const) return e.value();
  if (e.kind() == IndexKind::Sum) return e.constant();
  return 0;
}

Index flat_index(const std::vector<Index>& coords, const std::vector<int64_t>& shape) {
  STAX_ASSERT(coords.size() == shape.size(), "flat_index: rank mismatch");
  Index total = Index::constant(0);
  int64_t stride = 1;
  for (std::size_t k = shape.size(); k-- > 0;) {
    total = total + coords[k] * stride;
    stride *= shape[k];
  }
  return total;
}

std::vector<Index> unflatten_index(const Index& flat, const std::vector<int64_t>& shape) {
  std::vector<Index> coords(shape.size());
  int64_t stride = 1;
  for (std::size_t k = shape.size(); k-- > 0;) {
    Index c = floordiv(flat, stride);
    coords[k] = k == 0 ? c : mod(c, shape[k]);
    stride *= shape[k];
  }
  return coords;
}

// ---------------------------------------------------------------- printing

namespace {

void print(std::ostringstream& os, const Index& e);

void print_atom_operand(std::ostringstream& os, const Index& e) {
  if (e.kind() == IndexKind::Var || e.kind() == IndexKind::Const) {
    print(os, e);
    return;
  }
  os << '(';
  print(os, e);
  os << ')';
}

void print_factor(std::ostringstream& os, const Index& f) {
  if (f.kind() == IndexKind::Var) {
    print(os, f);
    return;
  }
  os << '(';
  print(os, f);
  os << ')';
}

void print(std::ostringstream& os, const Index& e) {
  switch (e.kind()) {
    case IndexKind::Const: os << e.value(); return;
    case IndexKind::Var: os << var_name(e.var()); return;
    case IndexKind::FloorDiv:
      print_atom_operand(os, e.operand());
      os << " // " << e.divisor();
      return;
    case IndexKind::Mod:
      print_atom_operand(os, e.operand());
      os << " % " << e.divisor();
      return;
    case IndexKind::Sum: {
      bool first = true;
      for (const IndexTerm& t : e.terms()) {
        int64_t c = t.coeff;
        if (first) {
          if (c < 0) os << '-';
        } else {
          os << (c < 0 ? " - " : " + ");
        }
        uint64_t mag = c < 0 ? 0 - static_cast<uint64_t>(c) : static_cast<uint64_t>(c);
        if (mag != 1) os << mag << '*';
        const bool alone = mag == 1 && t.factors.size() == 1;
        for (std::size_t i = 0; i < t.factors.size(); ++i) {
          if (i) os << '*';
          if (alone) print(os, t.factors[i]);
          else print_factor(os, t.factors[i]);
        }
        first = false;
      }
      if (e.constant() != 0) {
        int64_t c = e.constant();
        uint64_t mag = c < 0 ? 0 - static_cast<uint64_t>(c) : static_cast<uint64_t>(c);
        os << (c < 0 ? " - " : " + ") << mag;
      }
      return;
    }
  }
}

}  // namespace

std::string to_string(const Index& e) {
  std::ostringstream os;
  print(os, e);
  return os.str();
}

std::optional<int64_t> lane_stride(const Index& e, Var inner) {
  if (!uses_var(e, inner)) return 0;
  if (e.kind() == IndexKind::Var) return 1;
  if (e.kind() != IndexKind::Sum) return std::nullopt;  // inside a // or %
  std::optional<int64_t> stride;
  for (const IndexTerm& t : e.terms()) {
    bool uses = false;
    for (const Index& f : t.factors) uses = uses || uses_var(f, inner);
    if (!uses) continue;
    const bool linear = t.factors.size() == 1 && t.factors[0].kind() == IndexKind::Var;
    if (!linear) return std::nullopt;
    stride = t.coeff;  // the normal form has at most one term of the bare variable
  }
  return stride;
}

}  // namespace stax::ir
