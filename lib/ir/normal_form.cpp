// The normal form of index expressions: bounds, the polynomial view, and the range-free and
// range-aware factories (index.h documents the rules; simplify.cpp applies them with ranges).
#include "index_internal.h"

#include <algorithm>
#include <numeric>

#include "stax/support/error.h"

namespace stax::ir {

using detail::floor_div;
using detail::kNegInf;
using detail::kPosInf;
using detail::Poly;
using detail::py_mod;

namespace {

// ---- saturating bound arithmetic (kPosInf / kNegInf are infinities) ----
int64_t sat(__int128 v) {
  if (v >= static_cast<__int128>(kPosInf)) return kPosInf;
  if (v <= static_cast<__int128>(kNegInf)) return kNegInf;
  return static_cast<int64_t>(v);
}
bool is_inf(int64_t v) { return v == kPosInf || v == kNegInf; }
int64_t badd(int64_t a, int64_t b) {
  if (a == kPosInf || b == kPosInf) return kPosInf;
  if (a == kNegInf || b == kNegInf) return kNegInf;
  return sat(static_cast<__int128>(a) + b);
}
int64_t bmul(int64_t a, int64_t b) {
  if (a == 0 || b == 0) return 0;
  if (is_inf(a) || is_inf(b)) return ((a < 0) != (b < 0)) ? kNegInf : kPosInf;
  return sat(static_cast<__int128>(a) * b);
}
int64_t bdiv(int64_t a, int64_t d) { return is_inf(a) ? a : floor_div(a, d); }

Bounds bmul_interval(Bounds a, Bounds b) {
  int64_t c[4] = {bmul(a.lo, b.lo), bmul(a.lo, b.hi), bmul(a.hi, b.lo), bmul(a.hi, b.hi)};
  return Bounds{*std::min_element(c, c + 4), *std::max_element(c, c + 4)};
}

bool finite(Bounds b) { return !is_inf(b.lo) && !is_inf(b.hi); }

}  // namespace

// ---------------------------------------------------------------- bounds

namespace {

Bounds bounds_impl(const Index& e, const VarRanges& ranges) {
  switch (e.kind()) {
    case IndexKind::Const: return Bounds{e.value(), e.value()};
    case IndexKind::Var: {
      auto it = ranges.find(e.var());
      if (it == ranges.end()) return Bounds{0, kPosInf};
      return Bounds{0, it->second - 1};
    }
    case IndexKind::Sum: {
      Bounds total{e.constant(), e.constant()};
      for (const IndexTerm& t : e.terms()) {
        Bounds term{t.coeff, t.coeff};
        for (const Index& f : t.factors) term = bmul_interval(term, bounds_impl(f, ranges));
        total.lo = badd(total.lo, term.lo);
        total.hi = badd(total.hi, term.hi);
      }
      return total;
    }
    case IndexKind::FloorDiv: {
      Bounds b = bounds_impl(e.operand(), ranges);
      return Bounds{bdiv(b.lo, e.divisor()), bdiv(b.hi, e.divisor())};
    }
    case IndexKind::Mod: {
      int64_t d = e.divisor();
      Bounds b = bounds_impl(e.operand(), ranges);
      if (b.lo >= 0 && b.hi < d) return b;
      if (finite(b) && floor_div(b.lo, d) == floor_div(b.hi, d))
        return Bounds{py_mod(b.lo, d), py_mod(b.hi, d)};
      return Bounds{0, d - 1};
    }
  }
  return Bounds{kNegInf, kPosInf};
}

}  // namespace

Bounds bounds(const Index& e, const VarRanges& ranges) { return bounds_impl(e, ranges); }

// ---------------------------------------------------------------- polynomials

namespace detail {

Poly to_poly(const Index& e) {
  Poly p;
  switch (e.kind()) {
    case IndexKind::Const: p.constant = e.value(); return p;
    case IndexKind::Var:
    case IndexKind::FloorDiv:
    case IndexKind::Mod: p.terms[{e}] = 1; return p;
    case IndexKind::Sum:
      for (const IndexTerm& t : e.terms()) p.terms[t.factors] = t.coeff;
      p.constant = e.constant();
      return p;
  }
  return p;
}

namespace {

void add_scaled(Poly& p, const Poly& q, int64_t k) {
  for (const auto& [f, c] : q.terms) p.terms[f] += c * k;
  p.constant += q.constant * k;
}

void drop_zeros(Poly& p) {
  std::erase_if(p.terms, [](const auto& kv) { return kv.second == 0; });
}

Index build(const Poly& p) {
  if (p.terms.empty()) return Index::constant(p.constant);
  if (p.terms.size() == 1 && p.constant == 0) {
    const auto& [f, c] = *p.terms.begin();
    if (c == 1 && f.size() == 1) return f[0];
  }
  IndexNode n;
  n.kind = IndexKind::Sum;
  n.value = p.constant;
  for (const auto& [f, c] : p.terms) n.terms.push_back(IndexTerm{c, f});
  return IndexBuilder::make(std::move(n));
}

bool single_mod(const std::vector<Index>& f) {
  return f.size() == 1 && f[0].kind() == IndexKind::Mod;
}

// True when every non-constant term of `q`, scaled by k, is in `p` with exactly that
// coefficient (and q has at least one such term).
bool contains_scaled(const Poly& p, const Poly& q, int64_t k) {
  if (q.terms.empty()) return false;
  for (const auto& [f, c] : q.terms) {
    auto it = p.terms.find(f);
    if (it == p.terms.end() || it->second != c * k) return false;
  }
  return true;
}

// One application of the sum-level merges; false when none applies.
//   (a) k*b*(y // b) + k*(y % b)              -> k*y
//   (b) k*a*((y // a) % b) + k*(y % a)        -> k*(y % (a*b))
bool merge_once(Poly& p, const VarRanges& ranges) {
  for (const auto& [f, k] : p.terms) {
    if (!single_mod(f)) continue;
    const Index y = f[0].operand();
    const int64_t b = f[0].divisor();
    const Index fl = floordiv_in(y, b, ranges);
    const Poly flp = to_poly(fl);
    if (contains_scaled(p, flp, k * b)) {
      const int64_t kk = k;
      const std::vector<Index> key = f;
      add_scaled(p, flp, -kk * b);
      p.terms[key] -= kk;
      add_scaled(p, to_poly(y), kk);
      drop_zeros(p);
      return true;
    }
    for (const auto& [f2, k2] : p.terms) {
      if (!single_mod(f2) || k2 != k * b || !(f2[0].operand() == fl)) continue;
      const int64_t kk = k;
      const std::vector<Index> key = f, key2 = f2;
      const Index merged = mod_in(y, b * f2[0].divisor(), ranges);
      p.terms[key] -= kk;
      p.terms[key2] -= kk * b;
      add_scaled(p, to_poly(merged), kk);
      drop_zeros(p);
      return true;
    }
  }
  return false;
}

Poly scaled(const Poly& p, int64_t k) {
  Poly q;
  add_scaled(q, p, k);
  drop_zeros(q);
  return q;
}

int64_t poly_gcd(const Poly& p, int64_t d) {
  int64_t g = std::gcd(d, p.constant);
  for (const auto& [f, c] : p.terms) g = std::gcd(g, c);
  return g;
}

Poly divided(const Poly& p, int64_t g) {
  Poly q;
  for (const auto& [f, c] : p.terms) q.terms[f] = c / g;
  q.constant = p.constant / g;
  return q;
}

bool within(Bounds b, int64_t lo, int64_t hi) { return b.lo >= lo && b.hi <= hi; }

// Splits r = g*S + R with g | d, g > 1, 0 <= R < g by the ranges, for the largest such g
// taken among gcd(d, coefficient). Returns false when there is none.
bool split_small_rest(const Poly& r, int64_t d, const VarRanges& ranges, int64_t& g_out,
                      Poly& s_out, Poly& rest_out) {
  std::vector<int64_t> candidates;
  for (const auto& [f, c] : r.terms) {
    int64_t g = std::gcd(d, c);
    if (g > 1 && g < d) candidates.push_back(g);
  }
  std::sort(candidates.begin(), candidates.end(), std::greater<>());
  for (int64_t g : candidates) {
    Poly s, rest;
    for (const auto& [f, c] : r.terms) {
      if (c % g == 0) s.terms[f] = c / g;
      else rest.terms[f] = c;
    }
    s.constant = floor_div(r.constant, g);
    rest.constant = py_mod(r.constant, g);
    if (s.terms.empty()) continue;
    if (!within(bounds(build(rest), ranges), 0, g - 1)) continue;
    g_out = g;
    s_out = std::move(s);
    rest_out = std::move(rest);
    return true;
  }
  return false;
}

Index make_divmod(IndexKind kind, const Index& operand, int64_t d) {
  IndexNode n;
  n.kind = kind;
  n.operand = operand;
  n.value = d;
  return IndexBuilder::make(std::move(n));
}

bool mul_overflows(int64_t a, int64_t b) {
  int64_t r;
  return __builtin_mul_overflow(a, b, &r);
}

}  // namespace

Index from_poly(Poly p, const VarRanges& ranges) {
  drop_zeros(p);
  for (int guard = 0; guard < 64 && merge_once(p, ranges); ++guard) {
  }
  return build(p);
}

namespace {

// Affine expressions as (var, coeff) lists sorted by var, plus a constant: sums of them need no
// merges (those only concern // and % atoms), so they are combined without the general Poly.
struct Linear {
  std::vector<std::pair<Var, int64_t>> terms;
  int64_t constant = 0;
};

Linear to_linear(const Index& e) {
  Linear l;
  switch (e.kind()) {
    case IndexKind::Const: l.constant = e.value(); break;
    case IndexKind::Var: l.terms.push_back({e.var(), 1}); break;
    case IndexKind::Sum:
      for (const IndexTerm& t : e.terms()) l.terms.push_back({t.factors[0].var(), t.coeff});
      l.constant = e.constant();
      break;
    case IndexKind::FloorDiv:
    case IndexKind::Mod: STAX_ASSERT(false, "to_linear of a non-affine index");
  }
  return l;
}

Index from_linear(const Linear& l) {
  if (l.terms.empty()) return Index::constant(l.constant);
  if (l.terms.size() == 1 && l.terms[0].second == 1 && l.constant == 0) return Index::var(l.terms[0].first);
  IndexNode n;
  n.kind = IndexKind::Sum;
  n.value = l.constant;
  for (const auto& [v, c] : l.terms) n.terms.push_back(IndexTerm{c, {Index::var(v)}});
  return IndexBuilder::make(std::move(n));
}

Index add_affine(const Index& a, const Index& b) {
  Linear x = to_linear(a), y = to_linear(b), r;
  std::size_t i = 0, j = 0;
  while (i < x.terms.size() || j < y.terms.size()) {
    if (j == y.terms.size() || (i < x.terms.size() && x.terms[i].first < y.terms[j].first)) {
      r.terms.push_back(x.terms[i++]);
    } else if (i == x.terms.size() || y.terms[j].first < x.terms[i].first) {
      r.terms.push_back(y.terms[j++]);
    } else {
      int64_t c = x.terms[i].second + y.terms[j].second;
      if (c != 0) r.terms.push_back({x.terms[i].first, c});
      ++i;
      ++j;
    }
  }
  r.constant = x.constant + y.constant;
  return from_linear(r);
}

}  // namespace

Index add_in(const Index& a, const Index& b, const VarRanges& ranges) {
  if (a.is_const(0)) return b;
  if (b.is_const(0)) return a;
  if (is_affine(a) && is_affine(b)) return add_affine(a, b);
  Poly p = to_poly(a);
  add_scaled(p, to_poly(b), 1);
  return from_poly(std::move(p), ranges);
}

Index scale_in(const Index& a, int64_t c, const VarRanges& ranges) {
  if (c == 1) return a;
  if (c == 0) return Index::constant(0);
  if (is_affine(a)) {
    Linear l = to_linear(a);
    for (auto& t : l.terms) t.second *= c;
    l.constant *= c;
    return from_linear(l);
  }
  return from_poly(scaled(to_poly(a), c), ranges);
}

Index mul_in(const Index& a, const Index& b, const VarRanges& ranges) {
  if (a.is_const()) return scale_in(b, a.value(), ranges);
  if (b.is_const()) return scale_in(a, b.value(), ranges);
  Poly pa = to_poly(a), pb = to_poly(b), p;
  for (const auto& [fa, ca] : pa.terms) {
    for (const auto& [fb, cb] : pb.terms) {
      std::vector<Index> f = fa;
      f.insert(f.end(), fb.begin(), fb.end());
      std::sort(f.begin(), f.end());
      p.terms[f] += ca * cb;
    }
    p.terms[fa] += ca * pb.constant;
  }
  for (const auto& [fb, cb] : pb.terms) p.terms[fb] += cb * pa.constant;
  p.constant = pa.constant * pb.constant;
  return from_poly(std::move(p), ranges);
}

Index floordiv_in(const Index& a, int64_t d, const VarRanges& ranges) {
  STAX_ASSERT(d >= 1, "floordiv by a non-positive constant " + std::to_string(d));
  if (d == 1) return a;
  if (a.is_const()) return Index::constant(floor_div(a.value(), d));
  // a = d*q + r: pull out terms whose coefficient is a multiple of d, and the constant's.
  Poly p = to_poly(a), q, r;
  for (const auto& [f, c] : p.terms) {
    if (c % d == 0) q.terms[f] = c / d;
    else r.terms[f] = c;
  }
  q.constant = floor_div(p.constant, d);
  r.constant = py_mod(p.constant, d);
  Index qi = from_poly(q, ranges);
  if (r.terms.empty()) return qi;
  // r // d is constant over the ranges.
  {
    Bounds b = bounds(build(r), ranges);
    if (finite(b) && floor_div(b.lo, d) == floor_div(b.hi, d))
      return add_in(qi, Index::constant(floor_div(b.lo, d)), ranges);
  }
  // Positive coefficients >= d split: c*t = d*(c/d)*t + (c%d)*t.
  {
    Poly q2, r2;
    for (const auto& [f, c] : r.terms) {
      if (c > d) {
        q2.terms[f] = c / d;
        r2.terms[f] = c % d;
      } else {
        r2.terms[f] = c;
      }
    }
    r2.constant = r.constant;
    drop_zeros(r2);
    if (!q2.terms.empty()) return add_in(add_in(qi, from_poly(q2, ranges), ranges),
                                         floordiv_in(from_poly(r2, ranges), d, ranges), ranges);
  }
  // Common factor: (g*a) // (g*d) = a // d.
  if (int64_t g = poly_gcd(r, d); g > 1) {
    return add_in(qi, floordiv_in(from_poly(divided(r, g), ranges), d / g, ranges), ranges);
  }
  // (g*S + R) // d = S // (d/g) when 0 <= R < g and g | d.
  {
    int64_t g = 0;
    Poly s, rest;
    if (split_small_rest(r, d, ranges, g, s, rest))
      return add_in(qi, floordiv_in(from_poly(s, ranges), d / g, ranges), ranges);
  }
  Index ri = from_poly(r, ranges);
  // (y // a + c) // d = (y + c*a) // (a*d), 0 <= c < d.
  if (r.terms.size() == 1) {
    const auto& [f, c] = *r.terms.begin();
    if (c == 1 && f.size() == 1 && f[0].kind() == IndexKind::FloorDiv &&
        !mul_overflows(f[0].divisor(), d)) {
      const int64_t av = f[0].divisor();
      Index num = add_in(f[0].operand(), Index::constant(r.constant * av), ranges);
      return add_in(qi, floordiv_in(num, av * d, ranges), ranges);
    }
  }
  // (y % m) // d = (y // d) % (m/d) when d | m.
  if (ri.kind() == IndexKind::Mod && ri.divisor() % d == 0) {
    Index inner = floordiv_in(ri.operand(), d, ranges);
    return add_in(qi, mod_in(inner, ri.divisor() / d, ranges), ranges);
  }
  return add_in(qi, make_divmod(IndexKind::FloorDiv, ri, d), ranges);
}

Index mod_in(const Index& a, int64_t d, const VarRanges& ranges) {
  STAX_ASSERT(d >= 1, "mod by a non-positive constant " + std::to_string(d));
  if (d == 1) return Index::constant(0);
  if (a.is_const()) return Index::constant(py_mod(a.value(), d));
  // (d*q + r) % d = r % d.
  Poly p = to_poly(a), r;
  for (const auto& [f, c] : p.terms) {
    if (c % d != 0) r.terms[f] = c;
  }
  r.constant = py_mod(p.constant, d);
  if (r.terms.empty()) return Index::constant(r.constant);
  {
    Index ri = from_poly(r, ranges);
    Bounds b = bounds(ri, ranges);
    if (within(b, 0, d - 1)) return ri;
    if (finite(b) && floor_div(b.lo, d) == floor_div(b.hi, d))
      return add_in(ri, Index::constant(-d * floor_div(b.lo, d)), ranges);
  }
  // Positive coefficients reduce modulo d.
  {
    bool changed = false;
    for (auto& [f, c] : r.terms) {
      if (c > d) {
        c %= d;
        changed = true;
      }
    }
    if (changed) {
      drop_zeros(r);
      return mod_in(from_poly(r, ranges), d, ranges);
    }
  }
  // (g*a) % (g*d) = g * (a % d).
  if (int64_t g = poly_gcd(r, d); g > 1)
    return scale_in(mod_in(from_poly(divided(r, g), ranges), d / g, ranges), g, ranges);
  // (g*S + R) % d = g*(S % (d/g)) + R when 0 <= R < g and g | d.
  {
    int64_t g = 0;
    Poly s, rest;
    if (split_small_rest(r, d, ranges, g, s, rest)) {
      Index hi = scale_in(mod_in(from_poly(s, ranges), d / g, ranges), g, ranges);
      return add_in(hi, from_poly(rest, ranges), ranges);
    }
  }
  Index ri = from_poly(r, ranges);
  // (y % m) % d = y % d when d | m.
  if (ri.kind() == IndexKind::Mod && ri.divisor() % d == 0) return mod_in(ri.operand(), d, ranges);
  return make_divmod(IndexKind::Mod, ri, d);
}

}  // namespace detail

// ---------------------------------------------------------------- public factories

namespace {
const VarRanges& no_ranges() {
  static const VarRanges empty;
  return empty;
}
}  // namespace

Index operator+(const Index& a, const Index& b) { return detail::add_in(a, b, no_ranges()); }
Index operator-(const Index& a, const Index& b) {
  return detail::add_in(a, detail::scale_in(b, -1, no_ranges()), no_ranges());
}
Index operator-(const Index& a) { return detail::scale_in(a, -1, no_ranges()); }
Index operator*(const Index& a, const Index& b) { return detail::mul_in(a, b, no_ranges()); }
Index operator+(const Index& a, int64_t c) { return a + Index::constant(c); }
Index operator+(int64_t c, const Index& a) { return a + Index::constant(c); }
Index operator-(const Index& a, int64_t c) { return a + Index::constant(-c); }
Index operator-(int64_t c, const Index& a) { return Index::constant(c) - a; }
Index operator*(const Index& a, int64_t c) { return detail::scale_in(a, c, no_ranges()); }
Index operator*(int64_t c, const Index& a) { return detail::scale_in(a, c, no_ranges()); }
Index floordiv(const Index& a, int64_t d) { return detail::floordiv_in(a, d, no_ranges()); }
Index mod(const Index& a, int64_t d) { return detail::mod_in(a, d, no_ranges()); }

}  // namespace stax::ir
