#include "schedule_graph.h"

#include <algorithm>
#include <map>
#include <numeric>

#include "stax/support/dtype.h"
#include "stax/support/tensor.h"
#include "svg_writer.h"

namespace stax::viz::detail {

namespace {

std::string join(const std::vector<std::string>& items, const std::string& sep) {
  std::string s;
  for (const std::string& item : items) s += (s.empty() ? "" : sep) + item;
  return s;
}

bool contains(const std::vector<ir::BufferId>& ids, ir::BufferId id) {
  return std::find(ids.begin(), ids.end(), id) != ids.end();
}

Box kernel_box(const ir::Program& p, const scheduler::Kernel& k, int index, int position) {
  Box b;
  b.kind = BoxKind::Kernel;
  b.kernel_kind = k.kind;
  b.kernel = index;
  b.position = position;
  b.title = "#" + std::to_string(position + 1) + " " + clip(k.name, 48) + "  " + std::string(scheduler::kernel_kind_name(k.kind));
  b.tooltip = "kernel " + k.name + " (" + std::string(scheduler::kernel_kind_name(k.kind)) + "), step " +
              std::to_string(position + 1) + "; graph nodes: " + join(k.graph_nodes, ", ") + "; " +
              std::to_string(k.bytes_read) + " bytes read, " + std::to_string(k.bytes_written) + " written";
  for (const scheduler::KernelNode& n : k.nodes) {
    const ir::Buffer& buf = p[n.buffer];
    std::string line = n.name + " " + std::string(scheduler::node_kind_name(n.kind)) + " " +
                       clip(join(buf.origins, ", "), 32) + ": " + type_text(buf);
    if (contains(k.internal, n.buffer)) line += " (local)";
    b.lines.push_back(line);
  }
  return b;
}

Box io_box(BoxKind kind, const ir::Buffer& buf, const std::string& name) {
  Box b;
  b.kind = kind;
  const char* word = kind == BoxKind::Input ? "input " : kind == BoxKind::Constant ? "constant " : "output ";
  b.title = word + clip(name, 40);
  b.lines.push_back(type_text(buf));
  b.tooltip = word + name + ": " + type_text(buf) + ", " + bytes_text(buffer_bytes(buf));
  return b;
}

void size_box(Box& b) {
  double w = text_width(b.title, kFont + 1);
  for (const std::string& l : b.lines) w = std::max(w, text_width(l, kFont));
  b.w = w + 2 * kPad;
  b.h = kPad + kLineHeight * static_cast<double>(1 + b.lines.size()) + kPad / 2;
}

// Edges from `from` to `to` carrying `buffer`, merged per pair of boxes.
void add_edge(std::map<std::pair<int, int>, Edge>& edges, int from, int to, ir::BufferId buffer) {
  Edge& e = edges[{from, to}];
  e.from = from;
  e.to = to;
  if (!contains(e.buffers, buffer)) e.buffers.push_back(buffer);
}

}  // namespace

std::string type_text(const ir::Buffer& b) { return std::string(dtype_name(b.dtype)) + shape_str(b.shape); }

std::uint64_t buffer_bytes(const ir::Buffer& b) {
  return static_cast<std::uint64_t>(b.numel()) * dtype_size(b.dtype);
}

// The input boxes (one per input read), then the constants, one box per kernel holding those it is
// the first to read (a weight and its bias side by side, above the kernel that uses them).
void add_sources(ScheduleGraph& g, const ir::Program& p, const scheduler::Schedule& s, const std::vector<int>& order,
                 std::map<ir::BufferId, int>& source_box) {
  std::vector<bool> used(p.buffers.size(), false);
  for (const scheduler::Kernel& k : s.kernels)
    for (ir::BufferId b : k.reads) used[static_cast<std::size_t>(b)] = true;
  for (const ir::ProgramOutput& o : p.outputs) used[static_cast<std::size_t>(o.buffer)] = true;
  for (const ir::Buffer& b : p.buffers) {
    if (b.kind != ir::BufferKind::Input || !used[static_cast<std::size_t>(b.id)]) continue;
    source_box[b.id] = static_cast<int>(g.boxes.size());
    g.boxes.push_back(io_box(BoxKind::Input, b, b.name));
  }
  auto add_constant = [&](const ir::Buffer& c, int& group) {
    if (source_box.count(c.id)) return;
    if (group < 0) {
      group = static_cast<int>(g.boxes.size());
      g.boxes.push_back(io_box(BoxKind::Constant, c, c.name));
      g.boxes.back().lines.clear();
      g.boxes.back().title = "constants";
      g.boxes.back().tooltip = "constants";
    }
    Box& box = g.boxes[static_cast<std::size_t>(group)];
    box.lines.push_back(clip(c.name, 32) + ": " + type_text(c));
    box.tooltip += " " + c.name + ": " + type_text(c) + ", " + bytes_text(buffer_bytes(c)) + ";";
    if (box.lines.size() == 1) box.title = "constant";
    else box.title = "constants";
    source_box[c.id] = group;
  };
  for (int k : order) {
    int group = -1;
    for (ir::BufferId b : s.kernels[static_cast<std::size_t>(k)].reads)
      if (p[b].kind == ir::BufferKind::Constant) add_constant(p[b], group);
  }
  int outputs_group = -1;  // constants that are graph outputs and nothing reads
  for (const ir::ProgramOutput& o : p.outputs)
    if (p[o.buffer].kind == ir::BufferKind::Constant) add_constant(p[o.buffer], outputs_group);
}

ScheduleGraph build_schedule_graph(const ir::Program& p, const scheduler::Schedule& s, const memory::MemoryPlan& m) {
  ScheduleGraph g;
  // Kernels in execution order (the memory plan's: one step per kernel).
  std::vector<int> order = m.order;
  if (order.size() != s.kernels.size()) {
    order.resize(s.kernels.size());
    std::iota(order.begin(), order.end(), 0);
  }
  std::map<ir::BufferId, int> source_box, kernel_box_of;  // buffer -> box
  add_sources(g, p, s, order, source_box);
  for (std::size_t pos = 0; pos < order.size(); ++pos) {
    const int k = order[pos];
    const scheduler::Kernel& kernel = s.kernels[static_cast<std::size_t>(k)];
    for (const scheduler::KernelNode& n : kernel.nodes) kernel_box_of[n.buffer] = static_cast<int>(g.boxes.size());
    g.boxes.push_back(kernel_box(p, kernel, k, static_cast<int>(pos)));
  }
  auto producer = [&](ir::BufferId b) {
    auto it = kernel_box_of.find(b);
    if (it != kernel_box_of.end()) return it->second;
    auto src = source_box.find(b);
    return src == source_box.end() ? -1 : src->second;
  };
  std::map<std::pair<int, int>, Edge> edges;
  for (std::size_t i = 0; i < g.boxes.size(); ++i) {
    if (g.boxes[i].kind != BoxKind::Kernel) continue;
    for (ir::BufferId b : s.kernels[static_cast<std::size_t>(g.boxes[i].kernel)].reads) {
      int from = producer(b);
      if (from >= 0 && from != static_cast<int>(i)) add_edge(edges, from, static_cast<int>(i), b);
    }
  }
  for (const ir::ProgramOutput& o : p.outputs) {
    const ir::Buffer& buf = p[o.buffer];
    std::string name = buf.origins.empty() ? buf.name : buf.origins.back();
    int box = static_cast<int>(g.boxes.size());
    g.boxes.push_back(io_box(BoxKind::Output, buf, name));
    int from = producer(o.buffer);
    if (from >= 0) add_edge(edges, from, box, o.buffer);
  }
  for (auto& [key, e] : edges) {
    std::vector<std::string> names;
    std::uint64_t bytes = 0;
    for (ir::BufferId b : e.buffers) {
      names.push_back(p[b].name);
      bytes += buffer_bytes(p[b]);
    }
    e.label = clip(join(names, ", "), 28) + " " + bytes_text(bytes);
    g.edges.push_back(std::move(e));
  }
  for (Box& b : g.boxes) size_box(b);
  return g;
}

}  // namespace stax::viz::detail
