// Lowering driver: which values live in memory (design.md's materialization rules), the main
// loop over the graph, and the program's inputs, constants and outputs.
#include "stax/lowering/lower.h"

#include <algorithm>

#include "lowering_impl.h"
#include "stax/ir/simplify.h"
#include "stax/support/error.h"

namespace stax::lowering {

namespace detail {

using graph::Op;
using graph::OpCategory;
using graph::Value;
using graph::ValueKind;

namespace {

// "Large" body of a reused producer: Inductor's realize_opcount_threshold.
constexpr std::size_t kLargeBody = 30;
// More than this many distinct buffers read makes a reused producer worth storing
// (Inductor's realize_reads_threshold).
constexpr std::size_t kMaxReads = 4;
// Longest chain of graph nodes inlined into one body. Past it the value is stored: bodies of
// very long single-use chains stay bounded (and so does the recursion that builds them); the
// scheduler fuses the pieces back into one loop, since each is read at the index it is written.
constexpr int kMaxInlineDepth = 128;

bool needs_buffer_input(OpCategory c) {
  return c == OpCategory::Reduction || c == OpCategory::ArgReduce || c == OpCategory::Scan;
}

}  // namespace

bool may_fail(const Value& v) {
  if (v.kind != ValueKind::Node) return false;
  if (graph::op_category(v.op) == OpCategory::Indexing) return true;  // an index out of range
  if (is_floating(v.compute_dtype)) return false;
  if (v.op == Op::Remainder) return true;
  return v.op == Op::Div && v.attrs.rounding_mode != graph::RoundingMode::None;
}

bool is_view(const Value& v) {
  return v.kind == ValueKind::Node && graph::op_category(v.op) == OpCategory::View;
}

Expr scalar_const(const graph::Scalar& s, DType dt) {
  if (is_floating(dt)) return ir::float_const(dt, s.as_double());
  if (dt == DType::Bool) {
    if (s.kind == graph::Scalar::Kind::Float) return ir::bool_const(s.f != 0.0);  // nan is true
    return ir::bool_const(s.as_int() != 0);
  }
  return ir::int_const(dt, s.as_int());
}

Lowerer::Lowerer(const graph::Graph& graph_in) : g(graph_in) {
  const std::size_t n = g.values.size();
  buffer_of.assign(n, -1);
  aux.assign(n, {});
  root_.assign(n, graph::kNoValue);
  consumers_.assign(n, {});
  output_users_.assign(n, 0);
  is_output_.assign(n, false);
  live_.assign(n, false);
  depth_.assign(n, -1);
}

// Storage roots through views, liveness from the outputs, and the users of every root.
void Lowerer::analyze() {
  for (std::size_t k = 0; k < g.values.size(); ++k) {
    const Value& v = g.values[k];
    STAX_ASSERT(v.kind != ValueKind::Node || graph::op_category(v.op) != OpCategory::Composite,
                "lowering needs expand_composites first; '" + v.name + "' is a composite");
    root_[k] = is_view(v) ? root_[static_cast<std::size_t>(v.args.at(0).value)]
                          : static_cast<ValueId>(k);
  }
  for (ValueId o : g.outputs) {
    is_output_[static_cast<std::size_t>(o)] = true;
    live_[static_cast<std::size_t>(o)] = true;
  }
  // An integer division or remainder may fail (division by zero), and an indexing op (an index
  // out of range), as they do in eager PyTorch and in the reference interpreter even when
  // nothing uses the result: they are kept.
  for (std::size_t k = 0; k < g.values.size(); ++k) {
    if (may_fail(g.values[k])) live_[k] = true;
  }
  for (std::size_t k = g.values.size(); k-- > 0;) {
    if (!live_[k]) continue;
    for (const graph::Arg& a : g.values[k].args)
      if (a.is_value()) live_[static_cast<std::size_t>(a.value)] = true;
  }
  for (std::size_t k = 0; k < g.values.size(); ++k) {
    const Value& v = g.values[k];
    if (!live_[k] || v.kind != ValueKind::Node || is_view(v)) continue;
    for (const graph::Arg& a : v.args) {
      if (!a.is_value()) continue;
      auto& users = consumers_[static_cast<std::size_t>(root_[static_cast<std::size_t>(a.value)])];
      if (std::find(users.begin(), users.end(), static_cast<ValueId>(k)) == users.end())
        users.push_back(static_cast<ValueId>(k));
    }
  }
  std::vector<ValueId> outs = g.outputs;
  std::sort(outs.begin(), outs.end());
  outs.erase(std::unique(outs.begin(), outs.end()), outs.end());
  for (ValueId o : outs) ++output_users_[static_cast<std::size_t>(root_[static_cast<std::size_t>(o)])];
}

ir::VarRanges Lowerer::output_ranges(const Shape& shape) {
  ir::VarRanges r;
  for (std::size_t d = 0; d < shape.size(); ++d) r[ir::xvar(static_cast<int32_t>(d))] = shape[d];
  return r;
}

Coords Lowerer::output_coords(const Shape& shape) {
  Coords c;
  for (std::size_t d = 0; d < shape.size(); ++d) c.push_back(Index::var(ir::xvar(static_cast<int32_t>(d))));
  return c;
}

Expr Lowerer::load_buffer(BufferId b, const Coords& coords, const Shape& shape,
                          const BodyCtx& ctx) const {
  Index flat = ir::simplify(ir::flat_index(coords, shape), ctx.ranges);
  return ir::load(b, prog[b].dtype, flat);
}

std::pair<ValueId, Coords> Lowerer::through_views(ValueId v, Coords coords, BodyCtx& ctx) const {
  while (is_view(g[v])) {
    coords = view_input_coords(g[v], coords, ctx);
    v = g[v].args.at(0).value;
  }
  return {v, std::move(coords)};
}

Expr Lowerer::value_at(ValueId v, const Coords& coords, BodyCtx& ctx) {
  const Value& val = g[v];
  STAX_ASSERT(coords.size() == val.shape.size(), "coordinates of the wrong rank for '" + val.name + "'");
  if (buffer_of[static_cast<std::size_t>(v)] >= 0)
    return load_buffer(buffer_of[static_cast<std::size_t>(v)], coords, val.shape, ctx);
  auto key = std::make_pair(v, coords);
  auto it = ctx.memo.find(key);
  if (it != ctx.memo.end()) return it->second;
  STAX_ASSERT(val.kind == ValueKind::Node, "input or constant '" + val.name + "' without a buffer");
  ctx.origins.insert(v);
  Expr e = is_view(val) ? value_at(val.args.at(0).value, view_input_coords(val, coords, ctx), ctx)
                        : compute_node(v, coords, ctx);
  STAX_ASSERT(e.dtype() == val.dtype, "lowered '" + val.name + "' to " +
                                          std::string(dtype_name(e.dtype())) + ", graph says " +
                                          std::string(dtype_name(val.dtype)));
  ctx.memo.emplace(std::move(key), e);
  return e;
}

Expr Lowerer::arg_at(const Value& n, std::size_t k, const Coords& coords, DType dt, BodyCtx& ctx) {
  const graph::Arg& a = n.args.at(k);
  STAX_ASSERT(!a.is_none(), "missing argument of '" + n.name + "'");
  if (a.is_scalar()) return scalar_const(a.scalar, dt);
  const Value& av = g[a.value];
  const std::size_t ra = av.shape.size(), rn = coords.size();
  STAX_ASSERT(ra <= rn, "argument of higher rank than '" + n.name + "'");
  Coords c(ra);
  for (std::size_t j = 0; j < ra; ++j)
    c[j] = av.shape[j] == 1 ? Index::constant(0) : coords[j + rn - ra];
  return ir::cast(value_at(a.value, c, ctx), dt);
}

BufferId Lowerer::add_buffer(ir::Buffer b, const BodyCtx* ctx, ValueId origin) {
  b.id = static_cast<BufferId>(prog.buffers.size());
  if (b.name.empty()) {
    // Inputs and constants keep their graph names and come first: a computed buffer's name
    // steps around them (no two "buf<id>" names clash, and no suffixed one does either).
    const std::string base = "buf" + std::to_string(b.id);
    b.name = base;
    for (int k = 1; graph_names_.count(b.name) != 0; ++k) b.name = base + "_" + std::to_string(k);
  } else {
    graph_names_.insert(b.name);
  }
  std::set<ValueId> origins;
  if (ctx) origins = ctx->origins;
  if (origin != graph::kNoValue) origins.insert(origin);
  for (ValueId o : origins) b.origins.push_back(g[o].name);
  prog.buffers.push_back(std::move(b));
  return prog.buffers.back().id;
}

int Lowerer::inline_depth(ValueId v) {
  const auto k = static_cast<std::size_t>(v);
  if (buffer_of[k] >= 0 || g[v].kind != ValueKind::Node) return 0;
  if (depth_[k] >= 0) return depth_[k];
  int d = 0;
  for (const graph::Arg& a : g[v].args)
    if (a.is_value()) d = std::max(d, inline_depth(a.value));
  depth_[k] = d + 1;
  return depth_[k];
}

BufferId Lowerer::materialize(ValueId v) {
  BodyCtx ctx;
  ctx.ranges = output_ranges(g[v].shape);
  return materialize(v, ctx, value_at(v, output_coords(g[v].shape), ctx));
}

BufferId Lowerer::materialize(ValueId v, const BodyCtx& ctx, Expr body) {
  const Value& val = g[v];
  ir::Buffer b;
  b.kind = ir::BufferKind::Pointwise;
  b.dtype = val.dtype;
  b.shape = val.shape;
  b.body = std::move(body);
  BufferId id = add_buffer(std::move(b), &ctx, v);
  buffer_of[static_cast<std::size_t>(v)] = id;
  return id;
}

// A reduction or scan `consumer` reads `arg` (whose storage root is `root`, a pointwise value
// not yet stored): is its access the identity of root's layout in the consumer's iteration
// order?
bool Lowerer::reads_through_identity(ValueId consumer, ValueId arg, ValueId root) {
  const Value& c = g[consumer];
  BodyCtx ctx;
  Coords in;
  Index iteration;
  if (graph::op_category(c.op) == OpCategory::Scan) {
    ctx.ranges = output_ranges(c.shape);
    in = output_coords(c.shape);
    iteration = ir::flat_index(in, c.shape);
  } else {
    ctx.ranges = reduction_ranges(c);
    in = reduction_input_coords(c);
    iteration = reduction_iteration_index(c, ctx.ranges);
  }
  auto [r, coords] = through_views(arg, in, ctx);
  STAX_ASSERT(r == root, "view chain does not end at its root");
  if (g[root].numel() != g[arg].numel()) return false;
  Index flat = ir::simplify(ir::flat_index(coords, g[root].shape), ctx.ranges);
  return flat == ir::simplify(iteration, ctx.ranges);
}

bool Lowerer::affine_through_views(ValueId arg, ValueId root) {
  BodyCtx ctx;
  ctx.ranges = output_ranges(g[arg].shape);
  auto [r, coords] = through_views(arg, output_coords(g[arg].shape), ctx);
  STAX_ASSERT(r == root, "view chain does not end at its root");
  return ir::is_affine(ir::simplify(ir::flat_index(coords, g[root].shape), ctx.ranges));
}

// design.md, "Function composition (§6.3)": a pointwise producer is stored when it is a graph
// output; when a reduction, scan or extern reads it through a non-identity index (a pool reads
// it over overlapping windows; a convolution reads whole buffers; an indexing op reads its data
// at positions known at run time); or when it has more than one user and (CPU rule 1 of §6.6)
// an expensive op, or more than kMaxReads buffers read, or a large body.
bool Lowerer::should_materialize(ValueId v, BodyCtx& ctx, Expr& body) {
  if (is_output_[static_cast<std::size_t>(v)]) return true;
  const auto& users = consumers_[static_cast<std::size_t>(v)];
  if (users.empty()) return true;  // kept only for its possible failure (may_fail)
  for (ValueId c : users) {
    const Value& cv = g[c];
    const OpCategory cat = graph::op_category(cv.op);
    for (const graph::Arg& a : cv.args) {
      if (!a.is_value() || root_[static_cast<std::size_t>(a.value)] != v) continue;
      if (cat == OpCategory::Matmul && affine_through_views(a.value, v)) return true;
      if (cat == OpCategory::Pool || cat == OpCategory::Conv) return true;
      if (cat == OpCategory::Indexing && a.value == cv.args.at(0).value) return true;
      if (!needs_buffer_input(cat)) continue;
      if (cat != OpCategory::Scan && !is_real_reduction(cv)) continue;
      if (cat == OpCategory::Scan && cv.shape.empty()) continue;
      if (!reads_through_identity(c, a.value, v)) return true;
    }
  }
  const std::size_t n_users = users.size() + static_cast<std::size_t>(output_users_[static_cast<std::size_t>(v)]);
  if (n_users <= 1) return false;
  body = value_at(v, output_coords(g[v].shape), ctx);
  // One pass over the body: expensive ops, distinct buffers read, size.
  std::vector<BufferId> read;
  bool expensive = false;
  const std::vector<Expr> nodes = ir::topo_order(body);
  for (const Expr& e : nodes) {
    if (e.op() == ir::ExprOp::Load && std::find(read.begin(), read.end(), e.buffer()) == read.end())
      read.push_back(e.buffer());
    expensive = expensive || ir::is_expensive(e.op());
  }
  return expensive || read.size() > kMaxReads || nodes.size() > kLargeBody;
}

// The buffer holding graph output `v`: its own, or its root's when a view of a stored value
// keeps the dense layout (a reshape), else a copy.
BufferId Lowerer::output_buffer(ValueId v) {
  if (buffer_of[static_cast<std::size_t>(v)] >= 0) return buffer_of[static_cast<std::size_t>(v)];
  if (is_view(g[v])) {
    BodyCtx ctx;
    ctx.ranges = output_ranges(g[v].shape);
    auto [r, coords] = through_views(v, output_coords(g[v].shape), ctx);
    BufferId rb = buffer_of[static_cast<std::size_t>(r)];
    if (rb >= 0 && g[r].numel() == g[v].numel()) {
      Index flat = ir::simplify(ir::flat_index(coords, g[r].shape), ctx.ranges);
      if (flat == ir::simplify(ir::flat_index(output_coords(g[v].shape), g[v].shape), ctx.ranges))
        return rb;
    }
  }
  return materialize(v);
}

ir::Program Lowerer::run() {
  analyze();
  prog.name = g.name;
  for (std::size_t k = 0; k < g.inputs.size(); ++k) {
    const Value& v = g[g.inputs[k]];
    ir::Buffer b;
    b.kind = ir::BufferKind::Input;
    b.name = v.name;
    b.dtype = v.dtype;
    b.shape = v.shape;
    b.input_index = static_cast<int>(k);
    buffer_of[static_cast<std::size_t>(g.inputs[k])] = add_buffer(std::move(b), nullptr, g.inputs[k]);
  }
  for (std::size_t k = 0; k < g.values.size(); ++k) {
    const Value& v = g.values[k];
    if (v.kind != ValueKind::Constant || !live_[k]) continue;
    ir::Buffer b;
    b.kind = ir::BufferKind::Constant;
    b.name = v.name;
    b.dtype = v.dtype;
    b.shape = v.shape;
    b.data = v.data;
    buffer_of[k] = add_buffer(std::move(b), nullptr, static_cast<ValueId>(k));
  }
  for (std::size_t k = 0; k < g.values.size(); ++k) {
    const Value& v = g.values[k];
    if (v.kind != ValueKind::Node || !live_[k] || is_view(v)) continue;
    const auto id = static_cast<ValueId>(k);
    switch (graph::op_category(v.op)) {
      case OpCategory::Reduction:
      case OpCategory::ArgReduce: lower_reduction(id); break;
      case OpCategory::Scan: lower_scan(id); break;
      case OpCategory::Matmul: lower_matmul(id); break;
      case OpCategory::Pool: lower_pool(id); break;
      case OpCategory::Indexing: lower_indexing(id); break;
      case OpCategory::Unary:
      case OpCategory::UnaryFloat:
      case OpCategory::UnaryPred:
      case OpCategory::Binary:
      case OpCategory::Compare:
      case OpCategory::Logical:
      case OpCategory::Where:
      case OpCategory::Cast:
      case OpCategory::Creation:
      case OpCategory::View:
      case OpCategory::Concat:
      case OpCategory::Pad: break;
      case OpCategory::Composite: STAX_ASSERT(false, "composite op in lowering");
      case OpCategory::Conv: lower_conv(id); break;
    }
    // Pointwise values, and the pointwise epilogues of mean/var/std/logsumexp and of
    // reductions over no dims, are inlined unless a rule says to store them.
    if (buffer_of[k] >= 0) continue;
    BodyCtx ctx;
    ctx.ranges = output_ranges(v.shape);
    Expr body;
    if (inline_depth(id) > kMaxInlineDepth || should_materialize(id, ctx, body))
      materialize(id, ctx, body ? body : value_at(id, output_coords(v.shape), ctx));
  }
  for (std::size_t k = 0; k < g.outputs.size(); ++k)
    prog.outputs.push_back(ir::ProgramOutput{output_buffer(g.outputs[k]), static_cast<int>(k)});
  ir::verify(prog);
  return std::move(prog);
}

}  // namespace detail

ir::Program lower(const graph::Graph& g) {
  detail::Lowerer l(g);
  return l.run();
}

}  // namespace stax::lowering
