// The column-reduction form (§8.1's reductions across the contiguous dimension): a reduction
// over a non-innermost dimension (a column sum) reads with a stride along its reduction loop, so
// the lanes run across the contiguous outer loop instead, one accumulator per output element.
// Columns go in blocks of kColumnBlock: one accumulator per column in an array that stays in L1,
// each row's piece of the block read contiguously and added W columns at a time (rows stream
// through in order; no strided reads). Blocks are the parallel loop when the columns are the
// only outer loop. A pointwise group after the reduction (a mean's division) runs on each
// column's result as the block is finished. A reduction over a small window (a pool) takes
// emit_window.cpp's loops.
#include "emit_forms.h"

#include "body_emitter.h"

namespace stax::codegen {

namespace {

struct Columns {
  KernelEmitter& e;
  const scheduler::LoopGroup& group;
  std::vector<ColumnAccumulator> accs;
  ir::Var var;
  std::string v;

  std::string acc(std::size_t j) const { return "vacc" + std::to_string(group.nodes[j]); }

  // The unmasked loads whose rows' pieces are not adjacent, each fetched `ahead` rows further on
  // (0 near the last row: the address stays inside the operand).
  void prefetch_distance(CodeWriter& w) const {
    if (e.plan.column_prefetches.empty()) return;
    const std::string r = "r" + std::to_string(group.reduce.size() - 1);
    const std::string ahead = std::to_string(e.plan.prefetch_ahead);
    w.line("const int64_t ahead = " + r + " + " + ahead + " < " + std::to_string(group.reduce.back()) + " ? " + ahead +
           " : 0;  // rows prefetched ahead");
  }

  void vector_update(CodeWriter& w, const std::string& col) {
    for (const kernelplan::Prefetch& f : e.plan.column_prefetches)
      w.line("__builtin_prefetch(" + e.prefetch_address(f, "ahead") + ");");
    for (std::size_t j = 0; j < group.nodes.size(); ++j) {
      const scheduler::KernelNode& node = e.node(group.nodes[j]);
      const ColumnAccumulator& ca = accs[j];
      const std::string lanes = e.new_temp();
      w.line(ca.lanes.type + " " + lanes + " = " + fill(rename_acc(ca.load, acc(j)), "", "", col) + ";");
      VecBodyEmitter body = e.vec_emitter(node, var);
      const std::string value = bare(body.emit(e.p[node.buffer].body, w));
      const std::string pos = ca.lanes.position ? e.lane_positions(node, var, *ca.lanes.position, w) : "";
      w.line(fill(rename_acc(ca.lanes.update, lanes), value, pos));
      w.line(fill(rename_acc(ca.store, acc(j)), lanes, "", col));
    }
  }

  void scalar_update(CodeWriter& w, const std::string& col) {
    for (std::size_t j = 0; j < group.nodes.size(); ++j) {
      const scheduler::KernelNode& node = e.node(group.nodes[j]);
      const std::string value = e.emit_body(node, w);
      w.line(fill(rename_acc(accs[j].update, acc(j)), value, e.position_text(node), col));
    }
  }

  // Columns [begin, end) of the block.
  void block(CodeWriter& w, const std::string& begin, const std::string& end) {
    const std::string col = v + " - " + begin;
    for (std::size_t j = 0; j < group.nodes.size(); ++j) {
      w.line(rename_acc(accs[j].declare, acc(j)));
      w.line("for (int64_t " + v + " = " + begin + "; " + v + " < " + end + "; ++" + v + ") " +
             fill(rename_acc(accs[j].init, acc(j)), "", "", col));
    }
    for (std::size_t i = 0; i < group.reduce.size(); ++i) w.open(loop_head("r" + std::to_string(i), group.reduce[i]));
    prefetch_distance(w);
    e.strip_mined(
        w, v, begin, end, [&](CodeWriter& vw) { vector_update(vw, col); }, [&](CodeWriter& sw) { scalar_update(sw, col); });
    close_loops(w, group.reduce.size());
    w.open("for (int64_t " + v + " = " + begin + "; " + v + " < " + end + "; ++" + v + ")");
    for (std::size_t j = 0; j < group.nodes.size(); ++j)
      e.store_value(w, e.node(group.nodes[j]), fill(rename_acc(accs[j].result, acc(j)), "", "", col));
    if (e.k.loop_groups.size() == 2) e.pointwise_nodes(e.k.loop_groups[1].nodes, w, nullptr);
    w.close();
  }

  void blocks(CodeWriter& w) {
    block(w, open_blocks(w, e.plan.vector_trip, kernelplan::kColumnBlock), "e0");
    w.close();
  }
};

}  // namespace

void emit_columns(KernelEmitter& e, CodeWriter& loops) {
  if (e.plan.column_window) return emit_window(e, loops);
  Columns c{e, e.k.loop_groups.front(), {}, *e.plan.vector_var, ir::var_name(*e.plan.vector_var)};
  for (int idx : c.group.nodes) c.accs.push_back(*column_accumulator(e.p[e.node(idx).buffer], KernelEmitter::kIsa));
  const std::size_t depth = e.depth();
  if (e.plan.blocked) {
    loops.raw(e.parallel_pragma(1));
    c.blocks(loops);
    return;
  }
  const std::size_t shared = std::min(e.parallel_depth(), depth - 1);
  if (shared > 0) loops.raw(e.parallel_pragma(shared));
  for (std::size_t i = 0; i + 1 < depth; ++i) loops.open(loop_head("x" + std::to_string(i), e.k.outer[i]));
  c.blocks(loops);
  close_loops(loops, depth - 1);
}

}  // namespace stax::codegen
