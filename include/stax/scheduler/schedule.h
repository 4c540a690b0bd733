// The scheduler (the chapter's §7.6 steps 1-4) and its result, a Schedule: the kernels in
// execution order with the loop structure code generation needs, every fusion decision, the
// refusals counted by reason, and the estimated memory traffic. A Schedule is a plain value:
// printable (dump.h), comparable in tests, produced by `schedule` alone.
//
// Needs: a verified ir::Program (lowering's result). Steps:
//   1. a scheduler node per computed buffer, its reads and writes recorded from its body
//      (nodes.h);
//   2. topological order, dead-node elimination (no reader, no graph output, cannot fail);
//   3. for the cycle test of Proposition 7.1, instead of ancestor sets computed once (n^2 bits),
//      a topological order of the fused nodes kept by the fuser: a path closing a cycle runs
//      between the two nodes to join, so the search visits only the nodes placed between them;
//   4. up to max_rounds rounds of Algorithm 7.1 (greedy fusion): candidates are pairs sharing a
//      buffer, filtered by can_fuse, sorted by score (16x rule), merged in that order when
//      neither was merged this round and Proposition 7.1 finds no cycle; stop after a round
//      that merges nothing.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "stax/ir/program.h"
#include "stax/scheduler/fusion.h"
#include "stax/scheduler/nodes.h"

namespace stax::scheduler {

// A scheduler node inside a kernel.
struct KernelNode {
  std::string name;        // "op1"
  ir::BufferId buffer = -1;
  NodeKind kind = NodeKind::Pointwise;
  IterationGroup group;    // its own iteration group (before fusion)
  int loop_group = -1;     // index into Kernel::loop_groups (-1 for scans and externs)
  // Its loops in the kernel: x0..x{depth-1} are the kernel's outer loops, x{depth}.. its
  // group's inner loops, r0.. its group's reduction loops; `reindex` maps each of the buffer's
  // loop variables (ir::Buffer::loop_vars) to an expression over those (Pointwise and
  // Reduction nodes).
  NodeLoops loops;
};

struct Kernel {
  std::string name;        // "op0_op1"
  KernelKind kind = KernelKind::Pointwise;
  std::vector<KernelNode> nodes;        // in execution order
  std::vector<std::string> graph_nodes; // Buffer::origins of the nodes, in order, no repeats
  IterationGroup group;    // of its first reduction node, else of its first node
  std::vector<int64_t> outer;            // the common outer loops (depth = outer.size())
  std::vector<LoopGroup> loop_groups;    // `nodes` are indices into Kernel::nodes
  // Memory traffic (see Traffic): buffers read from memory, written to memory, and those that
  // never leave the kernel (written and read only inside it, not a graph output).
  std::vector<ir::BufferId> reads, writes, internal;
  uint64_t bytes_read = 0, bytes_written = 0;
};

// One merge of Algorithm 7.1.
struct FusionRecord {
  int round = 0;               // 1-based
  std::string first, second;   // the two nodes, in the order they run
  std::string result;          // "op0_op1"
  KernelKind kind = KernelKind::Fused;  // of the result
  bool vertical = false;
  std::size_t depth = 0;       // outer loops shared
  std::string reason;          // "SAME_VARS_REDUCE", "outer loop fusion depth 1", ...
  Score score;
};

// The estimated memory traffic of a schedule: for every kernel, the bytes it reads from memory
// plus the bytes it writes to memory.
//   read     for every buffer the kernel reads and does not itself write: the bytes of its
//            distinct dependencies on it (canonical accesses: a row broadcast over 64 x 128
//            iterations reads 64 elements), capped at the buffer's size; an extern's operands
//            count whole.
//   written  every buffer the kernel writes, unless it is no graph output and all of its
//            readers (at least one) are in the same kernel: such a buffer stays in registers
//            or cache and does not count.
// Inputs and constants count where they are read, graph outputs where they are written; the
// wrapper's copies of outputs that are inputs or constants are not counted.
struct Traffic {
  uint64_t bytes_read = 0;
  uint64_t bytes_written = 0;
  uint64_t total() const { return bytes_read + bytes_written; }
};

struct Schedule {
  std::string program;     // the program's name
  bool fusion = true;      // false: --no-fuse
  std::vector<SchedulerNode> nodes;  // after dead-node elimination, topological order
  std::vector<std::string> dead;     // removed nodes
  std::vector<Kernel> kernels;       // execution order
  std::vector<FusionRecord> fusions; // in the order made
  std::array<int, kRefusalCount> refusals{};  // can_fuse and cycle refusals, by reason
  int rounds = 0;          // rounds of Algorithm 7.1 run
  Traffic traffic;
};

// Log lines of the scheduler, in the chapter's words (--log fusion): the nodes and their
// dependencies as in example 7.1, then per round "found N possible fusions", "fusing op0 with
// op1" with the score, "op0_op1: OuterLoopFusedSchedulerNode(SchedulerNode,SchedulerNode)",
// and, when verbose, every refusal with its reason.
struct LogOptions {
  std::function<void(const std::string&)> sink;  // one call per line; none: no log
  bool verbose = false;
};

Schedule schedule(const ir::Program& p, const FusionOptions& opts = {}, const LogOptions& log = {});

// The same on nodes built by the caller (build_nodes, possibly with WeakDeps added).
Schedule schedule_nodes(const ir::Program& p, std::vector<SchedulerNode> nodes,
                        const FusionOptions& opts = {}, const LogOptions& log = {});

// The traffic of the kernels (see Traffic), filling each kernel's reads/writes/internal and
// byte counts. Called by schedule; public for tests.
Traffic estimate_traffic(const ir::Program& p, std::vector<Kernel>& kernels,
                         const std::vector<SchedulerNode>& nodes);

// Index into Schedule::kernels of the kernel computing `buffer`, or -1.
int kernel_of(const Schedule& s, ir::BufferId buffer);

}  // namespace stax::scheduler
