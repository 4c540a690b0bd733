// The pictures: well-formed SVG holding every kernel, edge and buffer, laid out without
// overlaps, the same bytes every time.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "schedule_graph.h"
#include "stax/driver/compile.h"
#include "stax/viz/viz.h"
#include "xml_check.h"

namespace stax::testing {
namespace {

const std::string kSamples = std::string(STAX_SOURCE_DIR) + "/samples/";

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

std::size_t count(const std::string& s, const std::string& part) {
  std::size_t n = 0;
  for (std::size_t at = s.find(part); at != std::string::npos; at = s.find(part, at + part.size())) ++n;
  return n;
}

driver::CompiledModel compile(const std::string& sample, bool chapter = false, bool fuse = true) {
  driver::CompileOptions o;
  o.chapter_rules = chapter;
  o.fuse = fuse;
  return driver::compile_model(kSamples + sample, o);
}

TEST(XmlCheck, TellsWellFormedFromBroken) {
  EXPECT_EQ(xml_problem("<?xml version=\"1.0\"?>\n<a x=\"1\"><b/>t &amp; u</a>\n"), "");
  EXPECT_NE(xml_problem("<a><b></a></b>"), "");
  EXPECT_NE(xml_problem("<a x=1/>"), "");
  EXPECT_NE(xml_problem("<a>&nbsp;</a>"), "");
  EXPECT_NE(xml_problem("<a>1 < 2</a>"), "");
  EXPECT_NE(xml_problem("<a/><b/>"), "");
  EXPECT_NE(xml_problem("<a x=\"1\" x=\"2\"/>"), "");
  EXPECT_NE(xml_problem("<a>"), "");
}

struct Case {
  const char* sample;
  bool chapter;
  bool fuse;
};

class Pictures : public ::testing::TestWithParam<Case> {};

TEST_P(Pictures, ScheduleHoldsEveryKernelAndEdge) {
  const driver::CompiledModel m = compile(GetParam().sample, GetParam().chapter, GetParam().fuse);
  const std::string svg = viz::schedule_svg(m.program, m.schedule, m.memory);
  EXPECT_EQ(xml_problem(svg), "") << svg;
  EXPECT_EQ(count(svg, "<g class=\"kernel\">"), m.schedule.kernels.size());
  const std::vector<int> pos = m.memory.positions();
  for (std::size_t k = 0; k < m.schedule.kernels.size(); ++k) {
    const scheduler::Kernel& kernel = m.schedule.kernels[k];
    std::string title = ">#" + std::to_string(pos[k] + 1) + " " + kernel.name + "  " +
                        std::string(scheduler::kernel_kind_name(kernel.kind)) + "</text>";
    EXPECT_TRUE(contains(svg, title)) << title;
    for (const scheduler::KernelNode& n : kernel.nodes) EXPECT_TRUE(contains(svg, ">" + n.name + " ")) << n.name;
  }
  const viz::detail::ScheduleGraph g = viz::detail::build_schedule_graph(m.program, m.schedule, m.memory);
  EXPECT_EQ(count(svg, "marker-end:url(#arrow)"), g.edges.size());
  for (const viz::detail::Edge& e : g.edges) EXPECT_TRUE(contains(svg, ">" + e.label + "</text>")) << e.label;
  for (const ir::ProgramOutput& o : m.program.outputs) EXPECT_TRUE(contains(svg, ">output ")) << o.index;
  EXPECT_EQ(viz::schedule_svg(m.program, m.schedule, m.memory), svg);  // deterministic
}

TEST_P(Pictures, ScheduleLayoutHasNoOverlapsAndEdgesRunDown) {
  const driver::CompiledModel m = compile(GetParam().sample, GetParam().chapter, GetParam().fuse);
  viz::detail::ScheduleGraph g = viz::detail::build_schedule_graph(m.program, m.schedule, m.memory);
  viz::detail::layout(g);
  for (std::size_t i = 0; i < g.boxes.size(); ++i) {
    const viz::detail::Box& a = g.boxes[i];
    EXPECT_GE(a.x, 0);
    EXPECT_LE(a.x + a.w, g.width);
    EXPECT_LE(a.y + a.h, g.height);
    for (std::size_t j = i + 1; j < g.boxes.size(); ++j) {
      const viz::detail::Box& b = g.boxes[j];
      bool apart = a.x + a.w <= b.x || b.x + b.w <= a.x || a.y + a.h <= b.y || b.y + b.h <= a.y;
      EXPECT_TRUE(apart) << a.title << " overlaps " << b.title;
    }
  }
  for (const viz::detail::Edge& e : g.edges)
    EXPECT_LT(g.boxes[static_cast<std::size_t>(e.from)].y + g.boxes[static_cast<std::size_t>(e.from)].h,
              g.boxes[static_cast<std::size_t>(e.to)].y);
}

TEST_P(Pictures, MemoryHoldsEveryBufferOfTheArenaAndTheMarks) {
  const driver::CompiledModel m = compile(GetParam().sample, GetParam().chapter, GetParam().fuse);
  const std::string svg = viz::memory_svg(m.memory);
  EXPECT_EQ(xml_problem(svg), "") << svg;
  std::size_t in_arena = 0;
  for (const memory::BufferPlan& b : m.memory.buffers) {
    if (b.role != memory::BufferRole::Intermediate || b.storage < 0) continue;
    ++in_arena;
    std::string tip = "<g class=\"buffer\"><title>" + b.name + ": " + std::to_string(b.bytes) + " bytes at offset " +
                      std::to_string(b.offset) + ", live from step " + std::to_string(b.life.def + 1);
    EXPECT_TRUE(contains(svg, tip)) << tip;
  }
  EXPECT_EQ(count(svg, "<g class=\"buffer\">"), in_arena);
  EXPECT_TRUE(contains(svg, ">M* ")) << svg;
  EXPECT_TRUE(contains(svg, ">arena ")) << svg;
  for (std::size_t t = 0; t < m.memory.order.size(); ++t) {
    const std::string& step = m.memory.step_names[static_cast<std::size_t>(m.memory.order[t])];
    EXPECT_TRUE(contains(svg, ">" + std::to_string(t + 1) + " " + step.substr(0, 15))) << step;
  }
  if (in_arena == 0) {
    EXPECT_TRUE(contains(svg, "no intermediates"));
  }
  EXPECT_EQ(viz::memory_svg(m.memory), svg);
}

TEST_P(Pictures, DotNamesEveryBox) {
  const driver::CompiledModel m = compile(GetParam().sample, GetParam().chapter, GetParam().fuse);
  const std::string dot = viz::schedule_dot(m.program, m.schedule, m.memory);
  const viz::detail::ScheduleGraph g = viz::detail::build_schedule_graph(m.program, m.schedule, m.memory);
  EXPECT_EQ(dot.rfind("digraph \"" + m.program.name + "\" {", 0), 0u) << dot;
  EXPECT_EQ(count(dot, " -> "), g.edges.size());
  EXPECT_EQ(count(dot, ", fillcolor="), g.boxes.size());
  EXPECT_EQ(dot.substr(dot.size() - 2), "}\n");
}

INSTANTIATE_TEST_SUITE_P(Samples, Pictures,
                         ::testing::Values(Case{"example_7_1.json", true, true}, Case{"example_7_2.json", true, true},
                                           Case{"example_7_2.json", false, true}, Case{"mlp.json", false, true},
                                           Case{"layer_norm.json", false, false},
                                           Case{"transformer/transformer_block.json", false, true},
                                           Case{"transformer/transformer_block.json", false, false}),
                         [](const ::testing::TestParamInfo<Case>& info) {
                           std::string name = info.param.sample;
                           name = name.substr(name.rfind('/') + 1);
                           name = name.substr(0, name.find('.'));
                           return name + (info.param.chapter ? "_chapter" : "") + (info.param.fuse ? "" : "_no_fuse");
                         });

// Example 7.2 under the chapter's rules: exp materialized in kernel #1, read by the horizontal
// kernel of sum and amax; its 32 KiB edge is drawn and labelled.
TEST(PicturesOfExample72, ShowTheMaterializedExp) {
  const driver::CompiledModel m = compile("example_7_2.json", true);
  const std::string svg = viz::schedule_svg(m.program, m.schedule, m.memory);
  EXPECT_TRUE(contains(svg, ">#1 op0  pointwise</text>")) << svg;
  EXPECT_TRUE(contains(svg, ">#2 op1_op2  horizontal</text>")) << svg;
  EXPECT_TRUE(contains(svg, ">buf1 32 KiB</text>")) << svg;
  EXPECT_TRUE(contains(svg, ">input x</text>")) << svg;
  const std::string mem = viz::memory_svg(m.memory);
  EXPECT_TRUE(contains(mem, "<title>buf1: 32768 bytes at offset 0, live from step 1 through 2")) << mem;
  EXPECT_TRUE(contains(mem, ">M* 32 KiB</text>")) << mem;
}

}  // namespace
}  // namespace stax::testing
