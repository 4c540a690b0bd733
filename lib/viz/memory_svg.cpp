// memory_svg: the workspace arena over the kernel steps.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "stax/viz/viz.h"
#include "svg_writer.h"

namespace stax::viz {

namespace {

using detail::num;

constexpr double kLeft = 96;     // room for the byte axis
constexpr double kTopY = 100;    // title and legend
constexpr double kPlotH = 420;
constexpr double kBottom = 150;  // step names, written at a slant

// A colour per storage, spread around the hue circle (buffers sharing a storage share it).
std::string storage_colour(int storage) {
  static const char* palette[] = {"#93c5fd", "#fca5a5", "#86efac", "#fcd34d", "#c4b5fd", "#f9a8d4",
                                  "#5eead4", "#fdba74", "#a5b4fc", "#bef264", "#67e8f9", "#d8b4fe"};
  return palette[static_cast<std::size_t>(storage < 0 ? 0 : storage) % (sizeof palette / sizeof palette[0])];
}

bool in_arena(const memory::BufferPlan& b) {
  return b.role == memory::BufferRole::Intermediate && b.storage >= 0;
}

// The bytes of intermediates live at each position of the order (Definition 7.5's sum).
std::vector<std::uint64_t> live_bytes(const memory::MemoryPlan& m) {
  std::vector<std::uint64_t> live(m.order.size(), 0);
  for (const memory::BufferPlan& b : m.buffers) {
    if (b.role != memory::BufferRole::Intermediate) continue;
    for (int t = std::max(b.life.def, 0); t <= b.life.last && t < static_cast<int>(live.size()); ++t)
      live[static_cast<std::size_t>(t)] += b.bytes;
  }
  return live;
}

struct Scale {
  double step_w;
  double bytes_max;
  double x(double step) const { return kLeft + step * step_w; }
  double y(double bytes) const { return kTopY + kPlotH - bytes / bytes_max * kPlotH; }
};

void draw_axes(detail::SvgWriter& svg, const memory::MemoryPlan& m, const Scale& sc) {
  const double steps = static_cast<double>(m.order.size());
  svg.rect(sc.x(0), kTopY, steps * sc.step_w, kPlotH, "fill:#f9fafb;stroke:#9ca3af;stroke-width:1");
  // Ticks at multiples of a power of two, four to eight of them.
  double tick = 1;
  while (sc.bytes_max / tick > 8) tick *= 2;
  const bool empty = m.arena_size == 0 && m.m_star == 0;  // one tick, at 0
  for (double bytes = 0; bytes <= sc.bytes_max && !(empty && bytes > 0); bytes += tick) {
    svg.line(sc.x(0) - 4, sc.y(bytes), sc.x(0), sc.y(bytes), "stroke:#6b7280;stroke-width:1");
    svg.line(sc.x(0), sc.y(bytes), sc.x(steps), sc.y(bytes), "stroke:#e5e7eb;stroke-width:1");
    svg.text(sc.x(0) - 8, sc.y(bytes) + 4, detail::bytes_text(static_cast<std::uint64_t>(bytes)),
             "font-size:11px;fill:#374151", "end");
  }
  svg.text(16, kTopY - 12, "arena offset", "font-size:11px;fill:#374151");
  // Every step's kernel, under its column (thinned out when the columns are narrow).
  const std::size_t every = std::max<std::size_t>(1, static_cast<std::size_t>(14 / sc.step_w + 0.999));
  for (std::size_t t = 0; t < m.order.size(); t += every) {
    double x = sc.x(static_cast<double>(t) + 0.5);
    double y = kTopY + kPlotH + 12;
    const std::string& name = m.step_names[static_cast<std::size_t>(m.order[t])];
    svg.raw("<text x=\"" + num(x) + "\" y=\"" + num(y) + "\" transform=\"rotate(35 " + num(x) + " " + num(y) +
            ")\" style=\"font-size:11px;fill:#374151\">" +
            detail::xml_escape(std::to_string(t + 1) + " " + detail::clip(name, 18)) + "</text>\n");
  }
}

// The step where the next buffer of the same storage takes it over (its bar then covers the
// end of this one's), or past this buffer's last step.
int label_end(const memory::MemoryPlan& m, std::size_t index) {
  const memory::BufferPlan& b = m.buffers[index];
  int end = b.life.last + 1;
  const std::vector<int>& sharing = m.storages[static_cast<std::size_t>(b.storage)].buffers;
  auto it = std::find(sharing.begin(), sharing.end(), static_cast<int>(index));
  if (it != sharing.end() && it + 1 != sharing.end())
    end = std::min(end, std::max(m.buffers[static_cast<std::size_t>(*(it + 1))].life.def, b.life.def + 1));
  return end;
}

void draw_buffers(detail::SvgWriter& svg, const memory::MemoryPlan& m, const Scale& sc) {
  for (std::size_t i = 0; i < m.buffers.size(); ++i) {
    const memory::BufferPlan& b = m.buffers[i];
    if (!in_arena(b)) continue;
    double x0 = sc.x(std::max(b.life.def, 0)), x1 = sc.x(b.life.last + 1);
    double y0 = sc.y(static_cast<double>(b.offset + b.bytes)), y1 = sc.y(static_cast<double>(b.offset));
    std::string tip = b.name + ": " + std::to_string(b.bytes) + " bytes at offset " + std::to_string(b.offset) +
                      ", live from step " + std::to_string(b.life.def + 1) + " through " +
                      std::to_string(b.life.last + 1) + ", " + std::string(memory::placement_name(b.placement)) +
                      (b.shares >= 0 ? " (memory of " + m.buffers[static_cast<std::size_t>(b.shares)].name + ")" : "");
    svg.begin_group("buffer", tip);
    svg.rect(x0 + 1, y0, std::max(x1 - x0 - 2, 1.0), std::max(y1 - y0, 1.0),
             "fill:" + storage_colour(b.storage) + ";stroke:#1f2937;stroke-width:0.8;fill-opacity:0.9");
    // The label where no later bar of the storage covers it.
    double lx1 = sc.x(label_end(m, i));
    std::string label = b.name + " " + detail::bytes_text(b.bytes);
    if (y1 - y0 < 13 || detail::text_width(label, 11) > lx1 - x0 - 4) label = b.name;
    if (y1 - y0 >= 13 && detail::text_width(label, 11) <= lx1 - x0 - 4)
      svg.text((x0 + lx1) / 2, (y0 + y1) / 2 + 4, label, "font-size:11px;fill:#111827", "middle");
    svg.end_group();
  }
}

void draw_marks(detail::SvgWriter& svg, const memory::MemoryPlan& m, const Scale& sc) {
  const std::vector<std::uint64_t> live = live_bytes(m);
  std::string d;
  for (std::size_t t = 0; t < live.size(); ++t) {
    double y = sc.y(static_cast<double>(live[t]));
    d += (t == 0 ? "M" : " L") + num(sc.x(static_cast<double>(t))) + "," + num(y) + " L" +
         num(sc.x(static_cast<double>(t) + 1)) + "," + num(y);
  }
  if (!d.empty()) svg.path(d, "fill:none;stroke:#7c3aed;stroke-width:1.5;stroke-dasharray:2,2");
  double right = sc.x(static_cast<double>(m.order.size()));
  auto mark = [&](std::uint64_t bytes, const std::string& what, const char* colour, const char* dash, double dy) {
    double y = sc.y(static_cast<double>(bytes));
    svg.line(sc.x(0), y, right, y, std::string("stroke:") + colour + ";stroke-width:1.5;stroke-dasharray:" + dash);
    svg.text(right + 6, y + dy, what + " " + detail::bytes_text(bytes), std::string("font-size:12px;font-weight:bold;fill:") + colour);
  };
  bool close = m.arena_size - m.m_star < static_cast<std::uint64_t>(sc.bytes_max / 30) + 1;
  mark(m.arena_size, "arena", "#111827", "6,3", close ? -4 : 4);
  mark(m.m_star, "M*", "#dc2626", "3,3", close ? 12 : 4);
}

}  // namespace

std::string memory_svg(const memory::MemoryPlan& m) {
  const std::size_t steps = std::max<std::size_t>(m.order.size(), 1);
  Scale sc{std::clamp(900.0 / static_cast<double>(steps), 4.0, 90.0), 1};
  sc.bytes_max = static_cast<double>(std::max<std::uint64_t>({m.arena_size, m.m_star, 1})) * 1.06;
  const double height = kTopY + kPlotH + kBottom;
  int arena_buffers = static_cast<int>(std::count_if(m.buffers.begin(), m.buffers.end(), in_arena));
  std::string title = "memory plan: " + std::to_string(m.order.size()) + " step(s), " + std::to_string(arena_buffers) +
                      " intermediate(s) in " + std::to_string(m.storages.size()) + " storage(s); order " +
                      std::string(memory::order_strategy_name(m.strategy)) + ", packing " +
                      std::string(memory::arena_packer_name(m.packer));
  const std::string bars = "bars: each buffer from the step that writes it through its last reader, at its offset;";
  const std::string colours = "one colour per storage (buffers sharing one: reuse, in place); x: the kernel steps in order";
  const std::string dotted = "dotted line: the bytes of intermediates live at each step (their largest sum is M*)";
  double width = std::max({kLeft + static_cast<double>(steps) * sc.step_w + 170, detail::text_width(title, 14) + 32,
                           detail::text_width(colours, 11) + 32, 640.0});
  detail::SvgWriter svg(width, height, "memory plan");
  svg.text(16, 22, title, "font-size:14px;font-weight:bold;fill:#111827");
  svg.text(16, 42, bars, "font-size:11px;fill:#374151");
  svg.text(16, 57, colours, "font-size:11px;fill:#374151");
  svg.text(16, 72, dotted, "font-size:11px;fill:#7c3aed");
  draw_axes(svg, m, sc);
  if (arena_buffers == 0)
    svg.text(sc.x(0) + 12, kTopY + kPlotH / 2, "no intermediates: the workspace is empty", "font-size:13px;fill:#374151");
  draw_buffers(svg, m, sc);
  draw_marks(svg, m, sc);
  return svg.finish();
}

}  // namespace stax::viz
