// Internals shared by index.cpp, simplify.cpp and expr.cpp (its hash): the node layout and the
// range-aware factories (the public factories are these with no ranges: every variable in
// [0, inf)).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <vector>

#include "stax/ir/index.h"

namespace stax::ir {

class IndexNode {
 public:
  IndexKind kind = IndexKind::Const;
  int64_t value = 0;  // Const: the value; Sum: the constant addend; FloorDiv/Mod: the divisor
  Var var;            // Var
  std::vector<IndexTerm> terms;  // Sum
  std::optional<Index> operand;  // FloorDiv/Mod (optional: a default Index would recurse)
  std::size_t hash = 0;
};

class IndexBuilder {
 public:
  static Index make(IndexNode node);
};

namespace detail {

// Combines a hash with one more value (the hashes of index and expression nodes).
inline std::size_t mix(std::size_t h, std::size_t v) {
  return h ^ (v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2));
}

// A sum of terms keyed by their (sorted) factor lists, plus a constant.
struct Poly {
  std::map<std::vector<Index>, int64_t> terms;
  int64_t constant = 0;
};

Poly to_poly(const Index& e);
// Applies the sum-level merges under `ranges` and builds the normal form.
Index from_poly(Poly p, const VarRanges& ranges);
Index add_in(const Index& a, const Index& b, const VarRanges& ranges);
Index scale_in(const Index& a, int64_t c, const VarRanges& ranges);
Index mul_in(const Index& a, const Index& b, const VarRanges& ranges);
Index floordiv_in(const Index& a, int64_t d, const VarRanges& ranges);
Index mod_in(const Index& a, int64_t d, const VarRanges& ranges);

// floor(a / d) and a - d * floor(a / d) (Python's // and %).
inline int64_t floor_div(int64_t a, int64_t d) {
  int64_t q = a / d;
  if (a % d != 0 && ((a < 0) != (d < 0))) --q;
  return q;
}

inline int64_t py_mod(int64_t a, int64_t d) {
  int64_t r = a % d;
  if (r != 0 && ((r < 0) != (d < 0))) r += d;
  return r;
}

constexpr int64_t kPosInf = INT64_MAX;
constexpr int64_t kNegInf = INT64_MIN;

}  // namespace detail
}  // namespace stax::ir
