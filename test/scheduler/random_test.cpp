// Random graphs (the seeded generator of test/randgraph) through lowering and the scheduler:
// every schedule must have the structure code generation relies on, and running its kernels'
// loops in order must never read an element before it is computed. The same with fusion
// constrained (tiny limits) and with outer-loop-friendly row graphs.
#include <gtest/gtest.h>

#include "helpers.h"
#include "order_check.h"
#include "random_graph.h"
#include "stax/graph/frontend.h"
#include "stax/lowering/lower.h"

namespace stax::scheduler {
namespace {

void check_seed(uint64_t seed, const randgraph::RandomGraphOptions& opt, const FusionOptions& fo, int& fused) {
  const std::string json = randgraph::random_graph_json(seed, opt);
  const graph::Graph g = graph::expand_composites(graph::parse_graph(json));
  const ir::Program p = lowering::lower(g);
  const Schedule s = schedule(p, fo);
  EXPECT_EQ(testing::check_structure(p, s), "") << "seed " << seed << "\n" << json;
  EXPECT_EQ(testing::check_order(p, s), "") << "seed " << seed << "\n" << json;
  fused += static_cast<int>(s.fusions.size());
}

TEST(RandomGraphs, SchedulesAreSound) {
  randgraph::RandomGraphOptions opt = randgraph::lowerable({});
  opt.max_nodes = 16;
  int fused = 0;
  for (uint64_t seed = 1; seed <= 300; ++seed) check_seed(seed, opt, {}, fused);
  EXPECT_GT(fused, 300);  // the graphs do give fusion something to do
}

TEST(RandomGraphs, RowHeavyGraphsAreSound) {
  // Reductions, views and elementwise ops only: more outer-loop fusion.
  randgraph::RandomGraphOptions opt = randgraph::lowerable({});
  opt.max_nodes = 20;
  opt.scans = false;
  opt.matmul = false;
  opt.creation = false;
  opt.dtypes = {DType::Float32};
  int fused = 0;
  for (uint64_t seed = 1000; seed < 1200; ++seed) check_seed(seed, opt, {}, fused);
  EXPECT_GT(fused, 200);
}

TEST(RandomGraphs, TightLimitsAreSound) {
  randgraph::RandomGraphOptions opt = randgraph::lowerable({});
  opt.max_nodes = 16;
  FusionOptions fo;
  fo.max_nodes = 3;
  fo.max_buffers = 4;
  fo.max_horizontal_distance = 2;
  int fused = 0;
  for (uint64_t seed = 2000; seed < 2100; ++seed) check_seed(seed, opt, fo, fused);
  EXPECT_GT(fused, 0);
}

TEST(OrderCheck, FindsAReadBeforeTheWrite) {
  // The checker itself: move y's node before the sum it reads.
  testing::Scheduled r = testing::run(testing::load_sample("example_7_1"), [] {
    FusionOptions o;
    o.fuse = false;
    return o;
  }());
  Schedule bad = r.schedule;
  std::swap(bad.kernels[0], bad.kernels[1]);
  EXPECT_EQ(testing::check_order(r.program, bad), "kernel op1: op1 reads buf1[0] before it is computed");
  Schedule fused = testing::run(testing::load_sample("example_7_1")).schedule;
  std::swap(fused.kernels[0].loop_groups[0], fused.kernels[0].loop_groups[1]);
  EXPECT_EQ(testing::check_order(r.program, fused), "kernel op0_op1: op1 reads buf1[0] before it is computed");
}

}  // namespace
}  // namespace stax::scheduler
