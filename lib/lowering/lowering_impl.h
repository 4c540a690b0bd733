// The lowering pass's internal state, shared by its source files:
//   lower.cpp        analysis (storage roots, users, liveness), materialization rules, the
//                    main loop, inputs/constants/outputs
//   elementwise.cpp  bodies of pointwise ops: elementwise, creation, cat, pad, and the
//                    pointwise epilogues of mean/var/std/logsumexp
//   views.cpp        the index rewrite of every view op
//   reductions.cpp   reduction, scan and matmul buffers
//   pooling.cpp      max, average and adaptive average pools
//   indexing.cpp     embedding, index_select and gather (indexed loads)
//   conv.cpp         conv1d and conv2d buffers
#pragma once

#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "stax/graph/graph.h"
#include "stax/ir/expr.h"
#include "stax/ir/index.h"
#include "stax/ir/program.h"

namespace stax::lowering::detail {

// A dim as a vector index.
inline std::size_t ud(int64_t d) { return static_cast<std::size_t>(d); }

using graph::ValueId;
using ir::BufferId;
using ir::Expr;
using ir::Index;
using Coords = std::vector<Index>;

// The state of building one buffer body: the loop ranges (for simplification), the values
// already computed at given coordinates (so a value used twice is one shared node), and the
// graph nodes computed inline (the buffer's origins).
struct BodyCtx {
  ir::VarRanges ranges;
  std::map<std::pair<ValueId, Coords>, Expr> memo;
  std::set<ValueId> origins;
};

class Lowerer {
 public:
  explicit Lowerer(const graph::Graph& g);
  ir::Program run();

  // ---- values at coordinates (lower.cpp)
  // The value `v` at `coords` (one index per dim of v): a load when v is materialized, else
  // its expression inlined. Memoized in ctx.
  Expr value_at(ValueId v, const Coords& coords, BodyCtx& ctx);
  // Argument k of node `n` at the node's coordinates, broadcast and cast to `dt` (a scalar
  // literal becomes a constant of `dt`).
  Expr arg_at(const graph::Value& n, std::size_t k, const Coords& coords, DType dt, BodyCtx& ctx);
  // Follows view nodes from `v` down to the first non-view value, rewriting coordinates.
  std::pair<ValueId, Coords> through_views(ValueId v, Coords coords, BodyCtx& ctx) const;

  // ---- the pointwise expression of a node (elementwise.cpp); never a load of its own buffer
  Expr compute_node(ValueId v, const Coords& coords, BodyCtx& ctx);

  // ---- views (views.cpp): coordinates of the view's input for the view's coordinates
  Coords view_input_coords(const graph::Value& view, const Coords& coords, const BodyCtx& ctx) const;

  // ---- buffers (reductions.cpp)
  void lower_reduction(ValueId v);
  void lower_scan(ValueId v);
  void lower_matmul(ValueId v);
  // conv.cpp: conv1d and conv2d as an Extern buffer over whole operands.
  void lower_conv(ValueId v);
  // pooling.cpp: max_pool2d as a Max reduction over the window (-inf outside the input),
  // avg_pool2d and adaptive_avg_pool2d as a Sum reduction (aux) whose pointwise end divides.
  void lower_pool(ValueId v);
  Expr pool_average(ValueId v, const Coords& coords, BodyCtx& ctx);
  // indexing.cpp: embedding, index_select and gather as a buffer of indexed loads.
  void lower_indexing(ValueId v);
  // The input coordinates a reduction node reads for output vars x and reduction vars r.
  Coords reduction_input_coords(const graph::Value& n) const;
  // Row-major position of iteration (x..., r...) of a reduction node: what an identity read
  // of its input computes.
  Index reduction_iteration_index(const graph::Value& n, const ir::VarRanges& ranges) const;
  ir::VarRanges reduction_ranges(const graph::Value& n) const;
  bool is_real_reduction(const graph::Value& n) const;  // reduces at least one dim

  // ---- buffer helpers (lower.cpp)
  // Adds `b`; an unnamed (computed) buffer is named buf<id>, or buf<id>_<k> when an input or a
  // constant already has that name (the program's buffer names are unique).
  BufferId add_buffer(ir::Buffer b, const BodyCtx* ctx, ValueId origin);
  // A Pointwise buffer holding value v (its own expression, or a copy of a view).
  BufferId materialize(ValueId v);
  // Same, with the body already built in `ctx`.
  BufferId materialize(ValueId v, const BodyCtx& ctx, Expr body);
  static ir::VarRanges output_ranges(const Shape& shape);
  static Coords output_coords(const Shape& shape);
  Expr load_buffer(BufferId b, const Coords& coords, const Shape& shape, const BodyCtx& ctx) const;

  const graph::Graph& g;
  ir::Program prog;
  std::vector<BufferId> buffer_of;          // per value: its materialized buffer, or -1
  std::vector<std::vector<BufferId>> aux;   // per value: internal buffers (mean, var, logsumexp)

 private:
  void analyze();
  // Whether pointwise value v is stored. May build v's body into `body` (in `ctx`, whose ranges
  // are v's output ranges) to inspect it; the caller reuses it.
  bool should_materialize(ValueId v, BodyCtx& ctx, Expr& body);
  bool reads_through_identity(ValueId consumer, ValueId arg, ValueId root);
  bool affine_through_views(ValueId arg, ValueId root);
  BufferId output_buffer(ValueId v);
  // Length of the longest chain of graph nodes that value_at(v) would inline (0 when stored).
  // Memoized: call it only once v's own storage decision is final or v is not yet decided
  // and its arguments' are.
  int inline_depth(ValueId v);

  std::vector<ValueId> root_;                   // storage root through views
  std::vector<std::vector<ValueId>> consumers_; // per root: distinct non-view consumers
  std::vector<int> output_users_;               // per root: distinct outputs reading it
  std::vector<bool> is_output_;
  std::vector<bool> live_;
  std::vector<int> depth_;
  std::set<std::string> graph_names_;           // names of the input and constant buffers
};

// Helpers shared by the source files.
Expr scalar_const(const graph::Scalar& s, DType dt);
bool is_view(const graph::Value& v);
// An integer division or remainder node: it fails on a zero divisor, so it is computed even
// when nothing reads it.
bool may_fail(const graph::Value& v);
// e compared with a constant, as an int64 value expression (elementwise.cpp).
Expr index_cmp(ir::ExprOp op, const Index& e, int64_t c);
// The conjunction of bool conditions (null for none).
Expr all_of(const std::vector<Expr>& conds);
// Conditions `lo <= e` and `e < hi`, left out when the ranges prove them; `empty` when the
// ranges prove e is never in [lo, hi).
struct RangeMask {
  std::vector<Expr> conds;
  Expr hi_cond;  // the `e < hi` condition when it was needed
  bool empty = false;
};
RangeMask range_mask(const Index& e, int64_t lo, int64_t hi, const ir::VarRanges& ranges);
// (x - sum / count)^2: the second pass of var/std.
Expr var_deviation_squared(const Expr& x, const Expr& sum, double count);
// exp(x - shift(max)): the second pass of logsumexp.
Expr lse_exp_term(const Expr& x, const Expr& max);

}  // namespace stax::lowering::detail
