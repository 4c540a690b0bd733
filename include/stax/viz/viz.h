// Pictures of a compilation, written as SVG directly (no Graphviz needed), for people: the
// schedule as a graph of fused kernels, and the memory plan as buffers over time in the arena.
// Both are plain functions of the stages' results; the same input gives the same bytes.
#pragma once

#include <string>

#include "stax/ir/program.h"
#include "stax/memory/plan.h"
#include "stax/scheduler/schedule.h"

namespace stax::viz {

// --svg-schedule: the graph as people think of it. Every kernel is a box holding its scheduler
// nodes (the buffer each computes, the graph values behind it, its dtype and shape; values kept
// in registers marked "local"), coloured by its kind (pointwise, reduction, fused, horizontal,
// outer-loop fused, scan, extern), with its place in the execution order (#1, #2, ...: the
// memory plan's order, the order the generated code runs them). Inputs and constants are boxes
// above, graph outputs below. An edge is a buffer passed through memory from one kernel (or
// input) to another, labelled with its name and bytes. Layers by longest path, ordered within a
// layer to cross few edges. `m` must be the plan of `s` (one step per kernel).
std::string schedule_svg(const ir::Program& p, const scheduler::Schedule& s, const memory::MemoryPlan& m);

// --dot: the same graph in Graphviz's language (kernels as clusters of their nodes).
std::string schedule_dot(const ir::Program& p, const scheduler::Schedule& s, const memory::MemoryPlan& m);

// --svg-memory: the memory plan. x: the kernel steps in the chosen order; y: the byte offset in
// the workspace arena. Every intermediate is a bar from the step that defines it through its
// last reader, at its offset, as tall as its bytes; buffers sharing a storage (reuse, in place)
// share its colour. The live bytes at each step are drawn as a line, with M* (their largest
// sum, Definition 7.5) and the arena size marked.
std::string memory_svg(const memory::MemoryPlan& m);

}  // namespace stax::viz
