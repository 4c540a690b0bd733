// Loop nests of fused nodes: canonical accesses relative to shared outer loops (Propositions
// 7.2 and 7.3) and the splitting of merged pointwise loops to a common nest.
#include "stax/scheduler/fusion.h"

#include <algorithm>
#include <set>

#include "stax/ir/simplify.h"
#include "stax/support/error.h"

namespace stax::scheduler {

ir::CanonicalAccess access_at_depth(const ir::Index& index, const NodeLoops& loops, std::size_t depth) {
  STAX_ASSERT(depth <= loops.x.size(), "access_at_depth: deeper than the node's pointwise loops");
  const ir::VarRanges ranges = loops.ranges();
  const ir::Index s = ir::simplify(ir::substitute(index, loops.reindex), ranges);
  // The outer loops stay even when unused: a read of buf1[x1] inside loops (x0, x1) is not the
  // element written at iteration x0 (c1 over {c0: 64, c1: 64} is not c0 over {c0: 64}).
  std::vector<ir::Var> vars;
  for (std::size_t k = 0; k < loops.x.size(); ++k) {
    const ir::Var v = ir::xvar(static_cast<int32_t>(k));
    if (k < depth || ir::uses_var(s, v)) vars.push_back(v);
  }
  for (std::size_t k = 0; k < loops.r.size(); ++k) {
    const ir::Var v = ir::rvar(static_cast<int32_t>(k));
    if (ir::uses_var(s, v)) vars.push_back(v);
  }
  const ir::MergedLoops m = ir::merge_loops(vars, ranges, {s});
  return ir::CanonicalAccess{m.indices[0], m.sizes};
}

std::optional<std::vector<int64_t>> common_refinement(const std::vector<int64_t>& a,
                                                      const std::vector<int64_t>& b) {
  if (a == b) return a;
  // Boundaries: the products of the innermost loops, 1 excluded.
  auto boundaries = [](const std::vector<int64_t>& sizes) {
    std::set<int64_t> out;
    int64_t p = 1;
    for (std::size_t k = sizes.size(); k-- > 0;) {
      p *= sizes[k];
      out.insert(p);
    }
    return std::pair<std::set<int64_t>, int64_t>{out, p};
  };
  auto [ba, na] = boundaries(a);
  auto [bb, nb] = boundaries(b);
  if (na != nb) return std::nullopt;
  std::set<int64_t> all = ba;
  all.insert(bb.begin(), bb.end());
  std::vector<int64_t> inner_first;
  int64_t prev = 1;
  for (int64_t q : all) {
    if (q % prev != 0) return std::nullopt;
    inner_first.push_back(q / prev);
    prev = q;
  }
  return std::vector<int64_t>(inner_first.rbegin(), inner_first.rend());
}

std::optional<std::vector<int64_t>> split_at(const std::vector<int64_t>& sizes, int64_t count) {
  int64_t p = 1;
  for (std::size_t k = 0; k < sizes.size(); ++k) {
    if (p == count) return sizes;
    if (p * sizes[k] > count) {
      // Loop k runs across the boundary: split it when `count` falls on one of its iterations.
      if (count % p != 0 || sizes[k] % (count / p) != 0) return std::nullopt;
      std::vector<int64_t> out(sizes.begin(), sizes.begin() + static_cast<std::ptrdiff_t>(k));
      out.push_back(count / p);
      out.push_back(sizes[k] / (count / p));
      out.insert(out.end(), sizes.begin() + static_cast<std::ptrdiff_t>(k) + 1, sizes.end());
      return out;
    }
    p *= sizes[k];
  }
  if (p == count) return sizes;
  return std::nullopt;
}

std::optional<std::vector<int64_t>> common_outer(const std::vector<int64_t>& a, const std::vector<int64_t>& b,
                                                 bool a_splits, bool b_splits) {
  // Iteration counts at the loop boundaries, from the outside: (16, 1024) -> 16, 16384; a nest that
  // splits also has a boundary at every count of the other's that one of its loops can be split at.
  auto counts = [](const std::vector<int64_t>& sizes) {
    std::vector<int64_t> out;
    int64_t p = 1;
    for (int64_t s : sizes) out.push_back(p *= s);
    return out;
  };
  std::vector<int64_t> ca = counts(a), cb = counts(b);
  auto add_splits = [](std::vector<int64_t>& mine, const std::vector<int64_t>& sizes, const std::vector<int64_t>& theirs) {
    for (int64_t c : theirs)
      if (std::find(mine.begin(), mine.end(), c) == mine.end() && split_at(sizes, c)) mine.push_back(c);
    std::sort(mine.begin(), mine.end());
  };
  if (a_splits) add_splits(ca, a, cb);
  if (b_splits) add_splits(cb, b, ca);
  int64_t shared = 0;
  for (int64_t c : ca)
    if (std::find(cb.begin(), cb.end(), c) != cb.end()) shared = c;
  if (shared == 0) return std::nullopt;
  std::set<int64_t> all;
  for (int64_t c : ca)
    if (c <= shared) all.insert(c);
  for (int64_t c : cb)
    if (c <= shared) all.insert(c);
  std::vector<int64_t> out;
  int64_t prev = 1;
  for (int64_t c : all) {
    if (c % prev != 0) return std::nullopt;
    out.push_back(c / prev);
    prev = c;
  }
  return out;
}

NodeLoops refine_prefix(const NodeLoops& loops, const std::vector<int64_t>& prefix) {
  int64_t count = 1;
  for (int64_t s : prefix) count *= s;
  const std::optional<std::vector<int64_t>> sizes = split_at(loops.x, count);
  STAX_ASSERT(sizes.has_value(), "refine_prefix: the loops cannot be split at " + std::to_string(count) + " iterations");
  int64_t p = 1;
  std::size_t k = 0;
  while (p < count && k < sizes->size()) p *= (*sizes)[k++];
  std::vector<int64_t> x = prefix;
  x.insert(x.end(), sizes->begin() + static_cast<std::ptrdiff_t>(k), sizes->end());
  return refine_loops(loops, x);
}

NodeLoops refine_loops(const NodeLoops& loops, const std::vector<int64_t>& refined) {
  if (loops.x == refined) return loops;
  // Each old loop k is a run of new loops, innermost last: x_k = flat index of the run.
  std::map<ir::Var, ir::Index> split;
  std::size_t pos = refined.size();
  for (std::size_t k = loops.x.size(); k-- > 0;) {
    std::vector<ir::Index> coords;
    std::vector<int64_t> sizes;
    int64_t p = 1;
    while (p < loops.x[k]) {
      STAX_ASSERT(pos > 0, "refine_loops: not a refinement");
      --pos;
      p *= refined[pos];
      coords.insert(coords.begin(), ir::Index::var(ir::xvar(static_cast<int32_t>(pos))));
      sizes.insert(sizes.begin(), refined[pos]);
    }
    STAX_ASSERT(p == loops.x[k], "refine_loops: not a refinement");
    split[ir::xvar(static_cast<int32_t>(k))] = ir::flat_index(coords, sizes);
  }
  STAX_ASSERT(pos == 0, "refine_loops: not a refinement");
  NodeLoops out;
  out.x = refined;
  out.r = loops.r;
  const ir::VarRanges ranges = out.ranges();
  for (const auto& [v, e] : loops.reindex) out.reindex[v] = ir::simplify(ir::substitute(e, split), ranges);
  return out;
}

}  // namespace stax::scheduler
