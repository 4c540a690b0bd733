// Each rule of can_fuse and Algorithm 7.1 on its own: compatible and incompatible iteration
// groups (Definition 7.2), the refused i+1 read (Propositions 7.2, 7.3), the cycle of
// Proposition 7.1 (directly and through fused nodes), the limits, the shared-bytes threshold,
// the peak-memory guard, the 16x rule, dead nodes and WeakDeps.
#include <gtest/gtest.h>

#include <algorithm>

#include "helpers.h"
#include "models.h"
#include "stax/lowering/lower.h"
#include "stax/scheduler/fusion.h"

namespace stax::scheduler {
namespace {

using testing::kernel_names;
using testing::parse;
using testing::refusals;
using testing::run;

const char* kX = R"([{"name": "x", "dtype": "float32", "shape": [64, 128]}])";

// can_fuse on the scheduler nodes of a lowered graph, before any fusion.
struct Pair {
  ir::Program p;
  SchedulerGraph g;
  explicit Pair(const graph::Graph& graph) : p(lowering::lower(graph)), g(build_graph(p, build_nodes(p))) {}
  FusionDecision decide(int a, int b, const FusionOptions& o = {}) const { return Fuser(p, g, o).can_fuse(a, b); }
};

// The chapter's CPU rules as written (--fusion-rules chapter): no pointwise loop is split to
// join another kernel's outer loops.
FusionOptions chapter_rules() {
  FusionOptions o;
  o.split_pointwise = false;
  o.epilogues = false;
  return o;
}

// ---- Score and the 16x rule (§7.3) ---------------------------------------------------------

TEST(Score, LexicographicTypeBytesBuffersDistance) {
  EXPECT_TRUE(score_before({1, 100, 1, 5}, {0, 200, 3, 1}));   // type first (200 < 16 * 100)
  EXPECT_TRUE(score_before({0, 300, 1, 5}, {0, 200, 3, 1}));   // then bytes
  EXPECT_TRUE(score_before({0, 200, 3, 5}, {0, 200, 2, 1}));   // then shared buffers
  EXPECT_TRUE(score_before({0, 200, 2, 1}, {0, 200, 2, 5}));   // then the nearer pair
  EXPECT_FALSE(score_before({0, 200, 2, 5}, {0, 200, 2, 5}));  // equal: neither first
  EXPECT_EQ(to_string(Score{0, 33024, 2, 1}), "(0, 33024, 2, -1)");
}

TEST(Score, SixteenTimesTheBytesOutranksType) {
  // 16x or more apart: only the bytes count, even against a better type score.
  EXPECT_TRUE(score_before({0, 1600, 1, 9}, {1, 100, 5, 1}));
  EXPECT_FALSE(score_before({1, 100, 5, 1}, {0, 1600, 1, 9}));
  // 15.99x: the type decides again.
  EXPECT_TRUE(score_before({1, 100, 1, 9}, {0, 1599, 1, 1}));
  // Zero shared bytes against any sharing: bytes decide.
  EXPECT_TRUE(score_before({0, 1, 1, 9}, {1, 0, 0, 1}));
}

TEST(Score, SixteenTimesRuleOrdersCandidatesInARound) {
  // (op0 sum, op1 y) share x and the row sums: type 0, 33024 bytes. (op1 y, op2 z) share only
  // the 512 bytes of w, with type 1. 33024 >= 16 * 512: the bytes alone decide, so op0 and op1
  // are fused first and op1 is taken for this round.
  testing::Scheduled r = run(parse(
      R"([{"name": "x", "dtype": "float32", "shape": [64, 128]}, {"name": "w", "dtype": "float32", "shape": [128]}])",
      R"([{"name": "s", "op": "sum", "args": ["x"], "dim": -1, "keepdim": true},
          {"name": "y", "op": "mul", "args": [{"op": "div", "args": ["x", "s"]}, "w"]},
          {"name": "z", "op": "mul", "args": [{"op": "expand", "args": ["w"], "shape": [64, 128]}, 3.0]}])",
      R"(["y", "z"])"));
  ASSERT_GE(r.schedule.fusions.size(), 2u);
  EXPECT_EQ(r.schedule.fusions[0].first, "op0");
  EXPECT_EQ(r.schedule.fusions[0].second, "op1");
  EXPECT_EQ(r.schedule.fusions[0].score, (Score{0, 33024, 2, 1}));
  EXPECT_EQ(r.schedule.fusions[0].round, 1);
  EXPECT_EQ(r.schedule.fusions[1].round, 2);
  EXPECT_NE(r.log.find("skipping op1 with op2: one of them was fused in this round"), std::string::npos) << r.log;
}

// ---- Definition 7.2 on CPU -------------------------------------------------------------------

TEST(IterationGroups, RowReductionAndRowPointwiseShareTheOuterLoop) {
  Pair t(parse(kX, R"([{"name": "s", "op": "sum", "args": ["x"], "dim": -1, "keepdim": true},
                       {"name": "y", "op": "div", "args": ["x", "s"]}])", R"(["y"])"));
  EXPECT_EQ(t.g.nodes[0].group, (IterationGroup{{64}, {128}}));
  EXPECT_EQ(t.g.nodes[1].group, (IterationGroup{{64, 128}, {}}));
  FusionDecision d = t.decide(0, 1);
  ASSERT_TRUE(d.ok) << d.reason;
  EXPECT_EQ(d.kind, KernelKind::OuterLoopFused);
  EXPECT_EQ(d.depth, 1u);
  EXPECT_TRUE(d.vertical);
}

TEST(IterationGroups, RowResultPointwiseIsCompatibleWithItsReduction) {
  // Definition 7.2 (3), N = n: a pointwise node over the 64 row results.
  Pair t(parse(kX, R"([{"name": "s", "op": "sum", "args": ["x"], "dim": -1},
                       {"name": "r", "op": "reciprocal", "args": ["s"]}])", R"(["s", "r"])"));
  EXPECT_EQ(t.g.nodes[1].group, (IterationGroup{{64}, {}}));
  FusionDecision d = t.decide(0, 1);
  ASSERT_TRUE(d.ok) << d.reason;
  EXPECT_EQ(d.kind, KernelKind::OuterLoopFused);
}

TEST(IterationGroups, SameReductionsAreHorizontal) {
  Pair t(parse(kX, R"([{"name": "s", "op": "sum", "args": ["x"], "dim": -1},
                       {"name": "m", "op": "amax", "args": ["x"], "dim": -1}])", R"(["s", "m"])"));
  FusionDecision d = t.decide(0, 1);
  ASSERT_TRUE(d.ok) << d.reason;
  EXPECT_EQ(d.kind, KernelKind::Horizontal);
  EXPECT_EQ(d.reason, "SAME_VARS_REDUCE");
  EXPECT_FALSE(d.vertical);
  EXPECT_EQ(d.score.type, 1);
  EXPECT_EQ(d.score.bytes, 32768u);
}

TEST(IterationGroups, PointwiseNestsWithTheSameCountAreSplitToMatch) {
  // e: (8192,) after merging; y reads a row broadcast, so it stays (64, 128). Same count:
  // the coarser nest is split (Definition 7.2 (2)).
  Pair t(parse(kX, R"([{"name": "e", "op": "exp", "args": ["x"]},
                       {"name": "s", "op": "sum", "args": ["x"], "dim": -1, "keepdim": true},
                       {"name": "y", "op": "div", "args": ["e", "s"]}])", R"(["e", "y"])"));
  ASSERT_EQ(t.g.nodes.size(), 3u);
  EXPECT_EQ(t.g.nodes[0].group, (IterationGroup{{8192}, {}}));
  EXPECT_EQ(t.g.nodes[2].group, (IterationGroup{{64, 128}, {}}));
  FusionDecision d = t.decide(0, 2);
  ASSERT_TRUE(d.ok) << d.reason;
  EXPECT_EQ(d.kind, KernelKind::Fused);
  EXPECT_EQ(d.refined, (std::vector<int64_t>{64, 128}));
  EXPECT_EQ(common_refinement({8192}, {64, 128}), (std::vector<int64_t>{64, 128}));
  EXPECT_EQ(common_refinement({64, 128}, {128, 64}), (std::vector<int64_t>{64, 2, 64}));
  EXPECT_EQ(common_refinement({6, 4}, {4, 6}), std::nullopt);
  EXPECT_EQ(common_refinement({6, 4}, {25}), std::nullopt);
}

TEST(IterationGroups, OuterLoopsMergedInOneKernelAreSplitToMatch) {
  // A masked softmax over [16, 64, 32]: the row max reads a [64, 32] mask, so its rows stay
  // (16, 64); the row sum of e reads e alone, so its rows merge to (1024,). The same 1024 rows:
  // one kernel over (16, 64).
  testing::Scheduled r = run(parse(
      R"([{"name": "x", "dtype": "float32", "shape": [16, 64, 32]}, {"name": "mask", "dtype": "bool", "shape": [64, 32]}])",
      R"([{"name": "s", "op": "where", "args": ["mask", "x", "-inf"]},
          {"name": "m", "op": "amax", "args": ["s"], "dim": -1, "keepdim": true},
          {"name": "e", "op": "exp", "args": [{"op": "sub", "args": ["s", "m"]}]},
          {"name": "z", "op": "sum", "args": ["e"], "dim": -1, "keepdim": true},
          {"name": "y", "op": "div", "args": ["e", "z"]}])",
      R"(["y"])"));
  ASSERT_EQ(r.schedule.nodes.size(), 4u);
  EXPECT_EQ(r.schedule.nodes[0].group, (IterationGroup{{16, 64}, {32}}));
  EXPECT_EQ(r.schedule.nodes[2].group, (IterationGroup{{1024}, {32}}));
  ASSERT_EQ(r.schedule.kernels.size(), 1u) << r.log;
  EXPECT_EQ(r.schedule.kernels[0].outer, (std::vector<int64_t>{16, 64}));
  EXPECT_EQ(common_outer({16, 64}, {1024}), (std::vector<int64_t>{16, 64}));
  EXPECT_EQ(common_outer({64}, {64, 128}), (std::vector<int64_t>{64}));
  EXPECT_EQ(common_outer({8192}, {64}), std::nullopt);        // example 7.2
  EXPECT_EQ(common_outer({4, 6}, {6, 4}), std::nullopt);      // 24 shared, but 4 and 6 no chain
  EXPECT_EQ(common_outer({2, 3, 5}, {6, 7}), (std::vector<int64_t>{2, 3}));
}

TEST(IterationGroups, ColumnReductionAndRowPointwiseAreIncompatible) {
  // sum over dim 0: ((128,), (64,)); the pointwise consumer runs (64, 128): no common outer loop.
  Pair t(parse(kX, R"([{"name": "c", "op": "sum", "args": ["x"], "dim": 0, "keepdim": true},
                       {"name": "y", "op": "div", "args": ["x", "c"]}])", R"(["y"])"));
  EXPECT_EQ(t.g.nodes[0].group, (IterationGroup{{128}, {64}}));
  FusionDecision d = t.decide(0, 1, chapter_rules());
  EXPECT_FALSE(d.ok);
  EXPECT_EQ(d.refusal, Refusal::IncompatibleRanges);
  EXPECT_EQ(d.reason, "outer loop fusion depth 0: ((128,), (64,)) vs ((64, 128), ()); vertical fusion refused");
  // By default the pointwise loops split to meet the 128 columns, and Proposition 7.2 refuses:
  // a row of y reads the sums of every column.
  d = t.decide(0, 1);
  EXPECT_FALSE(d.ok);
  EXPECT_EQ(d.refusal, Refusal::DependenceDistance);
}

TEST(IterationGroups, ExampleSevenTwoDepthZero) {
  Pair t(testing::load_sample("example_7_2"));
  FusionDecision d = t.decide(0, 1, chapter_rules());
  EXPECT_FALSE(d.ok);
  EXPECT_EQ(d.refusal, Refusal::IncompatibleRanges);
  EXPECT_EQ(d.reason, "outer loop fusion depth 0: ((8192,), ()) vs ((64,), (128,)); vertical fusion refused");
}

// By default exp's loop (8192,) splits as (64, 128) to join the rows of its sum: exp is computed
// inside the reduction's kernel, once per element, instead of being stored.
TEST(IterationGroups, ExampleSevenTwoSplitsThePointwiseLoop) {
  Pair t(testing::load_sample("example_7_2"));
  const FusionDecision d = t.decide(0, 1);
  ASSERT_TRUE(d.ok) << d.reason;
  EXPECT_EQ(d.kind, KernelKind::OuterLoopFused);
  EXPECT_EQ(d.reason, "outer loop fusion depth 1, loops (64,)");
  EXPECT_EQ(split_at({8192}, 64), (std::vector<int64_t>{64, 128}));
  EXPECT_EQ(split_at({16, 512}, 64), (std::vector<int64_t>{16, 4, 128}));
  EXPECT_EQ(split_at({64, 128}, 64), (std::vector<int64_t>{64, 128}));
  EXPECT_FALSE(split_at({100}, 64).has_value());
  EXPECT_EQ(common_outer({8192}, {64}, true, false), (std::vector<int64_t>{64}));
  EXPECT_FALSE(common_outer({8192}, {64}).has_value());
}

// ---- Propositions 7.2 and 7.3: distance 0 only ------------------------------------------------

TEST(DependenceDistance, ReadOfTheNextRowIsRefused) {
  // y[i, j] = x[i, j] / s[i + 1] (s shifted up by one row, padded with 1): the read of buf1 at
  // c0 + 1 is written one outer iteration later.
  Pair t(parse(kX, R"([{"name": "s", "op": "sum", "args": ["x"], "dim": -1, "keepdim": true},
                       {"name": "t", "op": "pad", "args": ["s"], "pad": [0, 0, -1, 1], "value": 1.0},
                       {"name": "y", "op": "div", "args": ["x", "t"]}])", R"(["y"])"));
  ASSERT_EQ(t.g.nodes.size(), 2u);
  FusionDecision d = t.decide(0, 1);
  EXPECT_FALSE(d.ok);
  EXPECT_EQ(d.refusal, Refusal::DependenceDistance);
  EXPECT_EQ(d.reason, "op1 reads buf1 at c0 + 1 over {c0: 64} but op0 writes it at c0 over {c0: 64}: "
                      "the dependence distance over the 1 shared loop(s) is not 0 (Propositions 7.2, 7.3)");
}

TEST(DependenceDistance, AnIndexedReadNeedsTheWholeBuffer) {
  // g[i, k] = e[i, j[k]]: which element of e depends on data, so the read is a StarDep of e and
  // the producer of e is never fused with it, whatever the indices.
  Pair t(parse(R"([{"name": "x", "dtype": "float32", "shape": [4, 16]}, {"name": "j", "dtype": "int64", "shape": [16]}])",
               R"([{"name": "e", "op": "exp", "args": ["x"]},
                   {"name": "y", "op": "index_select", "args": ["e", "j"], "dim": 1}])",
               R"(["y"])"));
  ASSERT_EQ(t.g.nodes.size(), 2u);
  EXPECT_NE(std::find(t.g.nodes[1].reads.begin(), t.g.nodes[1].reads.end(), Dep{DepKind::Star, 2, {}}),
            t.g.nodes[1].reads.end());
  EXPECT_TRUE(t.g.nodes[1].loads.size() == 1u && t.g.nodes[1].loads[0].buffer == 1);  // j only
  EXPECT_TRUE(t.g.nodes[1].may_fail);
  FusionDecision d = t.decide(0, 1);
  EXPECT_FALSE(d.ok);
  EXPECT_EQ(d.refusal, Refusal::DependenceDistance);
  EXPECT_EQ(d.reason, "op1 reads buf2 whole (StarDep, an indexed load): op0 must have written all of it");
}

TEST(DependenceDistance, ReadOfTheNextElementIsRefused) {
  // e is stored (exp, two users); y[i] = e[i] + e[i + 1] (zero past the end).
  Pair t(parse(R"([{"name": "x", "dtype": "float32", "shape": [256]}])",
               R"([{"name": "e", "op": "exp", "args": ["x"]},
                   {"name": "y", "op": "add", "args": ["e", {"op": "pad", "args": ["e"], "pad": [-1, 1]}]}])",
               R"(["y"])"));
  ASSERT_EQ(t.g.nodes.size(), 2u);
  FusionDecision d = t.decide(0, 1);
  EXPECT_FALSE(d.ok);
  EXPECT_EQ(d.refusal, Refusal::DependenceDistance);
  testing::Scheduled r = run(parse(R"([{"name": "x", "dtype": "float32", "shape": [256]}])",
                                   R"([{"name": "e", "op": "exp", "args": ["x"]},
                                       {"name": "y", "op": "add", "args": ["e", {"op": "pad", "args": ["e"], "pad": [-1, 1]}]}])",
                                   R"(["y"])"));
  EXPECT_EQ(r.schedule.kernels.size(), 2u);
  EXPECT_EQ(refusals(r.schedule, Refusal::DependenceDistance), 1);
}

TEST(DependenceDistance, BroadcastReadOverTheInnerLoopIsRefused) {
  // y[i, j] = x[i, j] * s[j] with s the row sums of a 64 x 64 input: s[j] is not written in
  // outer iteration i, although its canonical index alone (c0 over {c0: 64}) equals the write.
  Pair t(parse(R"([{"name": "x", "dtype": "float32", "shape": [64, 64]}])",
               R"([{"name": "s", "op": "sum", "args": ["x"], "dim": -1},
                   {"name": "y", "op": "mul", "args": ["x", "s"]}])", R"(["y"])"));
  FusionDecision d = t.decide(0, 1);
  EXPECT_FALSE(d.ok);
  EXPECT_EQ(d.refusal, Refusal::DependenceDistance);
  EXPECT_NE(d.reason.find("at c1 over {c0: 64, c1: 64}"), std::string::npos) << d.reason;
}

TEST(DependenceDistance, CanonicalAccessesKeepTheOuterLoops) {
  NodeLoops l;
  l.x = {64, 128};
  l.reindex = {{ir::xvar(0), ir::Index::var(ir::xvar(0))}, {ir::xvar(1), ir::Index::var(ir::xvar(1))}};
  const ir::Index row = ir::Index::var(ir::xvar(0));
  const ir::Index col = ir::Index::var(ir::xvar(1));
  EXPECT_EQ(ir::to_string(access_at_depth(row, l, 1)), "c0 over {c0: 64}");
  EXPECT_EQ(ir::to_string(access_at_depth(row * 128 + col, l, 1)), "c0 over {c0: 8192}");
  EXPECT_EQ(ir::to_string(access_at_depth(col, l, 1)), "c1 over {c0: 64, c1: 128}");
  EXPECT_EQ(ir::to_string(access_at_depth(col, l, 0)), "c0 over {c0: 128}");
}

// ---- Proposition 7.1 ----------------------------------------------------------------------------

TEST(Cycle, PathThroughAThirdNodeIsRefused) {
  // a (row sums) -> c (a matmul, its own kernel: no epilogue) -> b; a and b share x and a's
  // output, are compatible, but merging them would close a -> c -> ab.
  FusionOptions no_epilogues;
  no_epilogues.epilogues = false;
  testing::Scheduled r = run(parse(
      R"([{"name": "x", "dtype": "float32", "shape": [64, 128]}, {"name": "o", "dtype": "float32", "shape": [1, 128]}])",
      R"([{"name": "a", "op": "sum", "args": ["x"], "dim": -1, "keepdim": true},
          {"name": "c", "op": "matmul", "args": ["a", "o"]},
          {"name": "b", "op": "add", "args": [{"op": "div", "args": ["x", "a"]}, "c"]}])",
      R"(["b"])"),
      no_epilogues);
  EXPECT_EQ(kernel_names(r.schedule), (std::vector<std::string>{"op0", "op1", "op2"}));
  EXPECT_EQ(refusals(r.schedule, Refusal::Cycle), 1);  // round 1 fuses nothing: the last one
  EXPECT_NE(r.log.find("cannot fuse op0 with op2 (cycle): the merge would close a cycle (Proposition 7.1)"),
            std::string::npos)
      << r.log;
}

TEST(Cycle, PathThroughAFusedNodeIsFoundByTheSearchUpwards) {
  // a -> f1 and f2 -> b, no path from a to b. Once f1 and f2 are one node, a -> (f1 f2) -> b:
  // merging a and b would close a cycle the ancestor sets computed at the start do not show.
  ir::Program p = lowering::lower(parse(
      kX,
      R"([{"name": "a", "op": "sum", "args": ["x"], "dim": -1, "keepdim": true},
          {"name": "f1", "op": "div", "args": ["x", "a"]},
          {"name": "f2", "op": "mul", "args": ["x", 3.0]},
          {"name": "b", "op": "amax", "args": [{"op": "add", "args": ["x", "f2"]}], "dim": -1, "keepdim": true}])",
      R"(["f1", "f2", "b"])"));
  const SchedulerGraph g = build_graph(p, build_nodes(p));
  ASSERT_EQ(g.nodes.size(), 4u);  // op0 a, op1 f1, op2 f2, op3 b
  Fuser f(p, g);
  EXPECT_FALSE(g.is_ancestor(0, 3));
  EXPECT_TRUE(g.is_ancestor(0, 1));   // f1 reads a
  EXPECT_TRUE(g.is_ancestor(2, 3));   // b reads f2 (inlined into its argument)
  EXPECT_FALSE(g.is_ancestor(1, 0));
  EXPECT_FALSE(f.would_create_cycle(0, 3));
  const FusionDecision d12 = f.can_fuse(1, 2);
  ASSERT_TRUE(d12.ok) << d12.reason;
  const int f12 = f.fuse(1, 2, d12);
  EXPECT_EQ(f.node(f12).name, "op1_op2");
  EXPECT_TRUE(f.would_create_cycle(0, 3));
  EXPECT_FALSE(f.would_create_cycle(0, f12));
  EXPECT_FALSE(f.would_create_cycle(f12, 3));
}

// ---- Limits -------------------------------------------------------------------------------------

TEST(Limits, AtMost128NodesPerKernel) {
  const testing::Model m = testing::pointwise_chain_model(200, true);
  testing::Scheduled r = run(parse(m.inputs, m.nodes, m.outputs), {}, false);
  ASSERT_EQ(r.schedule.nodes.size(), 200u);
  EXPECT_GE(r.schedule.kernels.size(), 2u);
  for (const Kernel& k : r.schedule.kernels) EXPECT_LE(k.nodes.size(), 128u);
  EXPECT_GT(refusals(r.schedule, Refusal::TooManyNodes), 0);
}

TEST(Limits, NodeLimitIsAnOption) {
  const testing::Model m = testing::pointwise_chain_model(10, true);
  FusionOptions o;
  o.max_nodes = 4;
  testing::Scheduled r = run(parse(m.inputs, m.nodes, m.outputs), o);
  EXPECT_EQ(r.schedule.kernels.size(), 3u);  // 4 + 4 + 2
  for (const Kernel& k : r.schedule.kernels) EXPECT_LE(k.nodes.size(), 4u);
}

TEST(Limits, AtMost32BuffersInMemoryPerKernel) {
  // 20 outputs y_k = x_k * z: each y_k reads x_k and z and writes y_k. All share z.
  std::string inputs = R"([{"name": "z", "dtype": "float32", "shape": [256]})";
  std::string nodes = "[", outputs = "[";
  for (int k = 0; k < 20; ++k) {
    const std::string i = std::to_string(k);
    inputs += R"(, {"name": "x)" + i + R"(", "dtype": "float32", "shape": [256]})";
    nodes += std::string(k ? ", " : "") + R"({"name": "y)" + i + R"(", "op": "mul", "args": ["x)" + i + R"(", "z"]})";
    outputs += std::string(k ? ", " : "") + "\"y" + i + "\"";
  }
  testing::Scheduled r = run(parse(inputs + "]", nodes + "]", outputs + "]"), {}, false);
  EXPECT_GE(r.schedule.kernels.size(), 2u);
  for (const Kernel& k : r.schedule.kernels) EXPECT_LE(k.reads.size() + k.writes.size(), 32u);
  EXPECT_GT(refusals(r.schedule, Refusal::TooManyBuffers), 0);
  // Without the limit they all become one kernel.
  FusionOptions o;
  o.max_buffers = 1000;
  EXPECT_EQ(run(parse(inputs + "]", nodes + "]", outputs + "]"), o, false).schedule.kernels.size(), 1u);
}

TEST(Limits, BuffersThatStayInsideDoNotCount) {
  // The materialized chain: 50 buffers, but only x and the last one leave the kernel.
  const testing::Model m = testing::pointwise_chain_model(50, true);
  testing::Scheduled r = run(parse(m.inputs, m.nodes, m.outputs), {}, false);
  ASSERT_EQ(r.schedule.kernels.size(), 1u);
  EXPECT_EQ(r.schedule.kernels[0].internal.size(), 49u);
}

// ---- Shared data and peak memory ----------------------------------------------------------------

TEST(SharedData, DifferentPartsOfOneInputShareNothing) {
  testing::Scheduled r = run(parse(kX,
                                   R"([{"name": "a", "op": "exp", "args": [{"op": "slice", "args": ["x"], "dim": 1, "end": 64}]},
                                       {"name": "b", "op": "exp", "args": [{"op": "slice", "args": ["x"], "dim": 1, "start": 64}]}])",
                                   R"(["a", "b"])"));
  EXPECT_EQ(r.schedule.kernels.size(), 2u);
  EXPECT_EQ(refusals(r.schedule, Refusal::LittleSharedData), 1);
}

TEST(PeakMemory, FarApartHorizontalFusionIsRefused) {
  // y1 and y2 both read x and nothing else links them; 12 stored nodes lie between them.
  const std::string chain = testing::pointwise_chain_model(12, true).nodes;
  const std::string body = R"([{"name": "y1", "op": "exp", "args": ["x"]}, )" + chain.substr(1, chain.size() - 2) +
                           R"(, {"name": "y2", "op": "sin", "args": ["x"]}])";
  const graph::Graph g = parse(kX, body, R"(["y1", "t12", "y2"])");
  ir::Program p = lowering::lower(g);
  const SchedulerGraph sg = build_graph(p, build_nodes(p));
  ASSERT_EQ(sg.nodes.size(), 14u);
  FusionOptions o;
  o.max_horizontal_distance = 4;
  const FusionDecision d = Fuser(p, sg, o).can_fuse(0, 13);
  EXPECT_FALSE(d.ok);
  EXPECT_EQ(d.refusal, Refusal::PeakMemory);
  EXPECT_EQ(d.reason, "horizontal fusion of nodes 13 apart would keep their buffers alive longer (at most 4)");
  // Such pairs are not even candidates of Algorithm 7.1, so y1 and y2 stay apart; with the
  // default distance they are fused.
  EXPECT_TRUE(Fuser(p, sg).can_fuse(0, 13).ok);
  const Schedule far = schedule(p, o);
  EXPECT_NE(kernel_of(far, sg.nodes[0].buffer), kernel_of(far, sg.nodes[13].buffer));
  for (const auto& [a, b] : Fuser(p, sg, o).candidates()) EXPECT_FALSE(a == 0 && b == 13);
  bool near_pair = false;
  for (const auto& [a, b] : Fuser(p, sg).candidates()) near_pair = near_pair || (a == 0 && b == 13);
  EXPECT_TRUE(near_pair);
}

// Under the chapter's rules (no epilogues; epilogue_test.cpp has them).
TEST(Extern, MatmulIsItsOwnKernel) {
  testing::Scheduled r = run(testing::load_sample("mlp"), chapter_rules());
  ASSERT_EQ(r.schedule.kernels.size(), 4u);
  EXPECT_EQ(r.schedule.kernels[0].kind, KernelKind::Extern);
  EXPECT_EQ(r.schedule.kernels[2].kind, KernelKind::Extern);
  EXPECT_EQ(refusals(r.schedule, Refusal::Extern), 3);
  EXPECT_EQ(to_string(r.schedule.nodes[0].reads[0], r.program), "StarDep('x')");
}

// A convolution reads its input, weight and bias whole (StarDeps); the relu before it is stored,
// the one after it its epilogue (one kernel with it).
TEST(Extern, ConvolutionIsItsOwnKernelWithItsEpilogue) {
  testing::Scheduled r = run(parse(R"([{"name": "x", "dtype": "float32", "shape": [1, 2, 6, 6]},
                                       {"name": "w", "dtype": "float32", "shape": [4, 2, 3, 3]},
                                       {"name": "b", "dtype": "float32", "shape": [4]}])",
                                   R"([{"name": "r", "op": "relu", "args": ["x"]},
                                       {"name": "c", "op": "conv2d", "args": ["r", "w", "b"], "padding": 1},
                                       {"name": "y", "op": "relu", "args": ["c"]}])",
                                   R"(["y"])"));
  ASSERT_EQ(r.schedule.kernels.size(), 2u);
  EXPECT_EQ(r.schedule.kernels[1].kind, KernelKind::Epilogue);
  const auto& conv = r.schedule.nodes[1];
  ASSERT_EQ(conv.reads.size(), 3u);
  EXPECT_EQ(to_string(conv.reads[0], r.program), "StarDep('buf3')");
  EXPECT_EQ(to_string(conv.reads[1], r.program), "StarDep('w')");
  EXPECT_EQ(to_string(conv.reads[2], r.program), "StarDep('b')");
  EXPECT_NE(describe_node(conv, r.program).find("ExternKernelSchedulerNode(ExternKernelOut)  # buf4, conv: c"), std::string::npos)
      << describe_node(conv, r.program);
}

// ---- Algorithm 7.1 ------------------------------------------------------------------------------

TEST(Rounds, EachNodeFusesAtMostOncePerRound) {
  const testing::Model m = testing::pointwise_chain_model(8, true);
  testing::Scheduled r = run(parse(m.inputs, m.nodes, m.outputs));
  ASSERT_EQ(r.schedule.kernels.size(), 1u);
  std::vector<int> per_round(5, 0);
  for (const FusionRecord& f : r.schedule.fusions) ++per_round[static_cast<std::size_t>(f.round)];
  EXPECT_EQ(per_round, (std::vector<int>{0, 4, 2, 1, 0}));  // pairs, pairs of pairs, one
  EXPECT_EQ(r.schedule.rounds, 4);                         // the 4th finds nothing
}

TEST(Rounds, NoFuseKeepsEveryNode) {
  FusionOptions o;
  o.fuse = false;
  testing::Scheduled r = run(testing::load_sample("softmax"), o);
  EXPECT_EQ(kernel_names(r.schedule), (std::vector<std::string>{"op0", "op1", "op2", "op3"}));
  EXPECT_TRUE(r.schedule.fusions.empty());
  EXPECT_EQ(r.schedule.rounds, 0);
}

// ---- Dead nodes and dependencies ---------------------------------------------------------------

TEST(DeadNodes, UnreadNodesGoButFailingOnesStay) {
  ir::Program p = lowering::lower(parse(R"([{"name": "x", "dtype": "int32", "shape": [16]}])",
                                        R"([{"name": "q", "op": "div", "args": [7, "x"], "rounding_mode": "floor"},
                                            {"name": "y", "op": "add", "args": ["x", 1]}])",
                                        R"(["y"])"));
  // An unread float buffer added by hand: dead.
  ir::Buffer extra = p.buffers.back();
  extra.id = static_cast<ir::BufferId>(p.buffers.size());
  extra.name = "buf" + std::to_string(extra.id);
  p.buffers.push_back(extra);
  const SchedulerGraph g = build_graph(p, build_nodes(p));
  ASSERT_EQ(g.nodes.size(), 2u);
  EXPECT_TRUE(g.nodes[0].may_fail);  // the integer division nobody reads
  EXPECT_EQ(g.dead, (std::vector<std::string>{"op2"}));
}

TEST(Dependencies, WeakDepOrdersButIsNotFused) {
  ir::Program p = lowering::lower(parse(kX,
                                        R"([{"name": "a", "op": "exp", "args": ["x"]},
                                            {"name": "b", "op": "sin", "args": ["x"]}])",
                                        R"(["a", "b"])"));
  std::vector<SchedulerNode> nodes = build_nodes(p);
  ASSERT_EQ(nodes.size(), 2u);
  // b must run after a (as a reader of a buffer before an in-place update would).
  nodes[1].reads.push_back(Dep{DepKind::Weak, nodes[0].buffer, {}});
  Schedule s = schedule_nodes(p, nodes);
  EXPECT_EQ(s.nodes[1].preds, (std::vector<int>{0}));
  EXPECT_EQ(s.kernels.size(), 2u);
  EXPECT_EQ(refusals(s, Refusal::DependenceDistance), 1);
  EXPECT_EQ(to_string(nodes[1].reads.back(), p), "WeakDep('buf1')");
}

}  // namespace
}  // namespace stax::scheduler
