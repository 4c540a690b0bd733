// schedule_svg and schedule_dot: drawing the laid-out schedule graph.
#include <algorithm>
#include <map>

#include "schedule_graph.h"
#include "stax/viz/viz.h"
#include "svg_writer.h"

namespace stax::viz {

namespace {

using detail::Box;
using detail::BoxKind;
using detail::Edge;
using detail::ScheduleGraph;
using detail::num;

// Fill and border of each kind of box (kernel kinds told apart by colour; externs stand out).
struct Colours {
  const char* fill;
  const char* stroke;
};

Colours kernel_colours(scheduler::KernelKind k) {
  switch (k) {
    case scheduler::KernelKind::Pointwise: return {"#dbeafe", "#2563eb"};
    case scheduler::KernelKind::Reduction: return {"#fef3c7", "#d97706"};
    case scheduler::KernelKind::Scan: return {"#ede9fe", "#7c3aed"};
    case scheduler::KernelKind::Extern: return {"#fee2e2", "#dc2626"};
    case scheduler::KernelKind::Fused: return {"#dcfce7", "#16a34a"};
    case scheduler::KernelKind::Horizontal: return {"#ffedd5", "#ea580c"};
    case scheduler::KernelKind::OuterLoopFused: return {"#ccfbf1", "#0d9488"};
    case scheduler::KernelKind::Epilogue: return {"#fce7f3", "#db2777"};
  }
  return {"#ffffff", "#000000"};
}

Colours box_colours(const Box& b) {
  switch (b.kind) {
    case BoxKind::Input: return {"#ffffff", "#6b7280"};
    case BoxKind::Constant: return {"#f3f4f6", "#9ca3af"};
    case BoxKind::Output: return {"#ffffff", "#111827"};
    case BoxKind::Kernel: return kernel_colours(b.kernel_kind);
  }
  return {"#ffffff", "#000000"};
}

std::string fill_style(const Colours& c, double width) {
  return std::string("fill:") + c.fill + ";stroke:" + c.stroke + ";stroke-width:" + num(width);
}

void draw_box(detail::SvgWriter& svg, const Box& b) {
  const Colours c = box_colours(b);
  svg.begin_group(b.kind == BoxKind::Kernel ? "kernel" : "value", b.tooltip);
  double radius = b.kind == BoxKind::Kernel ? 6 : 14;
  svg.rect(b.x, b.y, b.w, b.h, fill_style(c, b.kind == BoxKind::Output ? 2 : 1.5), radius);
  double y = b.y + detail::kPad + detail::kFont;
  svg.text(b.x + detail::kPad, y, b.title, std::string("font-size:13px;font-weight:bold;fill:") + c.stroke);
  for (const std::string& line : b.lines) {
    y += detail::kLineHeight;
    svg.text(b.x + detail::kPad, y, line, "font-size:12px;fill:#111827");
  }
  svg.end_group();
}

// Where each edge leaves its source (spread along the bottom, ordered by the targets' x) and
// enters its target (along the top, ordered by the sources' x).
struct Ports {
  std::vector<double> out_x, in_x;
};

Ports edge_ports(const ScheduleGraph& g) {
  Ports ports{std::vector<double>(g.edges.size()), std::vector<double>(g.edges.size())};
  std::map<int, std::vector<std::pair<double, std::size_t>>> out, in;
  for (std::size_t i = 0; i < g.edges.size(); ++i) {
    const Box& from = g.boxes[static_cast<std::size_t>(g.edges[i].from)];
    const Box& to = g.boxes[static_cast<std::size_t>(g.edges[i].to)];
    out[g.edges[i].from].emplace_back(to.x + to.w / 2, i);
    in[g.edges[i].to].emplace_back(from.x + from.w / 2, i);
  }
  auto spread = [&](std::map<int, std::vector<std::pair<double, std::size_t>>>& ends, std::vector<double>& xs) {
    for (auto& [box, list] : ends) {
      std::stable_sort(list.begin(), list.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
      const Box& b = g.boxes[static_cast<std::size_t>(box)];
      for (std::size_t k = 0; k < list.size(); ++k)
        xs[list[k].second] = b.x + b.w * (static_cast<double>(k) + 1) / (static_cast<double>(list.size()) + 1);
    }
  };
  spread(out, ports.out_x);
  spread(in, ports.in_x);
  return ports;
}

void draw_edges(detail::SvgWriter& svg, const ScheduleGraph& g) {
  const Ports ports = edge_ports(g);
  // Curves first, then every label on top of them.
  for (std::size_t i = 0; i < g.edges.size(); ++i) {
    const Box& from = g.boxes[static_cast<std::size_t>(g.edges[i].from)];
    const Box& to = g.boxes[static_cast<std::size_t>(g.edges[i].to)];
    double x1 = ports.out_x[i], y1 = from.y + from.h, x2 = ports.in_x[i], y2 = to.y - 2;
    double dy = (y2 - y1) / 2;
    svg.path("M" + num(x1) + "," + num(y1) + " C" + num(x1) + "," + num(y1 + dy) + " " + num(x2) + "," +
                 num(y2 - dy) + " " + num(x2) + "," + num(y2),
             "fill:none;stroke:#4b5563;stroke-width:1.3;marker-end:url(#arrow)");
  }
  for (std::size_t i = 0; i < g.edges.size(); ++i) {
    const Box& from = g.boxes[static_cast<std::size_t>(g.edges[i].from)];
    const Box& to = g.boxes[static_cast<std::size_t>(g.edges[i].to)];
    // The label just below the source's port, where the curve still runs straight down.
    double x = ports.out_x[i], y = from.y + from.h + 16;
    if (to.layer == from.layer + 1) {
      x = (ports.out_x[i] + ports.in_x[i]) / 2;
      y = (from.y + from.h + to.y) / 2 + 4;
    }
    svg.text(x, y, g.edges[i].label,
             "font-size:11px;fill:#374151;paint-order:stroke;stroke:#ffffff;stroke-width:4px;stroke-linejoin:round",
             "middle");
  }
}

// The title, the statistics line and the legend of the colours, above the graph.
struct Heading {
  std::string title, stats;
  double width() const { return detail::kMargin + std::max(detail::text_width(title, 14), detail::text_width(stats, 12)) + detail::kMargin; }
};

Heading heading(const scheduler::Schedule& s, const memory::MemoryPlan& m) {
  Heading h;
  h.title = "schedule of " + s.program + ": " + std::to_string(s.kernels.size()) + " kernel(s), fusion " +
            (s.fusion ? "on" : "off") + ", run in the order #1..#" + std::to_string(s.kernels.size());
  h.stats = "memory traffic " + detail::bytes_text(s.traffic.bytes_read) + " read, " +
            detail::bytes_text(s.traffic.bytes_written) + " written; workspace " + detail::bytes_text(m.arena_size) +
            " (M* " + detail::bytes_text(m.m_star) + ")";
  return h;
}

void draw_legend(detail::SvgWriter& svg, const scheduler::Schedule& s, const Heading& h) {
  svg.text(detail::kMargin, 22, h.title, "font-size:14px;font-weight:bold;fill:#111827");
  svg.text(detail::kMargin, 40, h.stats, "font-size:12px;fill:#374151");
  double x = detail::kMargin;
  const scheduler::KernelKind kinds[] = {
      scheduler::KernelKind::Pointwise, scheduler::KernelKind::Reduction, scheduler::KernelKind::Fused,
      scheduler::KernelKind::Horizontal, scheduler::KernelKind::OuterLoopFused, scheduler::KernelKind::Scan,
      scheduler::KernelKind::Extern, scheduler::KernelKind::Epilogue};
  for (scheduler::KernelKind k : kinds) {
    bool present = std::any_of(s.kernels.begin(), s.kernels.end(), [&](const scheduler::Kernel& kn) { return kn.kind == k; });
    if (!present) continue;
    std::string name(scheduler::kernel_kind_name(k));
    svg.rect(x, 50, 14, 14, fill_style(kernel_colours(k), 1.5), 3);
    svg.text(x + 20, 62, name, "font-size:12px;fill:#111827");
    x += 20 + detail::text_width(name, 12) + 18;
  }
  svg.text(x, 62, "edges: buffers passed through memory", "font-size:12px;fill:#4b5563");
}

std::string dot_quote(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

}  // namespace

std::string schedule_svg(const ir::Program& p, const scheduler::Schedule& s, const memory::MemoryPlan& m) {
  ScheduleGraph g = detail::build_schedule_graph(p, s, m);
  detail::layout(g);
  const Heading h = heading(s, m);
  double width = std::max({g.width, h.width(), 640.0});
  detail::SvgWriter svg(width, g.height, "schedule of " + s.program);
  svg.raw("<defs><marker id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"7\" "
          "markerHeight=\"7\" orient=\"auto-start-reverse\"><path d=\"M0,0 L10,5 L0,10 z\" "
          "style=\"fill:#4b5563\"/></marker></defs>\n");
  draw_legend(svg, s, h);
  draw_edges(svg, g);
  for (const Box& b : g.boxes) draw_box(svg, b);
  return svg.finish();
}

std::string schedule_dot(const ir::Program& p, const scheduler::Schedule& s, const memory::MemoryPlan& m) {
  ScheduleGraph g = detail::build_schedule_graph(p, s, m);
  std::string d = "digraph " + dot_quote(s.program) + " {\n  rankdir=TB;\n  compound=true;\n"
                  "  node [shape=box, style=\"rounded,filled\", fontname=\"monospace\", fontsize=10];\n";
  for (std::size_t i = 0; i < g.boxes.size(); ++i) {
    const Box& b = g.boxes[i];
    const Colours c = box_colours(b);
    std::string label = b.title;
    for (const std::string& line : b.lines) label += "\\l" + line;
    label += "\\l";
    std::string escaped;
    for (char ch : label) escaped += ch == '"' ? std::string("\\\"") : std::string(1, ch);
    d += "  b" + std::to_string(i) + " [label=\"" + escaped + "\", fillcolor=" + dot_quote(c.fill) +
         ", color=" + dot_quote(c.stroke) + "];\n";
  }
  for (const Edge& e : g.edges)
    d += "  b" + std::to_string(e.from) + " -> b" + std::to_string(e.to) + " [label=" + dot_quote(e.label) +
         ", fontsize=9, fontname=\"monospace\"];\n";
  return d + "}\n";
}

}  // namespace stax::viz
