// Readable forms of a Schedule: text for people and golden tests, versioned JSON for
// --dump-schedule. Both are deterministic (the same schedule gives the same bytes).
#pragma once

#include <string>

#include "stax/ir/program.h"
#include "stax/scheduler/schedule.h"

namespace stax::scheduler {

// Format "stax-schedule", version 1:
//   {"format": "stax-schedule", "version": 1, "program": NAME, "fusion": true,
//    "kernels": [   // in execution order; an extern is a kernel
//      {"name": "op0_op1", "kind": "outer_loop_fused", "class": "OuterLoopFusedSchedulerNode",
//       "nodes": ["op0", "op1"], "buffers": ["buf1", "buf2"], "graph_nodes": ["s", "y"],
//       "group": [[64], [128]], "outer_loops": [64],
//       "loop_groups": [{"nodes": ["op0"], "inner": [], "reduce": [128]}, ...],
//       "node_loops": [{"node": "op0", "kind": "reduction", "group": [[64], [128]],
//                       "inner": [], "reduce": [128]}, ...],
//       "reads": ["x"], "writes": ["buf2"], "internal": ["buf1"],
//       "bytes_read": 32768, "bytes_written": 32768}],
//    "fusions": [{"round": 1, "first": "op0", "second": "op1", "result": "op0_op1",
//                 "kind": "outer_loop_fused", "vertical": true, "depth": 1, "reason": ...,
//                 "score": {"type": 0, "bytes": 33024, "buffers": 2, "distance": 1}}],
//    "refusals": {"incompatible_ranges": 0, ...}, "rounds": 2, "dead_nodes": [],
//    "traffic": {"bytes_read": ..., "bytes_written": ..., "total": ...}}
std::string dump_schedule_json(const Schedule& s, const ir::Program& p);

// The same content as text, one kernel per block.
std::string dump_schedule_text(const Schedule& s, const ir::Program& p);

}  // namespace stax::scheduler
