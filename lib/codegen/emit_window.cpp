// The column-reduction form (§8.1 of the design chapter: the lanes across the contiguous
// dimension) over a small window (kernelplan::kWindowMaxPositions: a pool's 3 x 3
// or 7 x 7 taps): the lanes run across the output's last loop, as in emit_columns.cpp, but each
// vector of outputs is reduced in registers over the whole window and stored once. Vectors go in
// groups of kSlots, each one its own accumulator, so that the window's chains of maximum (or
// sum) updates run side by side instead of one after the other; the outputs past the last whole
// group are one more group of as many vectors as they need (W is the generated file's constant),
// the last one masked to its columns. Each slot's body is emitted in a block that names its first column
// as the loop variable, so the body's text is the same as in any other form.
//
// The reduction order is each output's own, position after position as in the scalar loop, so
// the results are the scalar path's bit for bit (first-wins ties of maximum and minimum too).
#include "emit_forms.h"

#include "accumulators.h"
#include "body_emitter.h"
#include "stax/codegen/literals.h"
#include "stax/support/error.h"

namespace stax::codegen {

namespace {

// Vectors reduced side by side: four chains hide the latency of a maximum with its NaN blend
// (3 cycles) behind the loads of the others (ResNet's 3 x 3 stride-2 max pool: 0.34 -> 0.18 ms
// for one chain against four, 1 thread, AVX-512).
constexpr int64_t kSlots = 4;

struct Window {
  KernelEmitter& e;
  const scheduler::LoopGroup& group;
  std::vector<VecAccumulator> accs;
  std::string v;  // the vector loop's variable

  std::string lanes(std::size_t j, int64_t slot) const {
    return "vacc" + std::to_string(group.nodes[j]) + "_" + std::to_string(slot);
  }

  // The slot's first column as the loop variable's name, in a block of its own.
  void open_slot(CodeWriter& w, const std::string& first, int64_t slot) {
    w.open("");
    // A body that reads no column (a constant, a broadcast) leaves it unused.
    w.line("[[maybe_unused]] const int64_t " + v + " = " + first + (slot == 0 ? "" : " + " + std::to_string(slot) + " * W") + ";");
  }

  // The values of one position of the window for the slot's lanes (`live`: the columns of a
  // partial vector, "" for a whole one).
  void update(CodeWriter& w, const std::string& first, int64_t slot, const std::string& live) {
    open_slot(w, first, slot);
    for (std::size_t j = 0; j < group.nodes.size(); ++j) {
      const scheduler::KernelNode& node = e.node(group.nodes[j]);
      VecBodyEmitter body = e.vec_emitter(node, *e.plan.vector_var);
      const std::string value = bare(body.emit(e.p[node.buffer].body, w, live));
      w.line(fill(rename_acc(accs[j].update, lanes(j, slot)), value));
    }
    w.close();
  }

  // The slot's results: its lanes in the output's dtype (float32 sums and products come from
  // float64 lanes, converted as the scalar static_cast rounds), stored once or kept for the
  // pointwise group after the reduction, which then runs on them (the value or the store of each
  // of its nodes).
  void store(CodeWriter& w, const std::string& first, int64_t slot, const std::string& live) {
    open_slot(w, first, slot);
    for (std::size_t j = 0; j < group.nodes.size(); ++j) {
      const scheduler::KernelNode& node = e.node(group.nodes[j]);
      const DType dt = e.p[node.buffer].dtype;
      std::string value = lanes(j, slot);
      if (accs[j].type != e.vtype(dt)) value = "stax_rt::convert(" + value + ", stax_rt::VecTag<" + cxx_type(dt) + ">())";
      if (e.in_register(node.buffer)) w.line("const auto " + e.name(node.buffer) + " = " + value + ";");
      else w.line(vec_store(dt, value, e.name(node.buffer) + " + (" + e.store_index(node) + ")", live));
    }
    if (e.k.loop_groups.size() > 1) e.pointwise_nodes(e.k.loop_groups[1].nodes, w, &*e.plan.vector_var, live);
    w.close();
  }

  // kSlots vectors from column `first`. With `rest` (the C++ name of a constant: the columns
  // left from `first`), slot s exists where s * W < rest and computes its first min(W, rest -
  // s * W) lanes; the constant conditions leave the compiler only the slots that exist.
  void group_of(CodeWriter& w, const std::string& first, const std::string& rest) {
    const auto slot_if = [&](int64_t s) {
      if (rest.empty()) return;
      w.open("if (" + std::to_string(s) + " * W < " + rest + ")");
      w.line("[[maybe_unused]] constexpr int n = " + rest + " - " + std::to_string(s) + " * W < W ? static_cast<int>(" +
             rest + " - " + std::to_string(s) + " * W) : static_cast<int>(W);");
    };
    const auto slot_end = [&] {
      if (!rest.empty()) w.close();
    };
    const std::string live = rest.empty() ? "" : "n";
    for (std::size_t j = 0; j < group.nodes.size(); ++j)
      for (int64_t s = 0; s < kSlots; ++s) w.line(accs[j].type + " " + lanes(j, s) + "(" + accs[j].init + ");");
    for (std::size_t i = 0; i < group.reduce.size(); ++i) w.open(loop_head("r" + std::to_string(i), group.reduce[i]));
    for (int64_t s = 0; s < kSlots; ++s) {
      slot_if(s);
      update(w, first, s, live);
      slot_end();
    }
    close_loops(w, group.reduce.size());
    for (int64_t s = 0; s < kSlots; ++s) {
      slot_if(s);
      store(w, first, s, live);
      slot_end();
    }
  }

  // The columns [0, trip): whole groups of kSlots vectors in a loop, then the rest as one group.
  void columns(CodeWriter& w, int64_t trip) {
    const std::string first = v + "0", N = std::to_string(trip);
    w.line("constexpr int64_t " + first + "_whole = " + N + " / (" + std::to_string(kSlots) + " * W) * (" +
           std::to_string(kSlots) + " * W);  // columns in whole groups of vectors");
    w.open("for (int64_t " + first + " = 0; " + first + " < " + first + "_whole; " + first + " += " +
           std::to_string(kSlots) + " * W)");
    group_of(w, first, "");
    w.close();
    w.open("if (" + first + "_whole < " + N + ")");
    w.line("const int64_t " + first + " = " + first + "_whole;");
    w.line("constexpr int64_t rest = " + N + " - " + first + "_whole;  // the last columns");
    group_of(w, first, "rest");
    w.close();
  }
};

}  // namespace

void emit_window(KernelEmitter& e, CodeWriter& loops) {
  const scheduler::LoopGroup& group = e.k.loop_groups.front();
  Window win{e, group, {}, ir::var_name(*e.plan.vector_var)};
  for (int idx : group.nodes) {
    std::optional<VecAccumulator> va = vec_accumulator(e.p[e.node(idx).buffer], KernelEmitter::kIsa);
    STAX_ASSERT(va.has_value() && !va->position, "a window reduction without a plain vector accumulator");
    win.accs.push_back(*va);
  }
  const std::size_t depth = e.depth();
  const std::size_t shared = std::min(e.parallel_depth(), depth - 1);
  if (shared > 0) loops.raw(e.parallel_pragma(shared));
  for (std::size_t i = 0; i + 1 < depth; ++i) loops.open(loop_head("x" + std::to_string(i), e.k.outer[i]));
  win.columns(loops, e.plan.vector_trip);
  close_loops(loops, depth - 1);
}

}  // namespace stax::codegen
