// can_fuse, the score, the cycle test and the merge (§7.2-7.4).
#include "stax/scheduler/fusion.h"

#include <algorithm>
#include <iterator>
#include <map>
#include <set>

#include "stax/support/error.h"

namespace stax::scheduler {

namespace {

// A kernel whose nodes all share one pointwise loop nest (every loop is an outer loop).
bool pure_pointwise(const FusedNode& f) {
  return (f.kind == KernelKind::Pointwise || f.kind == KernelKind::Fused);
}
// A kernel of reductions sharing one loop nest.
bool pure_reduction(const FusedNode& f) {
  return f.kind == KernelKind::Reduction || f.kind == KernelKind::Horizontal;
}

// The number of leading loops of `sizes` whose product is `count`, or sizes.size() + 1 when no
// prefix has that product.
std::size_t prefix_length(const std::vector<int64_t>& sizes, int64_t count) {
  int64_t p = 1;
  for (std::size_t k = 0; k <= sizes.size(); ++k) {
    if (p == count) return k;
    if (k < sizes.size()) p *= sizes[k];
  }
  return sizes.size() + 1;
}

bool has_prefix(const std::vector<int64_t>& sizes, const std::vector<int64_t>& prefix) {
  return sizes.size() >= prefix.size() && std::equal(prefix.begin(), prefix.end(), sizes.begin());
}

int64_t product(const std::vector<int64_t>& v) {
  int64_t p = 1;
  for (int64_t s : v) p *= s;
  return p;
}

template <typename T>
std::vector<T> sorted_union(const std::vector<T>& a, const std::vector<T>& b) {
  std::vector<T> out;
  out.reserve(a.size() + b.size());
  std::set_union(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out));
  return out;
}

bool contains(const std::vector<int>& sorted, int v) { return std::binary_search(sorted.begin(), sorted.end(), v); }

std::vector<int> sorted_copy(std::vector<int> v) {
  std::sort(v.begin(), v.end());
  return v;
}

}  // namespace

std::string_view kernel_kind_name(KernelKind k) {
  switch (k) {
    case KernelKind::Pointwise: return "pointwise";
    case KernelKind::Reduction: return "reduction";
    case KernelKind::Scan: return "scan";
    case KernelKind::Extern: return "extern";
    case KernelKind::Fused: return "fused";
    case KernelKind::Horizontal: return "horizontal";
    case KernelKind::OuterLoopFused: return "outer_loop_fused";
    case KernelKind::Epilogue: return "extern_epilogue";
  }
  return "?";
}

std::string_view kernel_class_name(KernelKind k) {
  switch (k) {
    case KernelKind::Pointwise:
    case KernelKind::Reduction:
    case KernelKind::Scan: return "SchedulerNode";
    case KernelKind::Extern:
    case KernelKind::Epilogue: return "ExternKernelSchedulerNode";
    case KernelKind::Fused:
    case KernelKind::Horizontal: return "FusedSchedulerNode";
    case KernelKind::OuterLoopFused: return "OuterLoopFusedSchedulerNode";
  }
  return "?";
}

std::string_view refusal_name(Refusal r) {
  switch (r) {
    case Refusal::Extern: return "extern";
    case Refusal::Scan: return "scan";
    case Refusal::IncompatibleRanges: return "incompatible_ranges";
    case Refusal::DependenceDistance: return "dependence_distance";
    case Refusal::TooManyNodes: return "too_many_nodes";
    case Refusal::TooManyBuffers: return "too_many_buffers";
    case Refusal::LittleSharedData: return "little_shared_data";
    case Refusal::PeakMemory: return "peak_memory";
    case Refusal::Cycle: return "cycle";
  }
  return "?";
}

bool score_before(const Score& a, const Score& b) {
  // §7.3: when the bytes saved differ 16x or more, they alone decide.
  const uint64_t lo = std::min(a.bytes, b.bytes), hi = std::max(a.bytes, b.bytes);
  const bool far_apart = hi > 0 && (lo == 0 || hi / 16 >= lo);
  if (far_apart && a.bytes != b.bytes) return a.bytes > b.bytes;
  if (a.type != b.type) return a.type > b.type;
  if (a.bytes != b.bytes) return a.bytes > b.bytes;
  if (a.buffers != b.buffers) return a.buffers > b.buffers;
  return a.distance < b.distance;
}

std::string to_string(const Score& s) {
  return "(" + std::to_string(s.type) + ", " + std::to_string(s.bytes) + ", " + std::to_string(s.buffers) + ", " +
         std::to_string(-s.distance) + ")";
}

Fuser::Fuser(const ir::Program& p, const SchedulerGraph& g, FusionOptions opts)
    : p_(p), g_(g), opts_(opts) {
  const std::size_t n = g.nodes.size();
  holder_.resize(n);
  loops_.resize(n);
  order_.resize(n);
  place_.resize(n);
  for (const SchedulerNode& node : g.nodes) {
    FusedNode f;
    f.id = node.id;
    f.name = node.name;
    f.members = {node.id};
    switch (node.kind) {
      case NodeKind::Pointwise:
        f.kind = KernelKind::Pointwise;
        f.outer = node.loops.x;
        f.groups.push_back(LoopGroup{{}, {}, {node.id}, false});
        break;
      case NodeKind::Reduction:
        f.kind = KernelKind::Reduction;
        f.outer = node.loops.x;
        f.groups.push_back(LoopGroup{{}, node.loops.r, {node.id}, true});
        f.has_reduction = true;
        break;
      case NodeKind::Scan: f.kind = KernelKind::Scan; break;
      case NodeKind::Extern: f.kind = KernelKind::Extern; break;
    }
    f.deps = node.reads;
    f.deps.insert(f.deps.end(), node.writes.begin(), node.writes.end());
    std::sort(f.deps.begin(), f.deps.end());
    f.deps.erase(std::unique(f.deps.begin(), f.deps.end()), f.deps.end());
    for (const Dep& d : f.deps) f.buffers.push_back(d.buffer);
    std::sort(f.buffers.begin(), f.buffers.end());
    f.buffers.erase(std::unique(f.buffers.begin(), f.buffers.end()), f.buffers.end());
    f.min_order = f.max_order = node.id;
    order_[static_cast<std::size_t>(node.id)] = node.id;  // the scheduler's order is topological
    place_[static_cast<std::size_t>(node.id)] = node.id;
    holder_[static_cast<std::size_t>(node.id)] = node.id;
    loops_[static_cast<std::size_t>(node.id)] = node.loops;
    nodes_.push_back(std::move(f));
  }
  visit_.assign(nodes_.size(), 0);
  access_cache_.resize(n);
  readers_.assign(p.buffers.size(), {});
  is_output_.assign(p.buffers.size(), false);
  for (const SchedulerNode& node : g.nodes)
    for (const Dep& d : node.reads) {
      std::vector<int>& r = readers_[static_cast<std::size_t>(d.buffer)];
      if (r.empty() || r.back() != node.id) r.push_back(node.id);
    }
  for (const ir::ProgramOutput& o : p.outputs) is_output_[static_cast<std::size_t>(o.buffer)] = true;
}

std::vector<int> Fuser::alive() const {
  std::vector<int> out;
  for (const FusedNode& f : nodes_)
    if (f.alive) out.push_back(f.id);
  std::sort(out.begin(), out.end(), [&](int a, int b) { return node(a).min_order < node(b).min_order; });
  return out;
}

std::size_t Fuser::io_buffers(const FusedNode& a, const FusedNode& b) const {
  auto inside = [&](int v) {
    const int h = holder_[static_cast<std::size_t>(v)];
    return h == a.id || h == b.id;
  };
  auto leaves = [&](ir::BufferId buf) {
    const auto k = static_cast<std::size_t>(buf);
    const int w = g_.writer[k];
    const bool internal = w >= 0 && inside(w) && !is_output_[k] && !readers_[k].empty() &&
                          std::all_of(readers_[k].begin(), readers_[k].end(), inside);
    return internal ? 0u : 1u;
  };
  // Over the sorted union of both buffer lists.
  std::size_t n = 0, i = 0, j = 0;
  while (i < a.buffers.size() || j < b.buffers.size()) {
    if (j == b.buffers.size() || (i < a.buffers.size() && a.buffers[i] < b.buffers[j])) {
      n += leaves(a.buffers[i++]);
    } else if (i == a.buffers.size() || b.buffers[j] < a.buffers[i]) {
      n += leaves(b.buffers[j++]);
    } else {
      n += leaves(a.buffers[i++]);
      ++j;
    }
  }
  return n;
}

std::vector<std::pair<int, int>> Fuser::candidates() const {
  // The fused nodes touching each buffer, in order (Algorithm 7.1 line 2).
  std::vector<std::vector<int>> touching(p_.buffers.size());
  for (int id : alive())
    for (ir::BufferId b : node(id).buffers) touching[static_cast<std::size_t>(b)].push_back(id);
  std::vector<std::pair<int, int>> pairs;
  for (std::size_t b = 0; b < touching.size(); ++b) {
    const std::vector<int>& list = touching[b];
    const int w = g_.writer[b];
    const int producer = w < 0 ? -1 : holder_[static_cast<std::size_t>(w)];
    for (std::size_t i = 0; i < list.size(); ++i)
      for (std::size_t j = i + 1; j < list.size() && j <= i + opts_.pair_window; ++j) {
        // Two readers of the buffer farther apart than the peak-memory guard allows can only be
        // fused horizontally, which the guard refuses (a dependency between them makes them a
        // pair in the list of the buffer it goes through): not a candidate.
        const bool readers = list[i] != producer && list[j] != producer;
        if (readers && node(list[j]).min_order - node(list[i]).min_order > opts_.max_horizontal_distance) continue;
        pairs.emplace_back(list[i], list[j]);
      }
  }
  auto key = [&](const std::pair<int, int>& e) {
    return std::pair<int, int>{node(e.first).min_order, node(e.second).min_order};
  };
  std::sort(pairs.begin(), pairs.end(), [&](const auto& x, const auto& y) { return key(x) < key(y); });
  pairs.erase(std::unique(pairs.begin(), pairs.end()), pairs.end());
  return pairs;
}

bool Fuser::node_depends(const FusedNode& from, const FusedNode& to) const {
  for (int t : to.members)
    for (int pnode : g_.nodes[static_cast<std::size_t>(t)].preds)
      if (holder_[static_cast<std::size_t>(pnode)] == from.id) return true;
  return false;
}

bool Fuser::depends(const std::vector<int>& from, const std::vector<int>& to, bool weak_only) const {
  const std::vector<int> sorted_from = sorted_copy(from);
  for (int t : to) {
    const SchedulerNode& node = g_.nodes[static_cast<std::size_t>(t)];
    if (!weak_only) {
      for (int pnode : node.preds)
        if (contains(sorted_from, pnode)) return true;
      continue;
    }
    for (const Dep& d : node.reads) {
      if (d.kind != DepKind::Weak) continue;
      if (contains(sorted_from, g_.writer[static_cast<std::size_t>(d.buffer)])) return true;
    }
  }
  return false;
}

std::string Fuser::whole_read(const std::vector<int>& from, const std::vector<int>& to) const {
  const std::vector<int> sorted_from = sorted_copy(from);
  for (int t : to)
    for (const Dep& d : g_.nodes[static_cast<std::size_t>(t)].reads)
      if (d.kind == DepKind::Star && contains(sorted_from, g_.writer[static_cast<std::size_t>(d.buffer)]))
        return p_[d.buffer].name;
  return {};
}

std::string Fuser::distance_violation(const std::vector<int>& producers, const std::vector<int>& consumers,
                                      std::size_t depth, const std::vector<int64_t>* refined) const {
  const std::vector<int> sorted_producers = sorted_copy(producers);
  // The loops of node v, its leading loops split as `refined` when given (`store` holds a copy).
  auto loops_of = [&](int v, NodeLoops& store) -> const NodeLoops& {
    const NodeLoops& l = loops_[static_cast<std::size_t>(v)];
    if (!refined || has_prefix(l.x, *refined)) return l;
    store = refine_prefix(l, *refined);
    return store;
  };
  // Access `k` of node v (-1: its write) at `depth`; cached while v's loops stay the same.
  NodeLoops store;
  auto access = [&](int v, int k) -> ir::CanonicalAccess {
    const SchedulerNode& node = g_.nodes[static_cast<std::size_t>(v)];
    auto index = [&] { return k < 0 ? p_[node.buffer].write_index() : node.loads[static_cast<std::size_t>(k)].index; };
    const NodeLoops& l = loops_of(v, store);
    if (&l == &store) return access_at_depth(index(), l, depth);
    auto& cache = access_cache_[static_cast<std::size_t>(v)];
    const auto key = std::make_pair(k, depth);
    auto it = cache.find(key);
    if (it == cache.end()) it = cache.emplace(key, access_at_depth(index(), l, depth)).first;
    return it->second;
  };
  for (int c : consumers) {
    const SchedulerNode& reader = g_.nodes[static_cast<std::size_t>(c)];
    for (std::size_t k = 0; k < reader.loads.size(); ++k) {
      const Access& a = reader.loads[k];
      const int w = g_.writer[static_cast<std::size_t>(a.buffer)];
      if (w < 0 || !contains(sorted_producers, w)) continue;
      const SchedulerNode& writer = g_.nodes[static_cast<std::size_t>(w)];
      const ir::CanonicalAccess written = access(w, -1);
      const ir::CanonicalAccess read = access(c, static_cast<int>(k));
      if (written == read) continue;
      return reader.name + " reads " + p_[a.buffer].name + " at " + ir::to_string(read) + " but " + writer.name +
             " writes it at " + ir::to_string(written) + ": the dependence distance over the " +
             std::to_string(depth) + " shared loop(s) is not 0 (Propositions 7.2, 7.3)";
    }
  }
  return {};
}

FusionDecision Fuser::can_fuse(int a, int b) const {
  const FusedNode& A = node(a);
  const FusedNode& B = node(b);
  STAX_ASSERT(a != b && A.alive && B.alive, "can_fuse of a node with itself or of a dead node");
  FusionDecision d;
  auto refuse = [&](Refusal r, std::string why) {
    d.ok = false;
    d.refusal = r;
    d.reason = std::move(why);
    return d;
  };
  if (std::optional<FusionDecision> e = epilogue_decision(A, B)) return *e;
  for (const FusedNode* f : {&A, &B}) {
    if (f->kind == KernelKind::Extern || f->kind == KernelKind::Epilogue)
      return refuse(Refusal::Extern, f->name + " is an extern kernel (matmul, conv) and runs on its own");
    if (f->kind == KernelKind::Scan) return refuse(Refusal::Scan, f->name + " is a scan and runs on its own");
  }
  // Cheap tests first: the direction, the peak-memory guard, the node limit.
  const bool ab = node_depends(A, B), ba = node_depends(B, A);
  if (ab && ba) return refuse(Refusal::Cycle, "each reads what the other writes");
  d.vertical = ab || ba;
  d.swap = ba || (!ab && B.min_order < A.min_order);
  const FusedNode& first = d.swap ? B : A;
  const FusedNode& second = d.swap ? A : B;
  const char* direction = d.vertical ? "vertical" : "horizontal";
  d.score.distance = std::max(std::abs(A.min_order - B.max_order), std::abs(B.min_order - A.max_order));
  if (!d.vertical && d.score.distance > opts_.max_horizontal_distance)
    return refuse(Refusal::PeakMemory, "horizontal fusion of nodes " + std::to_string(d.score.distance) +
                                           " apart would keep their buffers alive longer (at most " +
                                           std::to_string(opts_.max_horizontal_distance) + ")");
  if (d.vertical && depends(first.members, second.members, true))
    return refuse(Refusal::DependenceDistance, second.name + " must follow " + first.name +
                                                   " (WeakDep): ordering dependencies are not fused");
  if (const std::string whole = d.vertical ? whole_read(first.members, second.members) : ""; !whole.empty())
    return refuse(Refusal::DependenceDistance, second.name + " reads " + whole + " whole (StarDep, an indexed load): " +
                                                   first.name + " must have written all of it");
  const std::size_t members = A.members.size() + B.members.size();
  if (members > opts_.max_nodes)
    return refuse(Refusal::TooManyNodes, "the kernel would have " + std::to_string(members) + " nodes (at most " +
                                             std::to_string(opts_.max_nodes) + ")");

  // Shared data: dependencies of both with the same canonical index (§7.3's score).
  // Both lists are sorted by buffer first, so the shared buffers come in order.
  ir::BufferId last = -1;
  for (std::size_t i = 0, j = 0; i < A.deps.size() && j < B.deps.size();) {
    const std::strong_ordering c = A.deps[i] <=> B.deps[j];
    if (c < 0) {
      ++i;
    } else if (c > 0) {
      ++j;
    } else {
      d.score.bytes += dep_bytes(A.deps[i], p_);
      if (A.deps[i].buffer != last) ++d.score.buffers;
      last = A.deps[i].buffer;
      ++i, ++j;
    }
  }
  if (d.score.bytes < opts_.min_shared_bytes)
    return refuse(Refusal::LittleSharedData, "they share " + std::to_string(d.score.bytes) +
                                                 " bytes accessed at the same index (at least " +
                                                 std::to_string(opts_.min_shared_bytes) + ")");
  d.score.type = (A.has_reduction == B.has_reduction) ? 1 : 0;
  const std::size_t buffers = io_buffers(A, B);
  if (buffers > opts_.max_buffers)
    return refuse(Refusal::TooManyBuffers, "the kernel would read or write " + std::to_string(buffers) +
                                               " buffers in memory (at most " + std::to_string(opts_.max_buffers) + ")");

  // Definition 7.2 on CPU. Same loop nest: pointwise kernels with the same element count, the
  // coarser one split to the finer one's loops where needed.
  if (pure_pointwise(A) && pure_pointwise(B)) {
    if (std::optional<std::vector<int64_t>> refined = common_refinement(A.outer, B.outer)) {
      d.kind = KernelKind::Fused;
      d.depth = refined->size();
      d.refined = *refined;
      const bool split = A.outer != B.outer;
      const std::string why = distance_violation(first.members, second.members, d.depth, split ? &d.refined : nullptr);
      if (!why.empty()) return refuse(Refusal::DependenceDistance, why);
      d.reason = split ? "COMPATIBLE_RANGES_NO_REDUCTION, loops " + tuple_text(d.refined)
                       : "same loops " + tuple_text(d.refined);
      d.ok = true;
      return d;
    }
  }
  // Reductions with the same (n, r) and no dependence: one loop, several accumulators.
  if (pure_reduction(A) && pure_reduction(B) && !d.vertical && A.outer == B.outer &&
      A.groups[0].reduce == B.groups[0].reduce) {
    d.kind = KernelKind::Horizontal;
    d.depth = A.outer.size();
    d.reason = "SAME_VARS_REDUCE";
    d.ok = true;
    return d;
  }
  // A common outer loop (example 7.1); none at all is example 7.2's depth 0.
  std::optional<std::vector<int64_t>> outer = common_outer(A.outer, B.outer, opts_.split_pointwise && pure_pointwise(A),
                                                          opts_.split_pointwise && pure_pointwise(B));
  auto group_of = [&](const FusedNode& f) {
    return to_string(g_.nodes[static_cast<std::size_t>(f.members.front())].group);
  };
  if (!outer)
    return refuse(Refusal::IncompatibleRanges, "outer loop fusion depth 0: " + group_of(first) + " vs " +
                                                   group_of(second) + "; " + direction + " fusion refused");
  d.depth = outer->size();
  d.refined = *outer;
  const bool split = !has_prefix(A.outer, *outer) || !has_prefix(B.outer, *outer);
  const std::string why = distance_violation(first.members, second.members, d.depth, split ? &d.refined : nullptr);
  if (!why.empty()) return refuse(Refusal::DependenceDistance, why);
  d.kind = KernelKind::OuterLoopFused;
  d.reason = "outer loop fusion depth " + std::to_string(d.depth) + ", loops " + tuple_text(d.refined);
  d.ok = true;
  return d;
}

// A matmul's or a convolution's epilogue (KernelKind::Epilogue), in the way Inductor's C++ GEMM
// template takes its epilogue nodes: the GEMM calls it on each tile of the product once the
// tile is final, so the product never makes a round trip through memory by itself. Legal when
// the pointwise node is the product's only reader and reads it only at the element it writes (a
// tile's epilogue sees that tile alone), the product is no graph output, and both have one
// floating-point dtype and the product's shape ([batch..., M, N]; a convolution's [N, C, ...],
// its tiles blocks of channels x output positions) (the epilogue rewrites the tile in place);
// the node cannot fail (the GEMM has no error path). Ranked with same-kind pairs (type 1), by
// the bytes of the product.
std::optional<FusionDecision> Fuser::epilogue_decision(const FusedNode& A, const FusedNode& B) const {
  const bool ae = A.kind == KernelKind::Extern && B.kind == KernelKind::Pointwise;
  const bool be = B.kind == KernelKind::Extern && A.kind == KernelKind::Pointwise;
  if (!ae && !be) return std::nullopt;
  const FusedNode& E = ae ? A : B;
  const FusedNode& Q = ae ? B : A;
  const int qn = Q.members.front();
  const ir::Buffer& eb = p_[g_.nodes[static_cast<std::size_t>(E.members.front())].buffer];
  const ir::Buffer& qb = p_[g_.nodes[static_cast<std::size_t>(qn)].buffer];
  FusionDecision d;
  d.refusal = Refusal::Extern;
  const bool conv = eb.extern_op == ir::ExternOp::Conv;
  auto refuse = [&](const std::string& why) {
    d.reason = E.name + " is an extern kernel (" + (conv ? "conv" : "matmul") + "); " + Q.name +
               " is no epilogue of it: " + why;
    return d;
  };
  if (!opts_.epilogues) return refuse("epilogues are off (the chapter's rules)");
  const std::vector<int>& readers = readers_[static_cast<std::size_t>(eb.id)];
  if (readers.size() != 1 || readers.front() != qn) return refuse("it is not the product's only reader");
  if (is_output_[static_cast<std::size_t>(eb.id)]) return refuse("the product is a graph output");
  if (!is_floating(eb.dtype) || qb.dtype != eb.dtype) return refuse("the GEMM's epilogue keeps one floating-point dtype");
  if (qb.shape != eb.shape || (!conv && eb.shape.size() != eb.matmul.batch.size() + 2))
    return refuse(conv ? "its shape is not the convolution's output" : "its shape is not the product's [batch..., M, N]");
  if (ir::may_fail(qb.body)) return refuse("it may fail, and the GEMM has no error path");
  // Dims of size 1 index nothing (a batch of one image): compared with their variables at 0.
  std::map<ir::Var, ir::Index> unit;
  for (std::size_t d = 0; d < qb.shape.size(); ++d)
    if (qb.shape[d] == 1) unit[ir::xvar(static_cast<int32_t>(d))] = ir::Index::constant(0);
  const ir::Index written = ir::substitute(qb.write_index(), unit);
  for (const ir::LoadRef& l : ir::collect_loads(qb.body))
    if (l.buffer == eb.id && !(ir::substitute(l.index, unit) == written))
      return refuse("it reads the product at " + ir::to_string(l.index) + ", not at the element it writes");
  d.ok = true;
  d.kind = KernelKind::Epilogue;
  d.vertical = true;
  d.swap = be;
  d.score.type = 1;
  d.score.bytes = 2 * static_cast<uint64_t>(eb.numel()) * dtype_size(eb.dtype);
  d.score.buffers = 1;
  d.score.distance = std::abs(Q.min_order - E.max_order);
  d.reason = "GEMM_EPILOGUE: " + Q.name + " runs on each tile of " + E.name + (conv ? "'s convolution" : "'s product");
  return d;
}

std::vector<int> Fuser::reachable_between(int from, int to, bool& reaches_to) const {
  reaches_to = false;
  const int limit = place_[static_cast<std::size_t>(to)];
  if (visit_.size() < nodes_.size()) visit_.resize(nodes_.size(), 0);
  const uint32_t stamp = ++visit_stamp_;
  std::vector<int> found, stack{from};
  while (!stack.empty()) {
    const int x = stack.back();
    stack.pop_back();
    for (int m : node(x).members)
      for (int u : g_.nodes[static_cast<std::size_t>(m)].users) {
        const int h = holder_[static_cast<std::size_t>(u)];
        if (h == x || visit_[static_cast<std::size_t>(h)] == stamp) continue;
        if (h == to) {
          if (x != from) reaches_to = true;
          continue;
        }
        // Later than `to` in a topological order: no path from there leads back to it.
        if (place_[static_cast<std::size_t>(h)] > limit) continue;
        visit_[static_cast<std::size_t>(h)] = stamp;
        found.push_back(h);
        stack.push_back(h);
      }
  }
  std::sort(found.begin(), found.end(), [&](int x, int y) { return place_[static_cast<std::size_t>(x)] < place_[static_cast<std::size_t>(y)]; });
  return found;
}

bool Fuser::would_create_cycle(int a, int b) const {
  // Only a path from the earlier of the two to the later one can pass through a third node.
  const bool a_first = place_[static_cast<std::size_t>(a)] < place_[static_cast<std::size_t>(b)];
  bool cycle = false;
  reachable_between(a_first ? a : b, a_first ? b : a, cycle);
  return cycle;
}

void Fuser::place_merged(int a, int b, int merged) {
  // Between the two in order_, the nodes reachable from the earlier one (D) must follow the
  // merged node and the others (the rest of the span, the later one's predecessors among them)
  // precede it: the span becomes [span - D, merged, D], its empty places last. No node of D
  // reaches one outside D in the span (it would be in D), so the order stays topological.
  const bool a_first = place_[static_cast<std::size_t>(a)] < place_[static_cast<std::size_t>(b)];
  const int lo = a_first ? a : b, hi = a_first ? b : a;
  bool cycle = false;
  const std::vector<int> after = reachable_between(lo, hi, cycle);
  STAX_ASSERT(!cycle, "fuse: the merge closes a cycle (Proposition 7.1)");
  const auto first = static_cast<std::size_t>(place_[static_cast<std::size_t>(lo)]);
  const auto last = static_cast<std::size_t>(place_[static_cast<std::size_t>(hi)]);
  const uint32_t stamp = visit_stamp_;  // reachable_between's marks: the nodes of `after`
  std::vector<int> span;
  for (std::size_t i = first + 1; i < last; ++i) {
    const int x = order_[i];
    if (x >= 0 && visit_[static_cast<std::size_t>(x)] != stamp) span.push_back(x);
  }
  span.push_back(merged);
  span.insert(span.end(), after.begin(), after.end());
  span.resize(last - first + 1, -1);  // the places left empty (this merge's, earlier ones')
  if (place_.size() <= static_cast<std::size_t>(merged)) place_.resize(static_cast<std::size_t>(merged) + 1, -1);
  for (std::size_t i = first; i <= last; ++i) {
    const int x = span[i - first];
    order_[i] = x;
    if (x >= 0) place_[static_cast<std::size_t>(x)] = static_cast<int>(i);
  }
  place_[static_cast<std::size_t>(a)] = place_[static_cast<std::size_t>(b)] = -1;
}

int Fuser::fuse(int a, int b, const FusionDecision& d) {
  STAX_ASSERT(d.ok, "fuse without a positive decision");
  const FusedNode& first = node(d.swap ? b : a);
  const FusedNode& second = node(d.swap ? a : b);
  FusedNode m;
  m.id = static_cast<int>(nodes_.size());
  m.name = first.name + "_" + second.name;
  m.members = first.members;
  m.members.insert(m.members.end(), second.members.begin(), second.members.end());
  m.deps = sorted_union(first.deps, second.deps);
  m.buffers = sorted_union(first.buffers, second.buffers);
  m.min_order = std::min(first.min_order, second.min_order);
  m.max_order = std::max(first.max_order, second.max_order);
  m.has_reduction = first.has_reduction || second.has_reduction;

  switch (d.kind) {
    case KernelKind::Fused:
      for (int v : m.members) {
        if (loops_[static_cast<std::size_t>(v)].x == d.refined) continue;
        loops_[static_cast<std::size_t>(v)] = refine_prefix(loops_[static_cast<std::size_t>(v)], d.refined);
        access_cache_[static_cast<std::size_t>(v)].clear();
      }
      m.outer = d.refined;
      m.groups.push_back(LoopGroup{{}, {}, m.members, false});
      break;
    case KernelKind::Horizontal:
      m.outer = first.outer;
      m.groups.push_back(LoopGroup{{}, first.groups[0].reduce, m.members, true});
      break;
    case KernelKind::OuterLoopFused: {
      m.outer = d.refined;
      for (int v : m.members) {
        NodeLoops& l = loops_[static_cast<std::size_t>(v)];
        if (has_prefix(l.x, d.refined)) continue;
        l = refine_prefix(l, d.refined);
        access_cache_[static_cast<std::size_t>(v)].clear();
      }
      // The loops below the common ones move into each group (a pointwise kernel's loop across
      // the boundary split first).
      for (const FusedNode* f : {&first, &second}) {
        const std::vector<int64_t> outer = split_at(f->outer, product(d.refined)).value_or(f->outer);
        const std::size_t k = prefix_length(outer, product(d.refined));
        STAX_ASSERT(k <= outer.size(), "fuse: the common outer loops are no prefix of a kernel's");
        const std::vector<int64_t> moved(outer.begin() + static_cast<std::ptrdiff_t>(k), outer.end());
        for (LoopGroup grp : f->groups) {
          grp.inner.insert(grp.inner.begin(), moved.begin(), moved.end());
          m.groups.push_back(std::move(grp));
        }
      }
      // The last group of the first and the first of the second share their loops when they run
      // the same loops and that is legal: pointwise at distance 0 over all of them, reductions
      // independent of each other.
      const std::size_t at = first.groups.size();
      LoopGroup& g1 = m.groups[at - 1];
      const LoopGroup& g2 = m.groups[at];
      bool share = g1.reduction == g2.reduction && g1.inner == g2.inner && g1.reduce == g2.reduce;
      if (share && g1.reduction) share = !depends(g1.nodes, g2.nodes);
      if (share && !g1.reduction) share = distance_violation(g1.nodes, g2.nodes, d.depth + g1.inner.size(), nullptr).empty();
      if (share) {
        g1.nodes.insert(g1.nodes.end(), g2.nodes.begin(), g2.nodes.end());
        m.groups.erase(m.groups.begin() + static_cast<std::ptrdiff_t>(at));
      }
      break;
    }
    case KernelKind::Epilogue: {
      // The epilogue runs on the product's tiles: over its own dims [batch..., M, N], unmerged.
      const int q = second.members.front();
      const ir::Buffer& qb = p_[g_.nodes[static_cast<std::size_t>(q)].buffer];
      NodeLoops own;
      own.x = qb.shape;
      for (std::size_t d = 0; d < qb.shape.size(); ++d) {
        const ir::Var v = ir::xvar(static_cast<int32_t>(d));
        own.reindex[v] = ir::Index::var(v);
      }
      loops_[static_cast<std::size_t>(q)] = std::move(own);
      access_cache_[static_cast<std::size_t>(q)].clear();
      m.outer = qb.shape;
      m.groups = {LoopGroup{{}, {}, {q}, false}};
      m.kind = KernelKind::Epilogue;
      break;
    }
    case KernelKind::Pointwise:
    case KernelKind::Reduction:
    case KernelKind::Scan:
    case KernelKind::Extern: STAX_ASSERT(false, "fuse: a decision of a single-node kind");
  }
  if (d.kind == KernelKind::Epilogue) {
    // The epilogue's loops stay its own: the GEMM's tiles run them.
  } else if (m.groups.size() == 1) {
    // One group: all its loops are shared by every node.
    LoopGroup& grp = m.groups[0];
    m.outer.insert(m.outer.end(), grp.inner.begin(), grp.inner.end());
    grp.inner.clear();
    m.kind = grp.reduction ? KernelKind::Horizontal : KernelKind::Fused;
  } else {
    m.kind = KernelKind::OuterLoopFused;
  }

  place_merged(a, b, m.id);
  nodes_[static_cast<std::size_t>(a)].alive = false;
  nodes_[static_cast<std::size_t>(b)].alive = false;
  for (int v : m.members) holder_[static_cast<std::size_t>(v)] = m.id;
  nodes_.push_back(std::move(m));
  visit_.push_back(0);
  return nodes_.back().id;
}

}  // namespace stax::scheduler
