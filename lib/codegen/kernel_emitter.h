// What every emitter of a loop kernel shares: the kernel's plan (kernelplan::KernelPlan, read,
// never changed), the identifiers of its buffers, the bodies of its nodes as scalar and vector
// C++ (BodyEmitter, VecBodyEmitter), loops strip-mined into W lanes and a remainder, streamed
// loops, reduction accumulators, prefetch addresses and OpenMP pragmas. Each form has its own
// emitter (emit_<form>.cpp) built on these; none of them decides anything the plan does not say.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "accumulators.h"
#include "code_writer.h"
#include "stax/kernelplan/plan.h"
#include "stax/scheduler/schedule.h"
#include "vec_body_emitter.h"

namespace stax::codegen {

// The text of one kernel function.
struct KernelCode {
  std::string function;                // its name
  std::vector<ir::BufferId> params;    // buffers in parameter order: those read, then the written
  bool fallible = false;               // returns int: nonzero after a run-time error
  std::string text;                    // the definition, comment included
};

std::string loop_head(const std::string& var, int64_t size);
void close_loops(CodeWriter& out, std::size_t n);
std::string join(const std::vector<std::string>& parts, const std::string& sep);

// The accumulators of a reduction group at one point of the outer loops: one per node (several
// for a horizontal group, example 7.2), and their vector form when the group's plan says so.
struct GroupAccumulators {
  const scheduler::LoopGroup* group = nullptr;
  const kernelplan::GroupPlan* plan = nullptr;
  std::vector<Accumulator> accs;
  std::vector<std::string> names;
  std::vector<VecAccumulator> vaccs;
};

class KernelEmitter {
 public:
  // `isa_tag`: the vector layer's type naming the instruction set ("stax_rt::IsaNative", ...),
  // which the kernel aliases as ISA when it has a vector loop.
  KernelEmitter(const ir::Program& p, const scheduler::Kernel& k, const kernelplan::KernelPlan& plan,
                const std::vector<std::string>& names, const std::string& isa_tag, std::set<std::string>& sections);

  const ir::Program& p;
  const scheduler::Kernel& k;
  const kernelplan::KernelPlan& plan;
  std::size_t depth() const { return k.outer.size(); }
  const scheduler::KernelNode& node(int idx) const { return k.nodes[static_cast<std::size_t>(idx)]; }
  const std::string& name(ir::BufferId id) const { return names_[static_cast<std::size_t>(id)]; }
  kernelplan::Residence where(ir::BufferId id) const;
  bool in_register(ir::BufferId id) const { return where(id) == kernelplan::Residence::Register; }
  bool in_row(ir::BufferId id) const { return where(id) == kernelplan::Residence::Row; }
  bool in_memory(ir::BufferId id) const { return !in_register(id) && !in_row(id); }
  // The parallel loop's collapse depth (0: serial) and its pragma.
  std::size_t parallel_depth() const;
  std::string parallel_pragma(std::size_t collapse) const;
  // The kernel's loops, written by `loops`, under the parallel pragma of `collapse` loops (0:
  // none). Streamed stores are then fenced once per thread after all of them, not after each
  // streamed loop: a fence per 512-byte row made a [16, 512, 16, 128] permute 4x slower. The
  // shared loop takes `nowait`, each thread fences, then all meet at a barrier (the loop's own
  // would come before the fence).
  void parallel_loops(CodeWriter& w, std::size_t collapse, const std::function<void(CodeWriter&)>& loops);
  // The vector type's name for a dtype, through the kernel's alias ISA.
  std::string vtype(DType dt) const { return vec_type(dt, kIsa); }

  // Where node n stores its element (text of the scalar element, or of the vector's address).
  std::string store_index(const scheduler::KernelNode& n) const;
  // The statement giving node n's scalar value: a local, or a store to memory or its row array.
  void store_value(CodeWriter& w, const scheduler::KernelNode& n, const std::string& value) const;
  // Scalar code of node n's body; its value's text.
  std::string emit_body(const scheduler::KernelNode& n, CodeWriter& w);
  // A vector emitter for node n's body, lanes along `var` (§8.1).
  VecBodyEmitter vec_emitter(const scheduler::KernelNode& n, ir::Var var);
  // Pointwise nodes at one point (scalar: vec_var null) or W points of their loops (`live`: the
  // C++ text of the lanes that are points, "" for all of them; VecBodyEmitter's tails).
  void pointwise_nodes(const std::vector<int>& nodes, CodeWriter& w, const ir::Var* vec_var,
                       const std::string& live = "");

  // The innermost loop `var` over [begin, end): W lanes at a time, then one at a time (§8.3's
  // vectorized form with a scalar remainder).
  using Body = std::function<void(CodeWriter&)>;
  void strip_mined(CodeWriter& w, const std::string& var, const std::string& begin, const std::string& end,
                   const Body& vector_body, const Body& scalar_body);
  // A vector loop whose one store to memory is streamed: the elements up to its 64-byte boundary
  // plainly, then whole vectors streamed, then the remainder; `fence`: the fence follows the loop
  // (otherwise the caller writes it after a group of such loops, as the tiled form does per tile).
  void streamed_loop(CodeWriter& w, const kernelplan::Stream& st, const std::string& vname, const std::string& begin,
                     const std::string& end, const Body& vector_body, const Body& scalar_body, bool fence = true);
  // The address `count` steps further on of a prefetch (`count` a variable of the kernel).
  std::string prefetch_address(const kernelplan::Prefetch& f, const std::string& count) const;

  // Reductions: the position argmax/argmin report for node n on the kernel's variables, the
  // positions of the W lanes along `var` as a vector of `dt`, and the accumulators of a group.
  std::string position_text(const scheduler::KernelNode& n) const;
  std::string lane_positions(const scheduler::KernelNode& n, ir::Var var, DType dt, CodeWriter& w);
  GroupAccumulators declare_accumulators(CodeWriter& w, const kernelplan::GroupPlan& gp);
  void scalar_updates(CodeWriter& w, const GroupAccumulators& ga);
  void vector_updates(CodeWriter& w, const GroupAccumulators& ga);
  void finish_accumulators(CodeWriter& w, const GroupAccumulators& ga);

  // The tiled form's transposed reads: tile i of the plan is named tile_name(i), and is read at
  // `at` (the text of the element index into a tile at the current point).
  std::string tile_name(std::size_t i) const { return "tile" + std::to_string(i); }
  void use_tiles(const std::string& at) { tile_at_ = at; }
  // A fresh temporary's name (shared with the body emitters, so names stay unique).
  std::string new_temp() { return "t" + std::to_string(temps_++); }
  // The kernel needs a section of the runtime.
  void need(const std::string& section) { sections_.insert(section); }

  // The function: its comment, signature, the vector alias, `loops`, the return.
  KernelCode finish(const std::string& function, const std::string& loops) const;

  // The alias the kernel's vector types use for the instruction set.
  static constexpr const char* kIsa = "ISA";

 private:
  std::string row_index(const scheduler::KernelNode& n, ir::BufferId id, const ir::Index& e) const;
  std::string local_text(const scheduler::KernelNode& n, ir::BufferId id, const ir::Index& e) const;
  std::optional<std::string> tile_of(const scheduler::KernelNode& n, ir::BufferId id, const ir::Index& e) const;
  std::string node_summary(const scheduler::KernelNode& n) const;

  const std::vector<std::string>& names_;
  std::string tag_;
  std::set<std::string>& sections_;
  std::map<ir::BufferId, ir::Index> slabs_;  // row-local arrays: the start of their slab
  std::map<std::pair<ir::BufferId, ir::Index>, std::size_t> tiles_;  // tiled reads -> tile number
  std::string tile_at_;
  int temps_ = 0;
  bool streaming_ = false;
  bool fence_hoisted_ = false;  // parallel_loops fences after the loops
};

}  // namespace stax::codegen
