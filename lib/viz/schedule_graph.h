// The schedule as a graph of boxes and edges, laid out in layers: what schedule_svg draws and
// schedule_dot prints.
#pragma once

#include <string>
#include <vector>

#include "stax/ir/program.h"
#include "stax/memory/plan.h"
#include "stax/scheduler/schedule.h"

namespace stax::viz::detail {

enum class BoxKind : unsigned char { Input, Constant, Kernel, Output };

struct Box {
  BoxKind kind = BoxKind::Kernel;
  scheduler::KernelKind kernel_kind = scheduler::KernelKind::Pointwise;  // Kernel
  int kernel = -1;                 // Kernel: index into Schedule::kernels
  int position = -1;               // Kernel: place in the execution order, 0-based
  std::string title;               // "#2 op1_op2  horizontal", "input x", "output y"
  std::vector<std::string> lines;  // Kernel: one per scheduler node
  std::string tooltip;
  // Layout.
  int layer = 0;
  double x = 0, y = 0, w = 0, h = 0;
};

struct Edge {
  int from = -1, to = -1;  // indices into ScheduleGraph::boxes
  std::vector<ir::BufferId> buffers;
  std::string label;       // "e 32 KiB", "q, k 64 KiB"
};

struct ScheduleGraph {
  std::vector<Box> boxes;  // inputs and constants, kernels in execution order, outputs
  std::vector<Edge> edges; // sorted by (from, to)
  double width = 0, height = 0;
};

// Geometry of the drawing (pixels).
constexpr double kFont = 12;       // body text
constexpr double kLineHeight = 16;
constexpr double kPad = 8;
constexpr double kLayerGap = 72;   // room for edge labels between layers
constexpr double kBoxGap = 36;
constexpr double kTop = 92;        // title, statistics and legend above the graph
constexpr double kMargin = 24;

// The boxes and edges; kernels numbered in `m`'s order.
ScheduleGraph build_schedule_graph(const ir::Program& p, const scheduler::Schedule& s, const memory::MemoryPlan& m);
// Layers by longest path, barycentric ordering within layers, coordinates.
void layout(ScheduleGraph& g);

// "float32[64, 128]".
std::string type_text(const ir::Buffer& b);
std::uint64_t buffer_bytes(const ir::Buffer& b);

}  // namespace stax::viz::detail
