// Lifetimes, M* (Definition 7.5) and the orders of §7.5 / §7.6 step 5.
#include "stax/memory/order.h"

#include <gtest/gtest.h>

#include "problems.h"
#include "stax/memory/plan.h"

namespace stax::memory {
namespace {

using testing::ProblemBuilder;

TEST(Lifetimes, FromDefinitionThroughLastReader) {
  ProblemBuilder b;
  const int in = b.input("in", 64);
  const int a = b.intermediate("a", 100);
  const int c = b.intermediate("c", 200);
  const int dead = b.intermediate("dead", 30);
  const int out = b.output("out", 50);
  b.step("k0", {a}, {in});
  b.step("k1", {c, dead}, {a});
  b.step("k2", {out}, {a, c});
  const std::vector<Lifetime> life = lifetimes(b.p, {0, 1, 2});
  EXPECT_EQ(life[static_cast<std::size_t>(in)].def, -1);
  EXPECT_EQ(life[static_cast<std::size_t>(in)].last, 0);
  EXPECT_EQ(life[static_cast<std::size_t>(a)].def, 0);
  EXPECT_EQ(life[static_cast<std::size_t>(a)].last, 2);
  EXPECT_EQ(life[static_cast<std::size_t>(c)].def, 1);
  EXPECT_EQ(life[static_cast<std::size_t>(c)].last, 2);
  EXPECT_EQ(life[static_cast<std::size_t>(dead)].def, 1);  // nobody reads it: its own step only
  EXPECT_EQ(life[static_cast<std::size_t>(dead)].last, 1);
  EXPECT_EQ(life[static_cast<std::size_t>(out)].last, 2);
  // Intermediates only: 100, then 100 + 200 + 30, then 100 + 200 (the output is the caller's).
  EXPECT_EQ(memory_profile(b.p, {0, 1, 2}), (std::vector<std::uint64_t>{100, 330, 300}));
  EXPECT_EQ(peak_memory(b.p, {0, 1, 2}), 330u);
}

TEST(Orders, TopologicalCheck) {
  ProblemBuilder b;
  const int a = b.intermediate("a", 8);
  const int c = b.intermediate("c", 8);
  const int d = b.output("d", 8);
  b.step("k0", {a}, {});
  b.step("k1", {c}, {});
  b.step("k2", {d}, {a}, {}, {1});  // data edge from k0, ordering edge from k1
  (void)c;
  EXPECT_TRUE(is_topological(b.p, {0, 1, 2}));
  EXPECT_TRUE(is_topological(b.p, {1, 0, 2}));
  EXPECT_FALSE(is_topological(b.p, {0, 2, 1}));  // the ordering edge
  EXPECT_FALSE(is_topological(b.p, {2, 0, 1}));
  EXPECT_FALSE(is_topological(b.p, {0, 1}));
  EXPECT_FALSE(is_topological(b.p, {0, 0, 2}));
}

// Wide branches in the spirit of Proposition 7.4: k big intermediates a_i of the input, each
// reduced to a small b_i, all b_i summed. Given order: every a_i first, so all are live at once.
struct WideBranches {
  static constexpr std::uint64_t kBig = 4096, kSmall = 64;
  static constexpr int kBranches = 4;
  ProblemBuilder b;
  WideBranches() {
    const int x = b.input("x", kBig);
    std::vector<int> big, small;
    for (int i = 0; i < kBranches; ++i) big.push_back(b.intermediate("a" + std::to_string(i), kBig));
    for (int i = 0; i < kBranches; ++i) small.push_back(b.intermediate("b" + std::to_string(i), kSmall));
    const int out = b.output("out", kSmall);
    for (int i = 0; i < kBranches; ++i) b.step("big" + std::to_string(i), {big[static_cast<std::size_t>(i)]}, {x});
    for (int i = 0; i < kBranches; ++i)
      b.step("small" + std::to_string(i), {small[static_cast<std::size_t>(i)]}, {big[static_cast<std::size_t>(i)]});
    b.step("sum", {out}, small);
  }
};

TEST(Orders, WideBranchesReorderingLowersThePeak) {
  WideBranches w;
  const std::vector<int> given{0, 1, 2, 3, 4, 5, 6, 7, 8};
  // Given order: at small0 all four a_i and b0 are live: 4 * 4096 + 64.
  EXPECT_EQ(peak_memory(w.b.p, given), 4 * 4096u + 64u);
  // Least increase first: each a_i is reduced right after it is made.
  const std::vector<int> lmi = order_least_increase(w.b.p);
  EXPECT_EQ(lmi, (std::vector<int>{0, 4, 1, 5, 2, 6, 3, 7, 8}));
  // a3 and b0..b3 at small3: 4096 + 4 * 64.
  EXPECT_EQ(peak_memory(w.b.p, lmi), 4096u + 4 * 64u);
  // Depth first from the smallest step (the sum) down its smallest inputs: the same interleaving.
  EXPECT_EQ(order_depth_first(w.b.p), lmi);
  // Breadth first runs the sources (all a_i) first, like the given order.
  EXPECT_EQ(order_breadth_first(w.b.p), given);

  const MemoryPlan plan = plan_memory(w.b.p);
  EXPECT_EQ(plan.candidates.size(), 4u);
  EXPECT_EQ(plan.candidates[0].peak, 4 * 4096u + 64u);
  EXPECT_LT(plan.m_star, plan.candidates[0].peak);
  EXPECT_EQ(plan.m_star, 4096u + 4 * 64u);
  EXPECT_EQ(plan.strategy, OrderStrategy::LeastIncrease);  // the first of the equally good
  EXPECT_EQ(plan.order, lmi);
  // Without reordering the given order stays, with its peak.
  PlannerOptions keep;
  keep.reorder = false;
  const MemoryPlan kept = plan_memory(w.b.p, keep);
  EXPECT_EQ(kept.order, given);
  EXPECT_EQ(kept.m_star, 4 * 4096u + 64u);
  EXPECT_EQ(kept.candidates.size(), 1u);
}

TEST(Orders, BreadthFirstFollowsPredecessorPositions) {
  // Two sources s0, s1; c1 reads s1, c0 reads s0; ready together after both sources, c0 goes
  // first because its predecessor ran first, although c1 is listed first.
  ProblemBuilder b;
  const int s0 = b.intermediate("s0", 64), s1 = b.intermediate("s1", 64);
  const int c1 = b.output("c1", 64), c0 = b.output("c0", 64);
  b.step("s0", {s0}, {});
  b.step("s1", {s1}, {});
  b.step("c1", {c1}, {s1});
  b.step("c0", {c0}, {s0});
  EXPECT_EQ(order_breadth_first(b.p), (std::vector<int>{0, 1, 3, 2}));
}

TEST(Orders, TieKeepsTheGivenOrder) {
  ProblemBuilder b;
  const int a = b.intermediate("a", 64);
  const int c = b.output("c", 64);
  b.step("k0", {a}, {});
  b.step("k1", {c}, {a});
  const MemoryPlan plan = plan_memory(b.p);
  EXPECT_EQ(plan.strategy, OrderStrategy::Original);
  for (const OrderCandidate& cand : plan.candidates) EXPECT_EQ(cand.peak, 64u);
}

TEST(Orders, EveryStrategyIsTopologicalAndTheChoiceNeverWorse) {
  int improved = 0;
  for (std::uint64_t seed = 1; seed <= 300; ++seed) {
    const MemoryProblem p = testing::random_problem(seed, 5 + static_cast<int>(seed % 40));
    const std::vector<OrderCandidate> cands = order_candidates(p, true);
    ASSERT_EQ(cands.size(), 4u);
    for (const OrderCandidate& c : cands) {
      ASSERT_TRUE(is_topological(p, c.order)) << "seed " << seed << " " << order_strategy_name(c.strategy);
      ASSERT_EQ(c.peak, peak_memory(p, c.order));
    }
    const MemoryPlan plan = plan_memory(p);
    ASSERT_LE(plan.m_star, cands[0].peak) << "seed " << seed;
    for (const OrderCandidate& c : cands) ASSERT_LE(plan.m_star, c.peak);
    if (plan.m_star < cands[0].peak) ++improved;
  }
  // Reordering matters on random DAGs (a test that could not fail would be no test).
  EXPECT_GT(improved, 10);
}

TEST(Orders, LongChainDoesNotRecurse) {
  ProblemBuilder b;
  int prev = b.input("x", 64);
  for (int i = 0; i < 20000; ++i) {
    const int next = i + 1 == 20000 ? b.output("y", 64) : b.intermediate("t" + std::to_string(i), 64);
    b.step("k" + std::to_string(i), {next}, {prev});
    prev = next;
  }
  const std::vector<int> dfs = order_depth_first(b.p);
  ASSERT_EQ(dfs.size(), 20000u);
  EXPECT_EQ(dfs.front(), 0);
  EXPECT_EQ(dfs.back(), 19999);
}

}  // namespace
}  // namespace stax::memory
