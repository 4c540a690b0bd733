// Fusion of scheduler nodes (the chapter's §7.2-7.4): the legality test `can_fuse` with a
// reason for every refusal, the score that orders candidates, the cycle test of Proposition 7.1
// and the merge itself. The greedy rounds of Algorithm 7.1 that drive them are in schedule.h.
//
// A fused node is one kernel in the making: common outer loops (`outer`, the parallel loops on
// CPU), then an ordered list of loop groups, each a set of nodes that share the loops inside the
// outer ones (`inner` pointwise loops, then `reduce` loops). Within one outer iteration the
// groups run one after the other, so a value written by a group is complete before a later
// group reads it (Proposition 7.2 with the outer loops as the prefix `i`).
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "stax/scheduler/nodes.h"

namespace stax::scheduler {

// What a kernel is. The first four are single nodes; the last three come from fusion:
//   Fused           nodes sharing all their loops (pointwise nodes with the same loop nest).
//   Horizontal      reductions with the same (n, r) and no dependence between them: one loop
//                   nest with several accumulators (example 7.2's SAME_VARS_REDUCE).
//   OuterLoopFused  nodes sharing only the outer loops (example 7.1: a row reduction and its
//                   pointwise consumer, one pass per row).
//   Epilogue        a floating-point matmul and the one pointwise node reading its product, run
//                   by the GEMM on each tile of the product while the tile is in L1 (bias,
//                   activation, residual add...): the product is never written to memory by
//                   itself (the GEMM writes it into the pointwise node's buffer, which the
//                   epilogue rewrites in place).
enum class KernelKind : unsigned char {
  Pointwise, Reduction, Scan, Extern, Fused, Horizontal, OuterLoopFused, Epilogue
};
// "pointwise", "reduction", "scan", "extern", "fused", "horizontal", "outer_loop_fused",
// "extern_epilogue".
std::string_view kernel_kind_name(KernelKind k);
// The chapter's class names: "SchedulerNode", "ExternKernelSchedulerNode",
// "FusedSchedulerNode" (Fused and Horizontal), "OuterLoopFusedSchedulerNode".
std::string_view kernel_class_name(KernelKind k);

// Why can_fuse said no. Counted per reason in the schedule.
enum class Refusal : unsigned char {
  Extern,              // an extern (matmul) runs on its own, but for one pointwise epilogue
  Scan,                // scans are not fused
  IncompatibleRanges,  // Definition 7.2 on CPU: no common outer loop (outer-loop depth 0)
  DependenceDistance,  // Propositions 7.2/7.3: a read not at the canonical index written
  TooManyNodes,        // the fused kernel would have more than max_nodes nodes
  TooManyBuffers,      // ... or read or write more than max_buffers distinct buffers in memory
  LittleSharedData,    // the pair shares fewer bytes than min_shared_bytes
  PeakMemory,          // lifetimes would grow: nodes far apart, or the estimated peak M* rises
  Cycle,               // Proposition 7.1: the merge would close a cycle
};
constexpr std::size_t kRefusalCount = 9;
// "extern", "scan", "incompatible_ranges", "dependence_distance", "too_many_nodes",
// "too_many_buffers", "little_shared_data", "peak_memory", "cycle".
std::string_view refusal_name(Refusal r);

// The score of §7.3, (type, bytes saved, shared buffers, -distance):
//   type      1 when both are reductions or both pointwise (a kernel counts as a reduction
//             when it contains one) and they share data, else 0;
//   bytes     the bytes of the dependencies the two have in common with the same canonical
//             index (reads and writes), the memory traffic fusion can save (example 7.1:
//             32768 for x plus 256 for buf1 = 33024);
//   buffers   the number of distinct buffers among those dependencies;
//   distance  max(|min1 - max2|, |min2 - max1|) over the positions of their nodes in the
//             topological order (farther apart: longer lifetimes, so it is subtracted).
struct Score {
  int type = 0;
  uint64_t bytes = 0;
  int buffers = 0;
  int64_t distance = 0;
  bool operator==(const Score&) const = default;
};
// True when `a` ranks before `b`: lexicographic on (type, bytes, buffers, -distance), except
// that when one bytes count is 16 times the other or more, only the bytes count.
bool score_before(const Score& a, const Score& b);
// "(0, 33024, 2, -1)": the tuple as compared, distance negated.
std::string to_string(const Score& s);

struct FusionOptions {
  bool fuse = true;                  // false: every node is its own kernel (--no-fuse)
  int max_rounds = 10;               // Algorithm 7.1
  std::size_t max_nodes = 128;       // nodes per fused kernel
  std::size_t max_buffers = 32;      // distinct buffers a fused kernel reads or writes in memory
  uint64_t min_shared_bytes = 1;     // a pair must share at least this many bytes
  int64_t max_horizontal_distance = 64;  // peak-memory guard (see Refusal::PeakMemory)
  // A pointwise kernel's loops split to meet another kernel's outer loops, so that a value every
  // user of which lands in one kernel is computed there, once per element, instead of being
  // written to memory (example 7.2's exp with its sum and amax: one pass per row). false: the
  // chapter's CPU rules as written (example 7.2 stores exp; --fusion-rules chapter).
  bool split_pointwise = true;
  // A floating-point matmul takes the pointwise node that alone reads its product as its
  // epilogue (KernelKind::Epilogue): each element of the product read once, at the element the
  // node writes, by no other node and no graph output. false: an extern never fuses (the
  // chapter's rules, --fusion-rules chapter; --no-fuse turns it off with everything else).
  bool epilogues = true;
  // Memory-aware fusion (§7.3, M* of Definition 7.5; scheduler/peak.h): a fusion whose kernels
  // touch at least peak_check_bytes of intermediates is refused (Refusal::PeakMemory) when it
  // would raise the estimated peak by more than max_peak_growth of it and by at least
  // peak_check_bytes (four matmul outputs reduced by one kernel: all four live at once).
  double max_peak_growth = 0.25;
  uint64_t peak_check_bytes = uint64_t(1) << 20;
  std::size_t pair_window = 64;      // candidates: each node with the next 64 sharing a buffer
};

// Nodes sharing loops inside a kernel's outer loops (see the file comment). Homogeneous: all
// pointwise or all reductions.
struct LoopGroup {
  std::vector<int64_t> inner;
  std::vector<int64_t> reduce;
  std::vector<int> nodes;  // scheduler node ids, in execution order
  bool reduction = false;
};

struct FusedNode {
  int id = -1;
  std::string name;        // "op0", "op0_op1"
  KernelKind kind = KernelKind::Pointwise;
  std::vector<int> members;            // node ids in execution order
  std::vector<int64_t> outer;          // common outer loop sizes
  std::vector<LoopGroup> groups;       // empty for scans and externs
  std::vector<Dep> deps;               // reads and writes of the members, sorted, distinct
  std::vector<ir::BufferId> buffers;   // distinct buffers touched, sorted
  int min_order = 0, max_order = 0;    // positions of the members in the topological order
  bool has_reduction = false;
  bool alive = true;
};

struct FusionDecision {
  bool ok = false;
  Refusal refusal = Refusal::IncompatibleRanges;  // when !ok
  std::string reason;        // a readable why (refusal or fusion)
  KernelKind kind = KernelKind::Fused;  // the expected kind of the result (when ok)
  bool vertical = false;     // one reads what the other writes
  bool swap = false;         // the second node must run first
  std::size_t depth = 0;     // outer loops shared
  std::vector<int64_t> refined;  // the shared loops (Fused: the whole nest; OuterLoopFused: the outer ones)
  Score score;
};

// The state of fusion over a SchedulerGraph: fused nodes (ids are never reused; a merge kills
// both and appends the result), the current loops of every scheduler node and which fused node
// holds it.
class Fuser {
 public:
  Fuser(const ir::Program& p, const SchedulerGraph& g, FusionOptions opts = {});

  const std::vector<FusedNode>& nodes() const { return nodes_; }
  const FusedNode& node(int id) const { return nodes_.at(static_cast<std::size_t>(id)); }
  std::vector<int> alive() const;               // in order of min_order
  int holder(int scheduler_node) const { return holder_.at(static_cast<std::size_t>(scheduler_node)); }
  const NodeLoops& loops(int scheduler_node) const { return loops_.at(static_cast<std::size_t>(scheduler_node)); }
  const SchedulerGraph& graph() const { return g_; }
  const ir::Program& program() const { return p_; }
  const FusionOptions& options() const { return opts_; }

  // Pairs (a, b) of alive fused nodes, a < b by min_order, that touch a common buffer; for each
  // buffer only nodes within pair_window of each other in the order of its users, so the count
  // stays linear in the graph (Algorithm 7.1 line 2). Sorted, distinct.
  std::vector<std::pair<int, int>> candidates() const;

  // Every test of §7.3 but the cycle test, and the score (Algorithm 7.1 line 3).
  FusionDecision can_fuse(int a, int b) const;
  // Proposition 7.1: merging a and b closes a cycle, i.e. a path leads from one of them to the
  // other through a third fused node. The fuser keeps a topological order of the fused nodes,
  // so such a path runs between the two in that order: the search visits only the fused nodes
  // placed between them (linear overall when fusions join nearby nodes, as candidates do).
  bool would_create_cycle(int a, int b) const;
  // Merges a and b (a decision from can_fuse(a, b) that said yes); returns the new node's id.
  int fuse(int a, int b, const FusionDecision& d);

 private:
  const ir::Program& p_;
  const SchedulerGraph& g_;
  FusionOptions opts_;
  std::vector<FusedNode> nodes_;
  std::vector<int> holder_;
  std::vector<NodeLoops> loops_;
  // A topological order of the alive fused nodes (a merged node takes the place of its parts,
  // -1 marks a place left empty by a merge) and each fused node's place in it (-1: dead).
  std::vector<int> order_;
  std::vector<int> place_;
  std::vector<std::vector<int>> readers_;  // per buffer: the scheduler nodes reading it
  std::vector<bool> is_output_;            // per buffer: a graph output
  // Per scheduler node: its canonical accesses at a depth, by (load position or -1 for the
  // write, depth); cleared when its loops are split.
  mutable std::vector<std::map<std::pair<int, std::size_t>, ir::CanonicalAccess>> access_cache_;
  mutable std::vector<uint32_t> visit_;  // reachable_between's visited marks, per fused node
  mutable uint32_t visit_stamp_ = 0;

  // The fused nodes reachable from `from` through nodes placed before `to` in order_ (`from`
  // itself excluded), in order_; sets `reaches_to` when some path ends in `to` through at least
  // one of them.
  std::vector<int> reachable_between(int from, int to, bool& reaches_to) const;
  // Gives the merged node of a and b its place in order_ (fuse's last step).
  void place_merged(int a, int b, int merged);

  // The buffers the merged kernel would read from or write to memory: those it touches except
  // the ones written and read only inside it (and no graph output).
  std::size_t io_buffers(const FusedNode& a, const FusedNode& b) const;
  // Some member of `to` must follow some member of `from` (a data or ordering dependency).
  bool node_depends(const FusedNode& from, const FusedNode& to) const;
  // Some node of `to` reads (or, weak: only orders after) a buffer some node of `from` writes.
  bool depends(const std::vector<int>& from, const std::vector<int>& to, bool weak_only = false) const;
  // A single matmul and a single pointwise node: the epilogue decision (ok or the Extern refusal
  // saying why not); nothing when the pair is not of those kinds.
  std::optional<FusionDecision> epilogue_decision(const FusedNode& A, const FusedNode& B) const;
  // The name of a buffer some node of `from` writes and some node of `to` reads whole (a
  // StarDep: an indexed load, whose elements depend on data); "" when there is none.
  std::string whole_read(const std::vector<int>& from, const std::vector<int>& to) const;
  // The first read by a node of `consumers` of a buffer written by a node of `producers` whose
  // canonical access keeping `depth` outer loops differs from the write (each node's
  // leading loops split as `refined` when given); empty when every read matches.
  std::string distance_violation(const std::vector<int>& producers, const std::vector<int>& consumers,
                                 std::size_t depth, const std::vector<int64_t>* refined) const;
};

// The canonical form of `index` (over the buffer's own loop variables) of node `n` with loops
// `loops`, keeping the first `depth` pointwise loops even when the index does not use them:
// two accesses with equal results touch the same element in the same iteration of those outer
// loops (Proposition 7.2 with prefix i; dependence distance 0 of Proposition 7.3).
ir::CanonicalAccess access_at_depth(const ir::Index& index, const NodeLoops& loops, std::size_t depth);

// The common refinement of two loop nests with the same element count: loops split so that every
// boundary of either is a boundary of the result ((8192,) and (64, 128) -> (64, 128)); nothing
// when the counts differ or no refinement exists (the boundaries are no chain of divisors).
std::optional<std::vector<int64_t>> common_refinement(const std::vector<int64_t>& a,
                                                      const std::vector<int64_t>& b);
// The common outer loops of two kernels' outer loops: up to the largest iteration count at
// which both have a loop boundary, the loops of either split to the boundaries of both
// ((16, 1024) and (16384,) -> (16, 1024); (64,) and (64, 128) -> (64,)). Nothing when they share
// no boundary (example 7.2 under the chapter's rules: (8192,) and (64,)) or the boundaries are no
// chain of divisors. A nest that splits (`a_splits`, `b_splits`: a pointwise kernel, whose loops
// are all outer ones) also has a boundary wherever one of its loops can be split to meet the
// other's ((8192,) and (64,) -> (64,), the first split as (64, 128)).
std::optional<std::vector<int64_t>> common_outer(const std::vector<int64_t>& a, const std::vector<int64_t>& b,
                                                 bool a_splits = false, bool b_splits = false);
// `sizes` with a loop boundary at `count` iterations: unchanged when it has one, else the loop
// running across it split in two ((8192,) at 64 -> (64, 128)); nothing when `count` falls inside
// an iteration of that loop.
std::optional<std::vector<int64_t>> split_at(const std::vector<int64_t>& sizes, int64_t count);
// `loops` with its pointwise loops split as `refined` (a refinement of loops.x).
NodeLoops refine_loops(const NodeLoops& loops, const std::vector<int64_t>& refined);
// `loops` with its leading pointwise loops, as many as make product(prefix) iterations (a loop
// across that count split first, see split_at), split as `prefix`.
NodeLoops refine_prefix(const NodeLoops& loops, const std::vector<int64_t>& prefix);

}  // namespace stax::scheduler
