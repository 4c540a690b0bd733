// Index expressions of the loop IR: integer polynomials of loop variables with floor division
// and modulo by positive constants. They address the elements of dense row-major buffers
// (`Load` in expr.h) and take part in value expressions (`IndexValue`, masks of `cat`/`pad`).
//
// An `Index` is an immutable handle to a shared node. Every factory returns the range-free
// normal form described below, so two expressions that are equal by the rules of that form
// compare equal structurally (`==`). The range-aware rules (which need the extents of the
// variables) are applied by `simplify` in stax/ir/simplify.h; its result is the canonical form
// the scheduler compares accesses by (design.md, "Index expressions").
//
// Semantics: exact integer arithmetic on int64; `floordiv(a, d)` is floor(a / d) and `mod(a, d)`
// is a - d * floor(a / d) (Python semantics, result in [0, d)), d >= 1. Lowering only produces
// numerators that are non-negative wherever the access is performed (a load inside a `Masked`
// expression is performed only where its mask holds), so C's `/` and `%` give the same values
// there; `bounds()` proves non-negativity when a code generator wants to be sure.
//
// Loop variables are non-negative by definition (a variable ranges over [0, extent)); the
// factories use that (x % 8 where x is a var stays, but (x % 4) % 8 is x % 4).
//
// Node kinds (IndexKind) and the normal form the factories maintain:
//   Const     an int64 `value()`.
//   Var       a loop variable `var()`.
//   FloorDiv  `operand() // divisor()`, divisor >= 2, operand not a constant. Nested floordivs
//             are merged ((a // b) // c -> a // (b*c)); terms of the operand whose coefficient
//             is a multiple of the divisor are pulled out ((d*a + b) // d -> a + b // d); a common
//             factor of every coefficient, the constant and the divisor is cancelled.
//   Mod       `operand() % divisor()`, divisor >= 2, operand not a constant; terms whose
//             coefficient is a multiple of the divisor are dropped ((d*a + b) % d -> b % d);
//             (a % m) % d -> a % d when d divides m; common factors cancel as for FloorDiv
//             ((4*a) % 8 -> 4*(a % 2)).
//   Sum       sum of `terms()` plus `constant()`: each term is `coeff * f1 * f2 * ...` with
//             coeff != 0 and factors that are atoms (Var, FloorDiv or Mod) sorted ascending;
//             terms sorted by their factor lists, no two with the same factors; never a single
//             term with coeff 1 and constant 0 (that is the atom itself), never zero terms (that
//             is a Const). The merges `a*(x // a) + x % a -> x` and
//             `a*((x // a) % b) + x % a -> x % (a*b)` (times any common coefficient) are applied.
// Atoms order: Var < FloorDiv < Mod; vars by (kind, id); FloorDiv/Mod by (operand, divisor).
// Products of two non-constant indices are allowed (a term with several factors) though
// lowering never produces them.
#pragma once

#include <compare>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace stax::ir {

// x: the output (pointwise) loop variables of a buffer, one per output dim, outermost first.
// r: the reduction loop variables of a Reduction buffer, one per reduced dim.
// c: canonical variables of merged/renumbered loops (simplify.h: canonicalize_access,
//    merge_loops), c0 outermost.
enum class VarKind : unsigned char { X, R, C };

struct Var {
  VarKind kind = VarKind::X;
  int32_t id = 0;
  auto operator<=>(const Var&) const = default;
};

inline Var xvar(int32_t i) { return Var{VarKind::X, i}; }
inline Var rvar(int32_t i) { return Var{VarKind::R, i}; }
inline Var cvar(int32_t i) { return Var{VarKind::C, i}; }
// "x0", "r1", "c2".
std::string var_name(Var v);

// Extent of each loop variable: v ranges over [0, size), size >= 1. An ordered map so that every
// iteration over it is deterministic.
using VarRanges = std::map<Var, int64_t>;

enum class IndexKind : unsigned char { Const, Var, Sum, FloorDiv, Mod };

class IndexNode;
struct IndexTerm;

class Index {
 public:
  Index();  // the constant 0
  static Index constant(int64_t value);
  static Index var(Var v);
  static Index var(VarKind kind, int32_t id) { return var(Var{kind, id}); }

  IndexKind kind() const;
  bool is_const() const { return kind() == IndexKind::Const; }
  bool is_const(int64_t v) const { return is_const() && value() == v; }
  // Const: its value.
  int64_t value() const;
  // Var: the variable.
  Var var() const;
  // Sum: the non-constant terms (sorted) and the constant addend.
  const std::vector<IndexTerm>& terms() const;
  int64_t constant() const;
  // FloorDiv / Mod: numerator and divisor (>= 2).
  const Index& operand() const;
  int64_t divisor() const;

  // Structural equality and a total order (consistent with ==); hash for caches.
  bool operator==(const Index& other) const;
  std::strong_ordering operator<=>(const Index& other) const;
  std::size_t hash() const;
  // True when both handles point at the same node (cheap; implies ==).
  bool same_as(const Index& other) const { return node_ == other.node_; }

  const IndexNode* node() const { return node_.get(); }

 private:
  explicit Index(std::shared_ptr<const IndexNode> node) : node_(std::move(node)) {}
  std::shared_ptr<const IndexNode> node_;
  friend class IndexBuilder;
};

// coeff * factors[0] * factors[1] * ... (factors: atoms, sorted, non-empty).
struct IndexTerm {
  int64_t coeff = 1;
  std::vector<Index> factors;
  bool operator==(const IndexTerm&) const = default;
};

// Arithmetic in the normal form above. Division and modulo by a constant d >= 1 only
// (STAX_ASSERT otherwise); d == 1 gives `a` and `0`.
Index operator+(const Index& a, const Index& b);
Index operator-(const Index& a, const Index& b);
Index operator-(const Index& a);
Index operator*(const Index& a, const Index& b);
Index operator+(const Index& a, int64_t c);
Index operator+(int64_t c, const Index& a);
Index operator-(const Index& a, int64_t c);
Index operator-(int64_t c, const Index& a);
Index operator*(const Index& a, int64_t c);
Index operator*(int64_t c, const Index& a);
Index floordiv(const Index& a, int64_t d);
Index mod(const Index& a, int64_t d);

// Evaluates with the given variable values (floor semantics as above).
int64_t evaluate(const Index& e, const std::function<int64_t(Var)>& value_of);
// Replaces variables by expressions (variables not in the map stay); result in normal form.
Index substitute(const Index& e, const std::map<Var, Index>& replacement);
// The variables that occur, sorted ascending.
std::vector<Var> free_vars(const Index& e);
bool uses_var(const Index& e, Var v);
// True when the expression has no FloorDiv, Mod or product of two non-constants: then it is
// `constant() + sum coefficient(v) * v`.
bool is_affine(const Index& e);
// Coefficient of `v` in an affine expression (0 when absent).
int64_t affine_coefficient(const Index& e, Var v);
// Constant addend of an affine expression (its value at all variables 0).
int64_t affine_constant(const Index& e);
// How an index moves between adjacent iterations of `v` (adjacent lanes of a vector loop): 0
// when it does not use `v`, c when `v` occurs only in one term c*v (1: adjacent elements),
// nullopt when `v` occurs inside a //, a % or a product.
std::optional<int64_t> lane_stride(const Index& e, Var v);

// Inclusive bounds of an expression when every variable v ranges over [0, ranges[v]). Variables
// are non-negative by definition; one absent from `ranges` is unbounded above (hi may then be
// INT64_MAX, which stands for +infinity, as INT64_MIN does for -infinity).
struct Bounds {
  int64_t lo = 0;
  int64_t hi = 0;
};
Bounds bounds(const Index& e, const VarRanges& ranges);

// Row-major flat index of `coords` in `shape` (coords.size() == shape.size();
// 0 for a 0-d shape): sum coords[k] * stride[k].
Index flat_index(const std::vector<Index>& coords, const std::vector<int64_t>& shape);
// The inverse: coordinates of `flat` in `shape`, coord k = (flat // stride[k]) % shape[k]
// (the outermost one without the mod).
std::vector<Index> unflatten_index(const Index& flat, const std::vector<int64_t>& shape);

// Deterministic text: "128*x0 + x1", "(x0 + 3) // 4", "x1 % 8", "(x0 // 4) % 16",
// "-x0 + 63", "128*(x0 // 4)". Products print as "x0*x1". Operands of // and % that are not a
// variable are parenthesized, and so are // and % atoms used as a factor.
std::string to_string(const Index& e);

}  // namespace stax::ir

template <>
struct std::hash<stax::ir::Index> {
  std::size_t operator()(const stax::ir::Index& e) const { return e.hash(); }
};
