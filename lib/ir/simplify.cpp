// Range-aware simplification, loop merging and the canonical form of accesses.
#include "stax/ir/simplify.h"

#include <algorithm>
#include <sstream>

#include "index_internal.h"
#include "stax/support/error.h"

namespace stax::ir {

namespace {

Index simplify_once(const Index& e, const VarRanges& ranges) {
  switch (e.kind()) {
    case IndexKind::Const: return e;
    case IndexKind::Var: {
      auto it = ranges.find(e.var());
      if (it != ranges.end() && it->second == 1) return Index::constant(0);
      return e;
    }
    case IndexKind::Sum: {
      Index total = Index::constant(e.constant());
      for (const IndexTerm& t : e.terms()) {
        Index prod = Index::constant(t.coeff);
        for (const Index& f : t.factors) prod = detail::mul_in(prod, simplify_once(f, ranges), ranges);
        total = detail::add_in(total, prod, ranges);
      }
      return total;
    }
    case IndexKind::FloorDiv:
      return detail::floordiv_in(simplify_once(e.operand(), ranges), e.divisor(), ranges);
    case IndexKind::Mod:
      return detail::mod_in(simplify_once(e.operand(), ranges), e.divisor(), ranges);
  }
  return e;
}

// Distinct // and % atoms whose operand mentions one of `vars`.
void collect_divmod(const Index& e, const std::vector<Var>& vars, std::vector<Index>& out) {
  switch (e.kind()) {
    case IndexKind::Const:
    case IndexKind::Var: return;
    case IndexKind::Sum:
      for (const IndexTerm& t : e.terms())
        for (const Index& f : t.factors) collect_divmod(f, vars, out);
      return;
    case IndexKind::FloorDiv:
    case IndexKind::Mod: {
      bool mentions = std::any_of(vars.begin(), vars.end(),
                                  [&](Var v) { return uses_var(e.operand(), v); });
      if (mentions && std::find(out.begin(), out.end(), e) == out.end()) out.push_back(e);
      collect_divmod(e.operand(), vars, out);
      return;
    }
  }
}

std::size_t count_divmod(const Index& e, const std::vector<Var>& vars) {
  std::vector<Index> atoms;
  collect_divmod(e, vars, atoms);
  return atoms.size();
}

constexpr int32_t kTempBase = 1 << 24;

struct Loop {
  Var var;
  int64_t size;
};

// An affine expression is already canonical but for variables of extent 1.
Index simplify_affine(const Index& e, const VarRanges& ranges) {
  std::map<Var, Index> zero;
  for (Var v : free_vars(e)) {
    auto it = ranges.find(v);
    if (it != ranges.end() && it->second == 1) zero[v] = Index::constant(0);
  }
  return zero.empty() ? e : substitute(e, zero);
}

// merge_loops for affine indices: loops o (outer) and i (inner, extent s_i) merge when every
// index has coefficient(o) == coefficient(i) * s_i. Gives what the general substitution gives
// (k*s_i*(t // s_i) + k*(t % s_i) is k*t; any other pair of coefficients leaves // or %).
MergedLoops merge_affine(const std::vector<Var>& loop_vars, const VarRanges& ranges,
                         const std::vector<Index>& indices, bool want_reindex) {
  struct Loop {
    std::vector<Var> members;  // original variables, outermost first
    int64_t size;
    std::vector<int64_t> coeff;  // per index: coefficient of the innermost member
  };
  std::vector<Loop> loops;
  for (Var v : loop_vars) {
    auto it = ranges.find(v);
    STAX_ASSERT(it != ranges.end(), "merge_loops: no range for " + var_name(v));
    if (it->second == 1) continue;
    Loop l{{v}, it->second, {}};
    for (const Index& e : indices) l.coeff.push_back(affine_coefficient(e, v));
    loops.push_back(std::move(l));
  }
  for (std::size_t pos = loops.size(); pos-- > 1;) {
    Loop& outer = loops[pos - 1];
    const Loop& inner = loops[pos];
    bool ok = true;
    for (std::size_t k = 0; k < indices.size() && ok; ++k)
      ok = affine_coefficient(indices[k], outer.members.back()) == inner.coeff[k] * inner.size;
    if (!ok) continue;
    outer.members.insert(outer.members.end(), inner.members.begin(), inner.members.end());
    outer.size *= inner.size;
    outer.coeff = inner.coeff;
    loops.erase(loops.begin() + static_cast<std::ptrdiff_t>(pos));
  }
  MergedLoops out;
  for (const Loop& l : loops) out.sizes.push_back(l.size);
  for (const Index& e : indices) {
    // k*stride_j*member_j summed over a merged loop is k*c: rebuild directly.
    detail::Poly p;
    p.constant = affine_constant(e);
    for (std::size_t k = 0; k < loops.size(); ++k) {
      const int64_t coeff = affine_coefficient(e, loops[k].members.back());
      if (coeff != 0) p.terms[{Index::var(cvar(static_cast<int32_t>(k)))}] = coeff;
    }
    out.indices.push_back(detail::from_poly(std::move(p), VarRanges{}));
  }
  if (!want_reindex) return out;
  std::map<Var, Index> sub;
  for (std::size_t k = 0; k < loops.size(); ++k) {
    // Members of merged loop k, from the innermost: member = (c_k // stride) % size.
    const Index c = Index::var(cvar(static_cast<int32_t>(k)));
    int64_t stride = 1;
    const std::vector<Var>& m = loops[k].members;
    for (std::size_t j = m.size(); j-- > 0;) {
      const int64_t size = ranges.at(m[j]);
      Index q = floordiv(c, stride);
      sub[m[j]] = j == 0 ? q : mod(q, size);
      stride *= size;
    }
  }
  for (Var v : loop_vars)
    if (ranges.at(v) == 1) sub[v] = Index::constant(0);
  const VarRanges final_ranges = out.ranges_c();
  for (Var v : loop_vars) out.reindex.push_back(simplify(sub.at(v), final_ranges));
  return out;
}

}  // namespace

Index simplify(const Index& e, const VarRanges& ranges) {
  if (is_affine(e)) return simplify_affine(e, ranges);
  Index cur = e;
  for (int round = 0; round < 16; ++round) {
    Index next = simplify_once(cur, ranges);
    if (next == cur) return next;
    cur = next;
  }
  return cur;
}

VarRanges MergedLoops::ranges_c() const {
  VarRanges r;
  for (std::size_t k = 0; k < sizes.size(); ++k) r[cvar(static_cast<int32_t>(k))] = sizes[k];
  return r;
}

namespace {

MergedLoops merge_loops_impl(const std::vector<Var>& loop_vars, const VarRanges& ranges,
                             const std::vector<Index>& indices, bool want_reindex) {
  std::vector<Index> simplified;
  bool affine = true;
  for (const Index& e : indices) {
    simplified.push_back(simplify(e, ranges));
    affine = affine && is_affine(simplified.back());
  }
  if (affine) return merge_affine(loop_vars, ranges, simplified, want_reindex);
  VarRanges cur_ranges = ranges;
  std::vector<Loop> loops;
  std::vector<Index> reindex;
  for (Var v : loop_vars) {
    auto it = ranges.find(v);
    STAX_ASSERT(it != ranges.end(), "merge_loops: no range for " + var_name(v));
    STAX_ASSERT(v.id < kTempBase, "merge_loops: variable id too large");
    if (it->second == 1) {
      reindex.push_back(Index::constant(0));
      continue;
    }
    loops.push_back(Loop{v, it->second});
    reindex.push_back(Index::var(v));
  }
  std::vector<Index> cur;
  for (const Index& e : indices) cur.push_back(simplify(e, cur_ranges));

  int32_t next_temp = kTempBase;
  bool merged = true;
  while (merged) {
    merged = false;
    for (std::size_t pos = loops.size(); pos-- > 1;) {
      const Loop outer = loops[pos - 1], inner = loops[pos];
      const Var t = cvar(next_temp);
      VarRanges trial_ranges = cur_ranges;
      trial_ranges.erase(outer.var);
      trial_ranges.erase(inner.var);
      trial_ranges[t] = outer.size * inner.size;
      const std::map<Var, Index> sub = {
          {outer.var, floordiv(Index::var(t), inner.size)},
          {inner.var, mod(Index::var(t), inner.size)},
      };
      std::vector<Index> trial;
      bool ok = true;
      for (const Index& e : cur) {
        Index n = simplify(substitute(e, sub), trial_ranges);
        if (count_divmod(n, {t}) > count_divmod(e, {outer.var, inner.var})) {
          ok = false;
          break;
        }
        trial.push_back(n);
      }
      if (!ok) continue;
      ++next_temp;
      cur = std::move(trial);
      for (Index& r : reindex) r = simplify(substitute(r, sub), trial_ranges);
      cur_ranges = std::move(trial_ranges);
      loops[pos - 1] = Loop{t, outer.size * inner.size};
      loops.erase(loops.begin() + static_cast<std::ptrdiff_t>(pos));
      merged = true;
      break;
    }
  }

  MergedLoops out;
  std::map<Var, Index> rename;
  for (std::size_t k = 0; k < loops.size(); ++k) {
    rename[loops[k].var] = Index::var(cvar(static_cast<int32_t>(k)));
    out.sizes.push_back(loops[k].size);
  }
  const VarRanges final_ranges = out.ranges_c();
  for (const Index& e : cur) out.indices.push_back(simplify(substitute(e, rename), final_ranges));
  for (const Index& r : reindex) out.reindex.push_back(simplify(substitute(r, rename), final_ranges));
  return out;
}

}  // namespace

MergedLoops merge_loops(const std::vector<Var>& loop_vars, const VarRanges& ranges,
                        const std::vector<Index>& indices) {
  return merge_loops_impl(loop_vars, ranges, indices, true);
}

VarRanges CanonicalAccess::ranges() const {
  VarRanges r;
  for (std::size_t k = 0; k < sizes.size(); ++k) r[cvar(static_cast<int32_t>(k))] = sizes[k];
  return r;
}

CanonicalAccess canonicalize_access(const Index& index, const std::vector<Var>& loop_vars,
                                    const VarRanges& ranges) {
  const Index s = simplify(index, ranges);
  std::vector<Var> used;
  for (Var v : loop_vars)
    if (uses_var(s, v)) used.push_back(v);
  for (Var v : free_vars(s)) {
    STAX_ASSERT(std::find(loop_vars.begin(), loop_vars.end(), v) != loop_vars.end(),
                "canonicalize_access: " + var_name(v) + " is not a loop variable of the access");
  }
  MergedLoops m = merge_loops_impl(used, ranges, {s}, false);
  return CanonicalAccess{m.indices[0], m.sizes};
}

std::string to_string(const CanonicalAccess& access) {
  std::ostringstream os;
  os << to_string(access.index) << " over {";
  for (std::size_t k = 0; k < access.sizes.size(); ++k) {
    if (k) os << ", ";
    os << "c" << k << ": " << access.sizes[k];
  }
  os << "}";
  return os.str();
}

}  // namespace stax::ir
