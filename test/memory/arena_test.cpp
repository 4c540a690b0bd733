// The arena: the tree of time and space splits (§7.5), best fit, and how close both come to M*.
#include "stax/memory/arena.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>

#include "problems.h"
#include "stax/memory/plan.h"

namespace stax::memory {
namespace {

TEST(Arena, PackingOrderLargestThenLongestLived) {
  const std::vector<ArenaBlock> blocks{{128, {0, 1}}, {256, {0, 1}}, {128, {0, 5}}, {256, {2, 3}}};
  EXPECT_EQ(packing_order(blocks), (std::vector<int>{1, 3, 2, 0}));
  EXPECT_EQ(packing_order(blocks, ArenaPacker::BestFitByArea), (std::vector<int>{2, 1, 3, 0}));
  EXPECT_EQ(packing_order(blocks, ArenaPacker::BestFitByLength), (std::vector<int>{2, 1, 3, 0}));
  EXPECT_EQ(packing_order(blocks, ArenaPacker::BestFitByStart), (std::vector<int>{1, 2, 0, 3}));
}

TEST(Arena, TreeTimeSplitSharesAddresses) {
  // Disjoint lifetimes: one slab, one time split of the two blocks.
  const ArenaLayout l = pack_tree({{256, {0, 1}}, {256, {2, 3}}});
  EXPECT_EQ(l.size, 256u);
  EXPECT_EQ(l.offsets, (std::vector<std::uint64_t>{0, 0}));
  ASSERT_EQ(l.tree.size(), 4u);  // root space, slab (time), two blocks
  EXPECT_EQ(l.tree[0].kind, ArenaNode::Kind::Space);
  EXPECT_EQ(l.tree[1].kind, ArenaNode::Kind::Time);
  EXPECT_EQ(l.tree[1].children.size(), 2u);
}

TEST(Arena, TreeSpaceSplitUsesTheRoomBesideABlock) {
  // A is large and short-lived; B and C are small, live together after A: side by side in A's
  // slab, the arena stays A's size.
  const ArenaLayout l = pack_tree({{256, {0, 1}}, {128, {2, 3}}, {128, {2, 3}}});
  EXPECT_EQ(l.size, 256u);
  EXPECT_EQ(l.offsets, (std::vector<std::uint64_t>{0, 0, 128}));
  // A block live with A cannot share the slab: a new slab above it.
  const ArenaLayout m = pack_tree({{256, {0, 1}}, {128, {1, 3}}});
  EXPECT_EQ(m.size, 384u);
  EXPECT_EQ(m.offsets, (std::vector<std::uint64_t>{0, 256}));
}

TEST(Arena, BestFitTakesTheSmallestGap) {
  // Placed first: 512 [0,9] at 0, 256 [0,1] at 512, 192 [0,1] at 768; then 128 [3,4] is live with
  // the 512 only, so it goes to 512 (the room above the 512 block); 64 [0,1] goes to the 960.
  const ArenaLayout l =
      pack(std::vector<ArenaBlock>{{512, {0, 9}}, {256, {0, 1}}, {192, {0, 1}}, {128, {3, 4}}, {64, {0, 1}}},
           ArenaPacker::BestFitBySize);
  EXPECT_EQ(l.offsets, (std::vector<std::uint64_t>{0, 512, 768, 512, 960}));
  EXPECT_EQ(l.size, 1024u);
  // Two holes open after step 2 (where B and D were), between long-lived blocks; G fits both and
  // takes the smaller (D's), where first fit would take B's.
  const std::vector<ArenaBlock> blocks{{512, {0, 9}},   // A
                                       {512, {0, 2}},   // B
                                       {512, {0, 9}},   // C
                                       {400, {0, 9}},   // F
                                       {320, {0, 2}},   // D
                                       {256, {0, 9}},   // E
                                       {256, {4, 5}}};  // G
  EXPECT_EQ(packing_order(blocks, ArenaPacker::BestFitBySize), (std::vector<int>{0, 2, 1, 3, 4, 5, 6}));
  const ArenaLayout h = pack(blocks, ArenaPacker::BestFitBySize);
  EXPECT_EQ(h.offsets, (std::vector<std::uint64_t>{0, 1024, 512, 1536, 1936, 2256, 1936}));
  EXPECT_EQ(h.size, 2512u);
}

// The arena against M* of the chosen order on network-shaped graphs: within 10%.
TEST(Arena, WithinTenPercentOfMStarOnNetworkGraphs) {
  double worst = 0, worst_tree = 0, sum_ratio = 0;
  int n = 0;
  for (std::uint64_t seed = 1; seed <= 200; ++seed) {
    const MemoryProblem p = testing::network_problem(seed, 4 + static_cast<int>(seed % 12));
    const MemoryPlan plan = plan_memory(p);
    ASSERT_GT(plan.m_star, 0u);
    const double ratio = static_cast<double>(plan.arena_size) / static_cast<double>(plan.m_star);
    const double tree = static_cast<double>(plan.packings.at(0)) / static_cast<double>(plan.m_star);
    EXPECT_LE(ratio, 1.10) << "seed " << seed;
    worst = std::max(worst, ratio);
    worst_tree = std::max(worst_tree, tree);
    sum_ratio += ratio;
    ++n;
  }
  std::printf("network graphs: arena/M* mean %.3f, worst %.3f (tree alone: worst %.3f)\n", sum_ratio / n, worst,
              worst_tree);
}

// The same on random DAGs, with a looser bound: sizes of 12 and 100 bytes pad to 64, and the
// DAGs are far more tangled than networks. Printed for the record.
TEST(Arena, RandomDagsRatio) {
  double worst = 0, sum_ratio = 0;
  int n = 0;
  for (std::uint64_t seed = 1; seed <= 300; ++seed) {
    const MemoryProblem p = testing::random_problem(seed, 20 + static_cast<int>(seed % 60));
    const MemoryPlan plan = plan_memory(p);
    if (plan.m_star == 0) continue;
    const double ratio = static_cast<double>(plan.arena_size) / static_cast<double>(plan.m_star);
    worst = std::max(worst, ratio);
    sum_ratio += ratio;
    ++n;
  }
  std::printf("random DAGs: arena/M* mean %.3f, worst %.3f\n", sum_ratio / n, worst);
  EXPECT_LE(sum_ratio / n, 1.25);
}

}  // namespace
}  // namespace stax::memory
