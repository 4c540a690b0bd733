// The row-groups form (listing 7.1), and the scalar form (the same with no vector loop): the
// kernel's outer loops, the row-local arrays of one outer iteration, then each loop group in turn
// inside them; a pointwise group's innermost loop vectorized (§8.1) when the plan says so, with a
// reduction it absorbs updated in the same loop, the thread's next row prefetched and a large
// output streamed as planned; a reduction group's accumulators declared before its loops and
// combined after them (Proposition 8.1).
#include "emit_forms.h"

#include "stax/codegen/literals.h"
#include "stax/kernelplan/access.h"

namespace stax::codegen {

namespace {

// The vector loop of a reduction in gp.chains independent chains (kernelplan::kChains): whole
// groups of that many vectors, vector c of each updating chain c, then the rest one vector at a
// time into chain 0 and one element at a time; the chains then combined into chain 0.
void chained_updates(KernelEmitter& e, CodeWriter& w, const kernelplan::GroupPlan& gp, const GroupAccumulators& ga) {
  const std::string r = ir::var_name(gp.var), rc = r + "c", trip = std::to_string(gp.trip);
  const std::string step = std::to_string(gp.chains) + " * W";
  std::vector<GroupAccumulators> chains(static_cast<std::size_t>(gp.chains), ga);
  for (std::size_t c = 1; c < chains.size(); ++c)
    for (std::size_t j = 0; j < ga.names.size(); ++j) {
      chains[c].names[j] = ga.names[j] + "_" + std::to_string(c);
      w.line(ga.vaccs[j].type + " v" + chains[c].names[j] + "(" + ga.vaccs[j].init + ");");
    }
  const std::string whole = r + "_whole";
  w.line("constexpr int64_t " + whole + " = " + trip + " / (" + step + ") * (" + step + ");  // in whole groups of " +
         std::to_string(gp.chains) + " vectors");
  w.open("for (int64_t " + rc + " = 0; " + rc + " < " + whole + "; " + rc + " += " + step + ")");
  for (std::size_t c = 0; c < chains.size(); ++c) {
    w.open("");
    w.line("const int64_t " + r + " = " + rc + (c == 0 ? "" : c == 1 ? " + W" : " + " + std::to_string(c) + " * W") + ";");
    e.vector_updates(w, chains[c]);
    w.close();
  }
  w.close();
  e.strip_mined(
      w, r, whole, trip, [&](CodeWriter& vw) { e.vector_updates(vw, ga); }, [&](CodeWriter& sw) { e.scalar_updates(sw, ga); });
  for (std::size_t c = 1; c < chains.size(); ++c)
    for (std::size_t j = 0; j < ga.names.size(); ++j)
      w.line(fill(rename_acc(ga.vaccs[j].update, "v" + ga.names[j]), "v" + chains[c].names[j]));
}

// A reduction group at one point of the outer loops: its inner loops, the accumulators, the
// innermost reduction loop in vector form when planned so, the results stored or kept.
void reduction_group(KernelEmitter& e, CodeWriter& w, const kernelplan::GroupPlan& gp) {
  const scheduler::LoopGroup& g = e.k.loop_groups[static_cast<std::size_t>(gp.group)];
  for (std::size_t i = 0; i < g.inner.size(); ++i) w.open(loop_head("x" + std::to_string(e.depth() + i), g.inner[i]));
  const GroupAccumulators ga = e.declare_accumulators(w, gp);
  const std::size_t plain = gp.vector ? g.reduce.size() - 1 : g.reduce.size();
  for (std::size_t i = 0; i < plain; ++i) w.open(loop_head("r" + std::to_string(i), g.reduce[i]));
  if (gp.vector && gp.chains > 1)
    chained_updates(e, w, gp, ga);
  else if (gp.vector)
    e.strip_mined(
        w, ir::var_name(gp.var), "0", std::to_string(gp.trip), [&](CodeWriter& vw) { e.vector_updates(vw, ga); },
        [&](CodeWriter& sw) { e.scalar_updates(sw, ga); });
  else
    e.scalar_updates(w, ga);
  close_loops(w, plain);
  e.finish_accumulators(w, ga);
  close_loops(w, g.inner.size());
}

// A vector pointwise group's innermost loop; `next`: the reduction group it absorbs, or null.
void vector_group(KernelEmitter& e, CodeWriter& w, const kernelplan::GroupPlan& gp, const kernelplan::GroupPlan* next) {
  const scheduler::LoopGroup& g = e.k.loop_groups[static_cast<std::size_t>(gp.group)];
  std::optional<GroupAccumulators> ga;
  if (next) ga = e.declare_accumulators(w, *next);
  if (!gp.prefetches.empty()) {
    const int64_t rows = e.k.outer[e.depth() - 1];
    w.line("const int64_t next = x" + std::to_string(e.depth() - 1) + " + 1 < " + std::to_string(rows) +
           " ? 1 : 0;  // the row prefetched");
  }
  // The absorbed reduction's body is written on its own variable, here the element's.
  const std::string at = "const int64_t " + ir::var_name(ir::rvar(0)) + " = " + ir::var_name(gp.var) + ";";
  auto vector_body = [&](CodeWriter& vw) {
    for (const kernelplan::Prefetch& f : gp.prefetches) vw.line("__builtin_prefetch(" + e.prefetch_address(f, "next") + ", 0, 2);");
    e.pointwise_nodes(g.nodes, vw, &gp.var);
    if (ga) {
      vw.line(at);
      e.vector_updates(vw, *ga);
    }
  };
  auto scalar_body = [&](CodeWriter& sw) {
    e.pointwise_nodes(g.nodes, sw, nullptr);
    if (ga) {
      sw.line(at);
      e.scalar_updates(sw, *ga);
    }
  };
  const std::string v = ir::var_name(gp.var), trip = std::to_string(gp.trip);
  if (gp.stream) e.streamed_loop(w, *gp.stream, v, "0", trip, vector_body, scalar_body);
  else e.strip_mined(w, v, "0", trip, vector_body, scalar_body);
  if (ga) e.finish_accumulators(w, *ga);
}

// The outer loops, the row-local arrays, each loop group in turn.
void row_group_loops(KernelEmitter& e, CodeWriter& loops) {
  const std::size_t depth = e.depth();
  for (std::size_t i = 0; i < depth; ++i) loops.open(loop_head("x" + std::to_string(i), e.k.outer[i]));
  for (const scheduler::KernelNode& n : e.k.nodes)
    if (e.in_row(n.buffer))
      loops.line("alignas(64) " + cxx_type(e.p[n.buffer].dtype) + " " + e.name(n.buffer) + "[" +
                 std::to_string(kernelplan::product(e.k.loop_groups[static_cast<std::size_t>(n.loop_group)].inner)) + "];");
  const std::vector<kernelplan::GroupPlan>& groups = e.plan.groups;
  for (std::size_t i = 0; i < groups.size(); ++i) {
    const kernelplan::GroupPlan& gp = groups[i];
    const scheduler::LoopGroup& g = e.k.loop_groups[static_cast<std::size_t>(gp.group)];
    if (g.reduction) {
      reduction_group(e, loops, gp);
      continue;
    }
    const std::size_t plain = gp.vector ? g.inner.size() - 1 : g.inner.size();
    for (std::size_t j = 0; j < plain; ++j) loops.open(loop_head("x" + std::to_string(depth + j), g.inner[j]));
    if (gp.vector) vector_group(e, loops, gp, gp.absorbs_next ? &groups[++i] : nullptr);
    else e.pointwise_nodes(g.nodes, loops, nullptr);
    close_loops(loops, plain);
  }
  close_loops(loops, depth);
}

}  // namespace

void emit_row_groups(KernelEmitter& e, CodeWriter& loops) {
  e.parallel_loops(loops, e.parallel_depth(), [&](CodeWriter& w) { row_group_loops(e, w); });
}

}  // namespace stax::codegen
