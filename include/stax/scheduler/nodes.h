// Scheduler nodes and their dependencies (the chapter's §7.1, Definition 7.1): one node per
// computed buffer of a lowered program, with the reads and writes recorded by walking its body
// (the recording handler of §6.7) and its iteration group.
//
// Needs: a verified ir::Program (lowering's result). Every buffer is written exactly once and no
// op writes in place, so the program is already in SSA form (§7.1's renaming of a mutated
// buffer is the identity here) and lowering produces no WeakDep; the dependency graph below
// still honours WeakDeps added by hand, so that an in-place op can be introduced later.
#pragma once

#include <compare>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "stax/ir/program.h"
#include "stax/ir/simplify.h"

namespace stax::scheduler {

// Definition 7.1's three kinds of dependency.
//   Memory  the buffer, the canonical index of the access and the ranges of its variables
//           (ir::canonicalize_access: unused loops dropped, contiguous loops merged, variables
//           renamed c0, c1, ...), so that equal accesses compare equal.
//   Star    the whole buffer, for an extern (matmul) whose accesses are not analysed, and for an
//           indexed load (IndirectLoad), whose elements depend on data.
//   Weak    ordering only: the reader of a buffer must run before a node that rewrites it.
enum class DepKind : unsigned char { Memory, Star, Weak };

struct Dep {
  DepKind kind = DepKind::Memory;
  ir::BufferId buffer = -1;
  ir::CanonicalAccess access;  // Memory only

  // Elements a Memory dep touches: the product of its ranges (1 for a 0-d access); -1 for Star
  // and Weak (the whole buffer).
  int64_t numel() const;
  bool operator==(const Dep& o) const {
    return kind == o.kind && buffer == o.buffer && access == o.access;
  }
  std::strong_ordering operator<=>(const Dep& o) const;
};

// "MemoryDep('buf1', c0, {c0: 64})", "StarDep('w1')", "WeakDep('buf3')" (example 7.1's text).
std::string to_string(const Dep& d, const ir::Program& p);

// Bytes a dependency moves: numel * dtype size for a Memory dep, the whole buffer otherwise;
// never more than the whole buffer.
uint64_t dep_bytes(const Dep& d, const ir::Program& p);

// The iteration group (n, r) of §7.1 as loop sizes, after merging contiguous loops over every
// access of the body (ir::merge_loops): pointwise ((64, 128), ()), reduction ((64,), (128,)).
// A scan's group is (the other dims, (the carried dim)); an extern's is ((), ()).
struct IterationGroup {
  std::vector<int64_t> n;
  std::vector<int64_t> r;
  bool operator==(const IterationGroup&) const = default;
};
// Python tuple text, as the chapter prints it: "((64,), (128,))", "((64, 128), ())".
std::string to_string(const IterationGroup& g);
std::string tuple_text(const std::vector<int64_t>& sizes);  // "(64,)", "(64, 128)", "()"

enum class NodeKind : unsigned char { Pointwise, Reduction, Scan, Extern };
std::string_view node_kind_name(NodeKind k);  // "pointwise", "reduction", "scan", "extern"

// The loops a node runs: pointwise loops `x` (outermost first) then reduction loops `r`, and
// each of its buffer's loop variables (ir::Buffer::loop_vars) as an expression over the loop
// variables xvar(0..x.size()-1) and rvar(0..r.size()-1). Pointwise and Reduction nodes only.
struct NodeLoops {
  std::vector<int64_t> x;
  std::vector<int64_t> r;
  std::map<ir::Var, ir::Index> reindex;
  ir::VarRanges ranges() const;  // xvar(k) -> x[k], rvar(k) -> r[k]
};

// One raw access of a body: the buffer and the index over the buffer's own loop variables.
struct Access {
  ir::BufferId buffer = -1;
  ir::Index index;
};

struct SchedulerNode {
  int id = -1;            // position in SchedulerGraph::nodes
  std::string name;       // "op<k>", k the position among the program's computed buffers
  ir::BufferId buffer = -1;
  NodeKind kind = NodeKind::Pointwise;
  IterationGroup group;
  NodeLoops loops;        // Pointwise and Reduction
  std::vector<Dep> reads;     // distinct, in order of first access (met and unmet)
  std::vector<Dep> writes;    // the node's own buffer
  std::vector<Access> loads;  // the distinct (buffer, index) loads of the body, in topo order
  std::vector<int> preds;     // nodes this one must follow (writers of what it reads, WeakDeps)
  std::vector<int> users;     // nodes that must follow this one
  bool may_fail = false;      // integer division or remainder in the body: a side effect
  bool is_output = false;     // its buffer is a graph output
  std::vector<std::string> origins;  // the graph nodes it computes (ir::Buffer::origins)
};

// Builds one node per computed buffer, in program order, with reads, writes, group and loops;
// preds/users are left empty (see SchedulerGraph).
std::vector<SchedulerNode> build_nodes(const ir::Program& p);

// True when the body may set the error flag (ir::may_fail: an integer FloorDiv, TruncDiv or
// Remainder, an IndirectLoad): such a node has a side effect and is never removed.
bool body_may_fail(const ir::Expr& body);

// The dependency graph of §7.6 steps 1-3: nodes in a topological order (ids are positions),
// dead nodes removed.
struct SchedulerGraph {
  std::vector<SchedulerNode> nodes;      // topological order; node.id == position
  std::vector<std::string> dead;         // names of the removed nodes, in program order
  std::vector<int> writer;               // per buffer id: the node writing it, or -1
  // Whether a path of Definition 7.1's a -> b edges leads from node a to node v. Such a path
  // runs through ids between a and v only (ids are a topological order), so the search visits
  // those alone.
  bool is_ancestor(int a, int v) const;
};

// Steps 1-3 of §7.6 on nodes from build_nodes (possibly with WeakDeps added to `reads`):
// dependencies become edges, the nodes are sorted topologically (program order among the ready
// ones), nodes whose buffer nobody reads and that are no graph output and cannot fail are
// removed (repeatedly).
SchedulerGraph build_graph(const ir::Program& p, std::vector<SchedulerNode> nodes);

// Example 7.1's description of a node: "op0: SchedulerNode(ComputedBuffer)", its writes,
// unmet and met dependencies and "op0.group.iteration = ((64,), (128,))", one per line.
std::string describe_node(const SchedulerNode& n, const ir::Program& p);

}  // namespace stax::scheduler
