// Examples 7.1 and 7.2 of the chapter, and the row-wise models that must become one kernel.
#include <gtest/gtest.h>

#include "helpers.h"
#include "models.h"

namespace stax::scheduler {
namespace {

using testing::kernel_names;
using testing::run;

testing::Scheduled run_model(const testing::Model& m, FusionOptions o = {}) {
  return run(testing::parse(m.inputs, m.nodes, m.outputs, m.constants), o);
}

bool has_line(const std::string& log, const std::string& line) {
  return ("\n" + log).find("\n" + line + "\n") != std::string::npos;
}

TEST(Example71, DependenciesAsInTheChapter) {
  testing::Scheduled r = run(testing::load_sample("example_7_1"));
  for (const char* line : {"op0.writes = [MemoryDep('buf1', c0, {c0: 64})]",
                           "op0.met_dependencies = [MemoryDep('x', c0, {c0: 8192})]",
                           "op0.group.iteration = ((64,), (128,))",
                           "op1.writes = [MemoryDep('buf2', c0, {c0: 8192})]",
                           "op1.unmet_dependencies = [MemoryDep('buf1', c0, {c0: 64})]",
                           "op1.met_dependencies = [MemoryDep('x', c0, {c0: 8192})]",
                           "op1.group.iteration = ((64, 128), ())"})
    EXPECT_TRUE(has_line(r.log, line)) << line << "\n" << r.log;
}

TEST(Example71, OneOuterLoopFusedKernelWithScore33024) {
  testing::Scheduled r = run(testing::load_sample("example_7_1"));
  for (const char* line : {"found 1 possible fusions", "fusing op0 with op1",
                           "op0_op1: OuterLoopFusedSchedulerNode(SchedulerNode,SchedulerNode)"})
    EXPECT_TRUE(has_line(r.log, line)) << line << "\n" << r.log;
  EXPECT_NE(r.log.find("shared data 33024 bytes in 2 buffer(s)"), std::string::npos);
  const Schedule& s = r.schedule;
  ASSERT_EQ(s.fusions.size(), 1u);
  EXPECT_EQ(s.fusions[0].score, (Score{0, 33024, 2, 1}));  // x: 32768 bytes, buf1: 256
  ASSERT_EQ(s.kernels.size(), 1u);
  const Kernel& k = s.kernels[0];
  EXPECT_EQ(k.kind, KernelKind::OuterLoopFused);
  EXPECT_EQ(k.graph_nodes, (std::vector<std::string>{"s", "y"}));
  EXPECT_EQ(k.outer, (std::vector<int64_t>{64}));  // depth 1
  ASSERT_EQ(k.loop_groups.size(), 2u);
  EXPECT_EQ(k.loop_groups[0].reduce, (std::vector<int64_t>{128}));  // the row sum
  EXPECT_EQ(k.loop_groups[1].inner, (std::vector<int64_t>{128}));   // the division
  // x read once, y written once; the row sums never leave the kernel.
  EXPECT_EQ(s.traffic.bytes_read, 32768u);
  EXPECT_EQ(s.traffic.bytes_written, 32768u);
  EXPECT_EQ(k.internal, (std::vector<ir::BufferId>{1}));
}

TEST(Example71, NoFuseTraffic) {
  FusionOptions o;
  o.fuse = false;
  testing::Scheduled r = run(testing::load_sample("example_7_1"), o);
  EXPECT_EQ(r.schedule.kernels.size(), 2u);
  // op0 reads x (32768) and writes buf1 (256); op1 reads x and buf1, writes y (32768).
  EXPECT_EQ(r.schedule.traffic.bytes_read, 32768u + 32768u + 256u);
  EXPECT_EQ(r.schedule.traffic.bytes_written, 256u + 32768u);
}

// Under the chapter's rules (--fusion-rules chapter), in its words.
TEST(Example72, ExpStoredVerticalRefusedSumAndAmaxHorizontal) {
  FusionOptions chapter;
  chapter.split_pointwise = false;
  chapter.epilogues = false;
  testing::Scheduled r = run(testing::load_sample("example_7_2"), chapter);
  const Schedule& s = r.schedule;
  EXPECT_EQ(kernel_names(s), (std::vector<std::string>{"op0", "op1_op2"}));
  EXPECT_EQ(s.kernels[0].kind, KernelKind::Pointwise);
  EXPECT_EQ(s.kernels[0].graph_nodes, (std::vector<std::string>{"e"}));
  EXPECT_EQ(s.kernels[0].group, (IterationGroup{{8192}, {}}));
  EXPECT_EQ(s.kernels[1].kind, KernelKind::Horizontal);
  EXPECT_EQ(s.kernels[1].group, (IterationGroup{{64}, {128}}));
  ASSERT_EQ(s.kernels[1].loop_groups.size(), 1u);  // one loop, two accumulators
  EXPECT_EQ(s.kernels[1].loop_groups[0].nodes.size(), 2u);
  ASSERT_EQ(s.fusions.size(), 1u);
  EXPECT_EQ(s.fusions[0].reason, "SAME_VARS_REDUCE");
  EXPECT_FALSE(s.fusions[0].vertical);
  EXPECT_EQ(testing::refusals(s, Refusal::IncompatibleRanges), 3);  // op0 with op1, op2; then op1_op2
  for (const char* line :
       {"cannot fuse op0 with op1 (incompatible_ranges): outer loop fusion depth 0: ((8192,), ()) vs ((64,), (128,)); "
        "vertical fusion refused",
        "fusing op1 with op2", "op1_op2: FusedSchedulerNode(SchedulerNode,SchedulerNode)",
        "===== fusion round 2/10: 2 nodes =====", "found 0 possible fusions"})
    EXPECT_TRUE(has_line(r.log, line)) << line << "\n" << r.log;
  EXPECT_EQ(s.rounds, 2);
}

// By default exp joins the rows of its two reductions: one kernel, one pass per row (exp computed
// once per element, kept in the row), x read once and nothing but the results written.
TEST(Example72, ByDefaultExpIsComputedInTheReductionsKernel) {
  testing::Scheduled r = run(testing::load_sample("example_7_2"));
  const Schedule& s = r.schedule;
  EXPECT_EQ(kernel_names(s), (std::vector<std::string>{"op0_op1_op2"}));
  EXPECT_EQ(s.kernels[0].kind, KernelKind::OuterLoopFused);
  EXPECT_EQ(s.kernels[0].outer, (std::vector<int64_t>{64}));
  ASSERT_EQ(s.kernels[0].loop_groups.size(), 2u);  // exp over the row, then sum and amax
  EXPECT_EQ(s.kernels[0].loop_groups[1].nodes.size(), 2u);
  EXPECT_EQ(s.traffic.bytes_read, 32768u);
  EXPECT_EQ(s.traffic.bytes_written, 512u);
}

// Row-wise models written with primitives: one kernel whose outer loop runs over the rows.
void expect_one_row_kernel(const testing::Model& m, std::size_t nodes) {
  testing::Scheduled r = run_model(m);
  ASSERT_EQ(r.schedule.nodes.size(), nodes);
  ASSERT_EQ(r.schedule.kernels.size(), 1u) << r.log;
  const Kernel& k = r.schedule.kernels[0];
  EXPECT_EQ(k.kind, KernelKind::OuterLoopFused);
  EXPECT_EQ(k.outer, (std::vector<int64_t>{64}));
  EXPECT_EQ(k.internal.size(), nodes - 1);  // only the result leaves the kernel
  EXPECT_EQ(r.schedule.traffic.bytes_written, 64u * 128u * 4u);
}

TEST(RowModels, Softmax) { expect_one_row_kernel(testing::softmax_model(), 4); }
TEST(RowModels, LayerNorm) { expect_one_row_kernel(testing::layer_norm_model(), 3); }
TEST(RowModels, RmsNorm) { expect_one_row_kernel(testing::rms_norm_model(), 2); }
TEST(RowModels, ResidualLayerNormGelu) { expect_one_row_kernel(testing::residual_layer_norm_gelu_model(), 3); }

TEST(RowModels, Composites) {
  for (const char* node : {R"({"name": "y", "op": "softmax", "args": ["x"], "dim": -1})",
                           R"({"name": "y", "op": "log_softmax", "args": ["x"], "dim": -1})",
                           R"({"name": "y", "op": "layer_norm", "args": ["x"], "normalized_shape": [128]})",
                           R"({"name": "y", "op": "rms_norm", "args": ["x"], "normalized_shape": 128})"}) {
    testing::Scheduled r = run(testing::parse(R"([{"name": "x", "dtype": "float32", "shape": [64, 128]}])",
                                              std::string("[") + node + "]", R"(["y"])"));
    ASSERT_EQ(r.schedule.kernels.size(), 1u) << node << "\n" << r.log;
    EXPECT_EQ(r.schedule.kernels[0].outer, (std::vector<int64_t>{64})) << node;
  }
}

TEST(Chains, FiftyStoredPointwiseOpsAreOneKernel) {
  testing::Scheduled r = run_model(testing::pointwise_chain_model(50, true));
  ASSERT_EQ(r.schedule.nodes.size(), 50u);
  ASSERT_EQ(r.schedule.kernels.size(), 1u);
  EXPECT_EQ(r.schedule.kernels[0].kind, KernelKind::Fused);
  EXPECT_EQ(r.schedule.kernels[0].outer, (std::vector<int64_t>{8192}));
  EXPECT_EQ(r.schedule.rounds, 7);  // 50 -> 25 -> 13 -> 7 -> 4 -> 2 -> 1, then a round with none
  EXPECT_EQ(r.schedule.traffic.total(), 2u * 32768u);
  FusionOptions off;
  off.fuse = false;
  EXPECT_EQ(run_model(testing::pointwise_chain_model(50, true), off).schedule.traffic.total(), 100u * 32768u);
}

TEST(Chains, FiftyInlinedPointwiseOpsAreOneNode) {
  testing::Scheduled r = run_model(testing::pointwise_chain_model(50, false));
  ASSERT_EQ(r.schedule.nodes.size(), 1u);
  EXPECT_EQ(r.schedule.kernels[0].graph_nodes.size(), 50u);
}

}  // namespace
}  // namespace stax::scheduler
