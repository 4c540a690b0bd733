// Memory-aware fusion (§7.3: a fusion must not keep buffers alive so long that the peak rises
// notably; FusionOptions::max_peak_growth): the estimate of M* and the refusals it causes, down to
// the workspace the memory planner then needs.
#include <gtest/gtest.h>

#include "helpers.h"
#include "stax/kernelplan/plan.h"
#include "stax/memory/from_schedule.h"
#include "stax/memory/plan.h"
#include "stax/scheduler/peak.h"

namespace stax::scheduler {
namespace {

using testing::parse;

constexpr uint64_t kMatrix = 1024 * 1024 * 4;  // one float32 [1024, 1024]

// Four matmuls of one input, each reduced, the four sums added: fusing the reductions (and the
// adds) into one kernel would need all four products live at once.
graph::Graph four_products() {
  std::string inputs = R"([{"name": "x", "dtype": "float32", "shape": [1024, 1024]})";
  std::string nodes = "[";
  for (int i = 1; i <= 4; ++i) {
    const std::string k = std::to_string(i);
    inputs += R"(, {"name": "w)" + k + R"(", "dtype": "float32", "shape": [1024, 1024]})";
    nodes += R"({"name": "m)" + k + R"(", "op": "matmul", "args": ["x", "w)" + k + R"("]}, )";
    nodes += R"({"name": "s)" + k + R"(", "op": "sum", "args": ["m)" + k + R"("], "dim": 1}, )";
  }
  nodes += R"({"name": "a", "op": "add", "args": ["s1", "s2"]}, {"name": "b", "op": "add", "args": ["s3", "s4"]},
              {"name": "y", "op": "add", "args": ["a", "b"]}])";
  return parse(inputs + "]", nodes, R"(["y"])");
}

// The workspace the memory planner needs for a schedule (values kept inside kernels take none).
uint64_t workspace(const testing::Scheduled& r) {
  const kernelplan::Locals locals = kernelplan::plan_locals(r.program, r.schedule);
  return memory::plan_memory(memory::without_buffers(memory::problem_from_schedule(r.program, r.schedule), locals.mask()))
      .arena_size;
}

TEST(PeakMemory, FusionThatWouldKeepFourProductsLiveIsRefused) {
  const testing::Scheduled r = testing::run(four_products());
  EXPECT_GE(testing::refusals(r.schedule, Refusal::PeakMemory), 1);
  EXPECT_NE(r.log.find("(peak_memory): the estimated peak memory M* would rise from"), std::string::npos) << r.log;
  // The workspace stays near one product (plus the row sums).
  EXPECT_LT(workspace(r), kMatrix + kMatrix / 4);
  // Without the check, fusion joins the reductions and the workspace holds all four products.
  FusionOptions unchecked;
  unchecked.peak_check_bytes = UINT64_MAX;
  const testing::Scheduled loose = testing::run(four_products(), unchecked);
  EXPECT_EQ(testing::refusals(loose.schedule, Refusal::PeakMemory), 0);
  EXPECT_GE(workspace(loose), 4 * kMatrix);
}

TEST(PeakMemory, EstimateFollowsTheLeastIncreaseOrder) {
  const testing::Scheduled r = testing::run(four_products(), FusionOptions{.fuse = false});
  // Unfused, the order that runs each reduction right after its product keeps one product live.
  const ir::Program& p = r.program;
  const SchedulerGraph g = build_graph(p, build_nodes(p));
  const Fuser f(p, g);
  const uint64_t peak = estimate_peak(f);
  EXPECT_GE(peak, kMatrix);
  EXPECT_LT(peak, kMatrix + kMatrix / 4);
  // Taking two reductions as one kernel keeps two products live.
  std::vector<int> sums;
  for (const SchedulerNode& n : g.nodes)
    if (n.kind == NodeKind::Reduction) sums.push_back(n.id);
  ASSERT_EQ(sums.size(), 4u);
  EXPECT_GE(estimate_peak(f, {f.holder(sums[0]), f.holder(sums[1])}), 2 * kMatrix);
  EXPECT_GE(footprint(f, f.holder(sums[0]), f.holder(sums[1])), 2 * kMatrix);
}

// Small graphs are never weighed: their fusions keep the chapter's behaviour.
TEST(PeakMemory, SmallIntermediatesAreNotWeighed) {
  const testing::Scheduled r = testing::run(testing::load_sample("softmax"));
  EXPECT_EQ(testing::refusals(r.schedule, Refusal::PeakMemory), 0);
  EXPECT_EQ(r.schedule.kernels.size(), 1u);
}

}  // namespace
}  // namespace stax::scheduler
