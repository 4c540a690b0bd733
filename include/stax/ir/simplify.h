// Range-aware simplification of index expressions and the merging of contiguous loop
// dimensions (the decisions of the chapter's §6.8, which the design records in design.md,
// "Index expressions"). Everything here is a pure function of its arguments.
#pragma once

#include <cstdint>
#include <vector>

#include "stax/ir/index.h"

namespace stax::ir {

// The canonical form under the given ranges. On top of the normal form of index.h:
//   - a variable of extent 1 is 0;
//   - a // d is folded to a constant when floor(lo/d) == floor(hi/d) (0 when 0 <= a < d);
//   - (q*d + b) // d -> q + b // d and then b // d -> 0 when 0 <= b < d by the ranges, also when
//     the terms of `q*d` only have coefficients that are multiples of d after splitting;
//   - a % d -> a when 0 <= a < d; (a % m) where a's range fits in [0, m) is a;
//   - ((x // a) % b) where x // a < b by the ranges -> x // a;
//   - the merges of index.h, applied again after the rules above uncover them.
// Applied bottom-up to a fixed point. Equal accesses (the same function of the loop variables
// written in different ways by views) get structurally equal results; this is what the
// scheduler compares (design.md: "Equal accesses must have equal canonical forms").
Index simplify(const Index& e, const VarRanges& ranges);

// Loop-dimension merging (TorchInductor's `_simplify_loops` idea). `loop_vars` are the loops of
// a nest, outermost first, with extents in `ranges`; `indices` are the accesses made in its
// body. Loops of extent 1 are removed (their variable is 0). Two adjacent loops (outer o, inner
// i, extent s_i) are merged into one of extent s_o * s_i when, for every index, substituting
// o = c // s_i and i = c % s_i simplifies to an expression in which c occurs in no `// s_i` or
// `% s_i` atom, i.e. the loops are laid out contiguously in every access (`128*x0 + x1` over
// (64, 128) becomes `c0` over 8192, `x0 + 64*x1` does not merge). Merges are tried from the
// innermost pair outwards until none applies. Loops are never reordered and never dropped unless
// of extent 1, so the merged nest runs the same iterations in the same order.
struct MergedLoops {
  // Extents of the new loops c0 (outermost), c1, ...
  std::vector<int64_t> sizes;
  // `indices` rewritten over c0, c1, ... and simplified under `ranges_c()`.
  std::vector<Index> indices;
  // For each of `loop_vars` (same order), its value as an expression of the c variables.
  std::vector<Index> reindex;
  VarRanges ranges_c() const;
};
MergedLoops merge_loops(const std::vector<Var>& loop_vars, const VarRanges& ranges,
                        const std::vector<Index>& indices);

// The canonical form of one memory access for a dependency (§7.1 MemoryDep: the buffer, the
// canonical index and the ranges of its variables). `loop_vars` are the loops of the accessing
// node, outermost first: for a Reduction the x variables then the r variables. Loops the index
// does not use are dropped (a broadcast read of `buf1[x0]` inside loops (x0, x1) is `c0` over
// {c0: 64}), the rest merged as by merge_loops, and the variables renamed c0, c1, ... outermost
// first. Example 7.1: `128*x0 + r0` over x0 < 64, r0 < 128 -> `c0` over {c0: 8192}.
struct CanonicalAccess {
  Index index;
  std::vector<int64_t> sizes;  // extent of c0, c1, ...
  VarRanges ranges() const;
  bool operator==(const CanonicalAccess&) const = default;
};
CanonicalAccess canonicalize_access(const Index& index, const std::vector<Var>& loop_vars,
                                    const VarRanges& ranges);
// "c0 over {c0: 8192}"
std::string to_string(const CanonicalAccess& access);

}  // namespace stax::ir
