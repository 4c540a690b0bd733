#include "kernel_emitter.h"

#include <algorithm>

#include "body_emitter.h"
#include "stax/codegen/literals.h"
#include "stax/ir/simplify.h"
#include "stax/kernelplan/access.h"
#include "stax/support/error.h"

namespace stax::codegen {

using ir::BufferId;
using ir::Index;
using ir::Var;
using kernelplan::Residence;
using scheduler::KernelNode;

std::string loop_head(const std::string& var, int64_t size) {
  return "for (int64_t " + var + " = 0; " + var + " < " + std::to_string(size) + "; ++" + var + ")";
}

void close_loops(CodeWriter& out, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) out.close();
}

std::string join(const std::vector<std::string>& parts, const std::string& sep) {
  std::string s;
  for (std::size_t i = 0; i < parts.size(); ++i) s += (i ? sep : "") + parts[i];
  return s;
}

KernelEmitter::KernelEmitter(const ir::Program& program, const scheduler::Kernel& kernel,
                             const kernelplan::KernelPlan& kernel_plan, const std::vector<std::string>& names,
                             const std::string& isa_tag, std::set<std::string>& sections)
    : p(program), k(kernel), plan(kernel_plan), names_(names), tag_(isa_tag), sections_(sections) {
  sections_.insert("core");
  // Row-local arrays: one outer iteration's slab, private to the thread running it.
  for (const KernelNode& n : k.nodes)
    if (in_row(n.buffer)) slabs_.emplace(n.buffer, kernelplan::slab_start(k, n));
  for (std::size_t i = 0; i < plan.tiles.size(); ++i) tiles_[{plan.tiles[i].buffer, plan.tiles[i].at}] = i;
}

Residence KernelEmitter::where(BufferId id) const {
  const kernelplan::BufferUse* u = plan.use(id);
  return u == nullptr ? Residence::Workspace : u->where;
}

std::size_t KernelEmitter::parallel_depth() const {
  return plan.parallel == kernelplan::Parallel::Serial ? 0 : plan.parallel_depth;
}

namespace {

std::string for_clauses(std::size_t collapse, bool fallible) {
  std::string clauses;
  if (collapse > 1) clauses += " collapse(" + std::to_string(collapse) + ")";
  clauses += " schedule(static)";
  if (fallible) clauses += " reduction(|:err)";
  return clauses;
}

}  // namespace

std::string KernelEmitter::parallel_pragma(std::size_t collapse) const {
  const bool shared = plan.parallel == kernelplan::Parallel::Shared;
  std::string pragma = std::string(shared ? "#pragma omp for" : "#pragma omp parallel for") + for_clauses(collapse, plan.fallible);
  if (plan.parallel == kernelplan::Parallel::Standalone)
    pragma += " if (" + std::to_string(plan.work) + " >= " + std::to_string(kernelplan::kMinChunk) +
              " * static_cast<int64_t>(omp_get_max_threads()))";
  return pragma;
}

void KernelEmitter::parallel_loops(CodeWriter& w, std::size_t collapse, const std::function<void(CodeWriter&)>& loops) {
  const bool streams = plan.stream || std::any_of(plan.groups.begin(), plan.groups.end(),
                                                  [](const kernelplan::GroupPlan& g) { return g.stream.has_value(); });
  // A standalone region is a fallible kernel's (its error flag reduced at the loop's end) or a
  // single block's, far below a streamed size: those keep a fence after each streamed loop.
  if (!streams || plan.parallel == kernelplan::Parallel::Standalone) {
    if (collapse > 0) w.raw(parallel_pragma(collapse));
    loops(w);
    return;
  }
  const char* fence = "stax_rt::stream_fence();  // once per thread, after all its streamed stores";
  fence_hoisted_ = true;
  if (collapse == 0 || plan.parallel == kernelplan::Parallel::Serial) {
    loops(w);
    w.line(fence);
  } else {
    w.raw("#pragma omp for" + for_clauses(collapse, plan.fallible) + " nowait");
    loops(w);
    w.line(fence);
    w.raw("#pragma omp barrier");
  }
  fence_hoisted_ = false;
}

// The index of an access of node n to a row-local buffer: its part inside the slab.
std::string KernelEmitter::row_index(const KernelNode& n, BufferId id, const Index& e) const {
  const std::optional<Index> part = kernelplan::row_part(k, n, kernelplan::kernel_index(n, e), slabs_.at(id));
  STAX_ASSERT(part.has_value(), "row-local access outside its slab: " + p[id].name);
  return bare(index_cxx(*part));
}

std::string KernelEmitter::store_index(const KernelNode& n) const {
  if (in_row(n.buffer)) return row_index(n, n.buffer, p[n.buffer].write_index());
  return bare(index_cxx(kernelplan::kernel_index(n, p[n.buffer].write_index())));
}

std::optional<std::string> KernelEmitter::tile_of(const KernelNode& n, BufferId id, const Index& e) const {
  if (tiles_.empty()) return std::nullopt;
  auto it = tiles_.find({id, kernelplan::kernel_index(n, e)});
  if (it == tiles_.end()) return std::nullopt;
  return tile_name(it->second);
}

void KernelEmitter::store_value(CodeWriter& w, const KernelNode& n, const std::string& value) const {
  if (in_register(n.buffer)) w.line("const " + cxx_type(p[n.buffer].dtype) + " " + name(n.buffer) + " = " + value + ";");
  else w.line(name(n.buffer) + "[" + store_index(n) + "] = " + value + ";");
}

std::string KernelEmitter::local_text(const KernelNode& n, BufferId id, const Index& e) const {
  if (const std::optional<std::string> tile = tile_of(n, id, e)) return *tile + "[" + tile_at_ + "]";
  if (in_register(id)) return name(id);
  if (in_row(id)) return name(id) + "[" + row_index(n, id, e) + "]";
  return std::string();
}

std::string KernelEmitter::emit_body(const KernelNode& n, CodeWriter& w) {
  auto index_text = [&n](const Index& e) { return index_cxx(kernelplan::kernel_index(n, e)); };
  auto buffer_name = [this](BufferId id) { return name(id); };
  BodyEmitter body(buffer_name, index_text, sections_, temps_);
  body.set_local_loads([this, &n](BufferId id, const Index& e) { return local_text(n, id, e); });
  return bare(body.emit(p[n.buffer].body, w));
}

VecBodyEmitter KernelEmitter::vec_emitter(const KernelNode& n, Var var) {
  auto index_text = [&n](const Index& e) { return index_cxx(kernelplan::kernel_index(n, e)); };
  // A tiled load reads its tile contiguously along `var`.
  auto rewrite = [&n, this, var](const Index& e) {
    const Index at = kernelplan::kernel_index(n, e);
    for (const auto& [key, tile] : tiles_)
      if (key.second == at) return Index::var(var);
    return at;
  };
  auto buffer_name = [this](BufferId id) { return name(id); };
  VecBodyEmitter body(buffer_name, index_text, rewrite, var, kIsa, sections_, temps_);
  body.set_local_loads([this](BufferId id, const Index&) { return in_register(id) ? name(id) : std::string(); });
  body.set_load_address([this, &n](BufferId id, const Index& e) -> std::optional<std::pair<std::string, std::string>> {
    if (const std::optional<std::string> tile = tile_of(n, id, e)) return std::pair<std::string, std::string>{*tile, tile_at_};
    if (!in_row(id)) return std::nullopt;
    return std::pair<std::string, std::string>{name(id), row_index(n, id, e)};
  });
  return body;
}

void KernelEmitter::pointwise_nodes(const std::vector<int>& nodes, CodeWriter& w, const Var* vec_var,
                                    const std::string& live) {
  for (int idx : nodes) {
    const KernelNode& n = node(idx);
    const DType dt = p[n.buffer].dtype;
    const std::string ptr = in_register(n.buffer) ? std::string() : name(n.buffer) + " + (" + store_index(n) + ")";
    if (vec_var != nullptr) {
      VecBodyEmitter body = vec_emitter(n, *vec_var);
      const std::string v = body.emit(p[n.buffer].body, w, live);  // parenthesized: `v.storeu` follows
      if (in_register(n.buffer)) w.line("const auto " + name(n.buffer) + " = " + v + ";");
      else w.line(streaming_ ? vec_stream(v, ptr) : vec_store(dt, v, ptr, live));
      continue;
    }
    store_value(w, n, emit_body(n, w));
  }
}

void KernelEmitter::strip_mined(CodeWriter& w, const std::string& var, const std::string& begin, const std::string& end,
                                const Body& vector_body, const Body& scalar_body) {
  // Bounds the C++ compiler can see through (a loop variable carried from the vector loop into
  // the remainder draws false -Waggressive-loop-optimizations warnings at -O3).
  const std::string vend = begin == "0" ? end + " / W * W" : begin + " + (" + end + " - " + begin + ") / W * W";
  w.open("for (int64_t " + var + " = " + begin + "; " + var + " < " + vend + "; " + var + " += W)");
  vector_body(w);
  w.close();
  w.open("for (int64_t " + var + " = " + vend + "; " + var + " < " + end + "; ++" + var + ")");
  scalar_body(w);
  w.close();
}

void KernelEmitter::streamed_loop(CodeWriter& w, const kernelplan::Stream& st, const std::string& vname,
                                  const std::string& begin, const std::string& end, const Body& vector_body,
                                  const Body& scalar_body, bool fence) {
  const std::string& buffer = name(node(st.node).buffer);
  const std::string ptr = buffer + (st.base.is_const(0) ? "" : " + (" + bare(index_cxx(st.base)) + ")");
  if (begin == "0") w.line("const int64_t s0 = stax_rt::aligned_start(" + ptr + ", " + end + ");");
  else
    w.line("const int64_t s0 = " + begin + " + stax_rt::aligned_start(" + ptr + " + " + begin + ", " + end + " - " +
           begin + ");");
  w.open("for (int64_t " + vname + " = " + begin + "; " + vname + " < s0; ++" + vname + ")");
  scalar_body(w);
  w.close();
  streaming_ = true;
  strip_mined(w, vname, "s0", end, vector_body, scalar_body);
  streaming_ = false;
  if (fence && !fence_hoisted_) w.line("stax_rt::stream_fence();");
}

std::string KernelEmitter::prefetch_address(const kernelplan::Prefetch& f, const std::string& count) const {
  return name(f.buffer) + " + (" + bare(index_cxx(f.at)) + ") + " + count + " * " +
         (f.stride < 0 ? "(" + std::to_string(f.stride) + ")" : std::to_string(f.stride));
}

std::string KernelEmitter::position_text(const KernelNode& n) const {
  return index_cxx(kernelplan::kernel_index(n, kernelplan::reduction_position(p[n.buffer])));
}

// Iota along the reduction loop, one broadcast position across the columns of a column reduction.
std::string KernelEmitter::lane_positions(const KernelNode& n, Var var, DType dt, CodeWriter& w) {
  VecBodyEmitter body = vec_emitter(n, var);
  return bare(body.emit(ir::index_value(kernelplan::reduction_position(p[n.buffer]), dt), w));
}

// Declared where the group begins; the vector form keeps W lane accumulators per node, combined
// after the loops (Proposition 8.1); float32 sums and products in float64 lanes, argmax/argmin in
// stax_rt::ArgLanes.
GroupAccumulators KernelEmitter::declare_accumulators(CodeWriter& w, const kernelplan::GroupPlan& gp) {
  const scheduler::LoopGroup& g = k.loop_groups[static_cast<std::size_t>(gp.group)];
  GroupAccumulators ga{&g, &gp, {}, {}, {}};
  for (int idx : g.nodes) {
    const ir::Buffer& b = p[node(idx).buffer];
    if (b.reduce_op == ir::ReduceOp::ArgMax || b.reduce_op == ir::ReduceOp::ArgMin) sections_.insert("reduce");
    ga.accs.push_back(reduction_accumulator(b.reduce_op, b.dtype, b.body.dtype()));
    ga.names.push_back("acc" + std::to_string(idx));
    w.line(ga.accs.back().type + " " + ga.names.back() + " = " + ga.accs.back().init + ";");
  }
  if (!gp.vector) return ga;
  for (int idx : g.nodes) {
    std::optional<VecAccumulator> va = vec_accumulator(p[node(idx).buffer], kIsa);
    STAX_ASSERT(va.has_value(), "a vector reduction group without a vector accumulator");
    ga.vaccs.push_back(*va);
  }
  for (std::size_t j = 0; j < g.nodes.size(); ++j)
    w.line(ga.vaccs[j].type + " v" + ga.names[j] + "(" + ga.vaccs[j].init + ");");
  return ga;
}

void KernelEmitter::scalar_updates(CodeWriter& w, const GroupAccumulators& ga) {
  for (std::size_t j = 0; j < ga.group->nodes.size(); ++j) {
    const KernelNode& n = node(ga.group->nodes[j]);
    const std::string v = emit_body(n, w);
    w.line(fill(rename_acc(ga.accs[j].update, ga.names[j]), v, position_text(n)));
  }
}

void KernelEmitter::vector_updates(CodeWriter& w, const GroupAccumulators& ga) {
  for (std::size_t j = 0; j < ga.group->nodes.size(); ++j) {
    const KernelNode& n = node(ga.group->nodes[j]);
    VecBodyEmitter body = vec_emitter(n, ga.plan->var);
    const std::string v = bare(body.emit(p[n.buffer].body, w));  // an argument
    const std::string pos = ga.vaccs[j].position ? lane_positions(n, ga.plan->var, *ga.vaccs[j].position, w) : "";
    w.line(fill(rename_acc(ga.vaccs[j].update, "v" + ga.names[j]), v, pos));
  }
}

// After the reduction loops: the lanes combined, the results stored or kept.
void KernelEmitter::finish_accumulators(CodeWriter& w, const GroupAccumulators& ga) {
  if (ga.plan->vector)
    for (std::size_t j = 0; j < ga.group->nodes.size(); ++j)
      w.line(fill(rename_acc(ga.vaccs[j].combine, ga.names[j]), "v" + ga.names[j]));
  for (std::size_t j = 0; j < ga.group->nodes.size(); ++j)
    store_value(w, node(ga.group->nodes[j]), rename_acc(ga.accs[j].result, ga.names[j]));
}

std::string KernelEmitter::node_summary(const KernelNode& n) const {
  const ir::Buffer& b = p[n.buffer];
  const std::string what = b.kind == ir::BufferKind::Reduction ? "reduction " + std::string(ir::reduce_op_name(b.reduce_op))
                           : b.kind == ir::BufferKind::Extern  ? std::string(ir::extern_op_name(b.extern_op))
                                                                : std::string("pointwise");
  const std::string place = where(n.buffer) == Residence::Product ? " (written into " + name(n.buffer) + ")"
                            : in_register(n.buffer)                 ? " (kept in a local)"
                            : in_row(n.buffer)     ? " (one row at a time, kept in a local array)"
                                                   : "";
  return n.name + " " + b.name + ": " + std::string(dtype_name(b.dtype)) + shape_str(b.shape) + ", " + what +
         "; computes " + join(b.origins, ", ") + place;
}

KernelCode KernelEmitter::finish(const std::string& function, const std::string& loops) const {
  KernelCode code;
  code.function = function;
  code.fallible = plan.fallible;
  code.params = plan.params;
  std::vector<std::string> params;
  for (BufferId id : plan.params) {
    const bool written = std::find_if(k.nodes.begin(), k.nodes.end(), [id](const KernelNode& n) { return n.buffer == id; }) !=
                         k.nodes.end();
    params.push_back(std::string(written ? "" : "const ") + cxx_type(p[id].dtype) + "* " + name(id));
  }
  CodeWriter out;
  out.line("// kernel " + k.name + " (" + std::string(scheduler::kernel_kind_name(k.kind)) + "): computes " +
           join(k.graph_nodes, ", "));
  for (const KernelNode& n : k.nodes) out.line("//   " + node_summary(n));
  out.open(std::string(plan.fallible ? "int " : "void ") + function + "(" + join(params, ", ") + ")");
  if (plan.fallible) out.line("int err = 0;");
  if (plan.vectorized()) {
    out.line(std::string("using ISA = ") + tag_ + ";");
    out.line("constexpr int64_t W = ISA::width;  // lanes per vector");
  }
  out.append(loops);
  if (plan.fallible) out.line("return err;");
  out.close();
  code.text = out.str();
  return code;
}

}  // namespace stax::codegen
