// The planner: reuse pool, in place, the arena, determinism (§7.5).
#include "stax/memory/plan.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "problems.h"
#include "stax/memory/check.h"
#include "stax/memory/dump.h"

namespace stax::memory {
namespace {

using testing::ProblemBuilder;

void expect_sound(const MemoryProblem& p, const MemoryPlan& plan) {
  const std::vector<std::string> v = check_plan(p, plan);
  EXPECT_TRUE(v.empty()) << v.front();
}

const BufferPlan& of(const MemoryPlan& plan, int b) { return plan.buffers[static_cast<std::size_t>(b)]; }

// 8 layers of linear + relu on a batch of 32: the matmul into a fresh buffer, then bias + relu
// in place of it. Widths 64 -> 256 -> 512 -> 128 -> 1024 -> 256 -> 64 -> 32 -> 16.
TEST(Plan, ChainOfLinearReluKeepsTwoActivationsLive) {
  const std::uint64_t widths[] = {64, 256, 512, 128, 1024, 256, 64, 32, 16};
  const std::uint64_t batch_bytes = 32 * 4;
  ProblemBuilder b;
  int x = b.input("x", batch_bytes * widths[0]);
  std::vector<int> acts;
  for (int i = 1; i <= 8; ++i) {
    const std::uint64_t bytes = batch_bytes * widths[i];
    const int w = b.constant("w" + std::to_string(i), 4 * widths[i] * widths[i - 1]);
    const int bias = b.constant("b" + std::to_string(i), 4 * widths[i]);
    const int mm = b.intermediate("mm" + std::to_string(i), bytes);
    const int h = i == 8 ? b.output("y", bytes) : b.intermediate("h" + std::to_string(i), bytes);
    b.step("matmul" + std::to_string(i), {mm}, {x, w});
    b.step("bias_relu" + std::to_string(i), {h}, {mm, bias}, {{mm, h}});
    acts.push_back(mm);
    x = h;
  }
  const MemoryPlan plan = plan_memory(b.p);
  expect_sound(b.p, plan);
  // Definition 7.5 counts mm4 and h4 (1024 wide) both at bias_relu4; in place they are one.
  EXPECT_EQ(plan.m_star, batch_bytes * (1024 + 1024));
  // The largest pair really live together: h4 read by matmul5 while it writes mm5 (256 wide).
  EXPECT_EQ(plan.reuse_bound, batch_bytes * (1024 + 256));
  EXPECT_EQ(plan.planned_peak, batch_bytes * (1024 + 256));
  std::vector<std::uint64_t> sizes;
  for (int i = 1; i <= 8; ++i) sizes.push_back(batch_bytes * widths[i]);
  std::sort(sizes.rbegin(), sizes.rend());
  EXPECT_LE(plan.arena_size, sizes[0] + sizes[1] + 64);
  EXPECT_EQ(plan.arena_size, plan.planned_peak);
  // Every bias + relu but the last (a graph output) wrote in place of its matmul.
  int inplace = 0;
  for (const InPlaceDecision& d : plan.inplace) inplace += d.accepted ? 1 : 0;
  EXPECT_EQ(inplace, 7);
  EXPECT_EQ(plan.inplace.back().reason, "the written buffer is a graph output");
  // Each matmul + relu pair is one storage; mm5 matches the freed storage of layer 1 in size, but
  // holding it across layer 4 would lift the peak, so the pool refuses it.
  EXPECT_EQ(plan.storages.size(), 8u);
  EXPECT_EQ(plan.reuses, 0);
  EXPECT_EQ(plan.reuses_refused, 1);
  EXPECT_LE(plan.planned_peak, plan.m_star);
  (void)acts;
}

// a -> c -> d -> out, all 256 bytes of float32: d takes a's storage from the pool.
TEST(Plan, ReusePoolTakesAFreedStorageOfTheSameDtypeAndSize) {
  for (DType d_type : {DType::Float32, DType::Int32}) {
    ProblemBuilder b;
    const int x = b.input("x", 256);
    const int a = b.intermediate("a", 256);
    const int c = b.intermediate("c", 256);
    const int d = b.intermediate("d", 256, d_type);
    const int out = b.output("out", 256);
    b.step("k0", {a}, {x});
    b.step("k1", {c}, {a});
    b.step("k2", {d}, {c});
    b.step("k3", {out}, {d});
    const MemoryPlan plan = plan_memory(b.p);
    expect_sound(b.p, plan);
    EXPECT_EQ(plan.m_star, 512u);
    EXPECT_EQ(plan.arena_size, 512u);
    if (d_type == DType::Float32) {
      EXPECT_EQ(of(plan, d).placement, Placement::Reuse);
      EXPECT_EQ(of(plan, d).shares, a);
      EXPECT_EQ(of(plan, d).offset, of(plan, a).offset);
      EXPECT_EQ(plan.storages.size(), 2u);
      EXPECT_EQ(plan.reuses, 1);
    } else {
      // Another dtype: no reuse, though the arena still overlays them (disjoint lifetimes).
      EXPECT_EQ(of(plan, d).placement, Placement::Fresh);
      EXPECT_EQ(plan.storages.size(), 3u);
      EXPECT_EQ(plan.reuses, 0);
    }
    EXPECT_NE(of(plan, c).offset, of(plan, a).offset);
  }
}

// e (1024 bytes) could take a's storage, but it would have to be held through the 4096-byte
// peak in between: refused (§7.5 rule 2).
TEST(Plan, ReusePoolNeverRaisesThePeak) {
  ProblemBuilder b;
  const int x = b.input("x", 64);
  const int a = b.intermediate("a", 1024);
  const int s = b.intermediate("s", 64);
  const int big = b.intermediate("big", 4096);
  const int t = b.intermediate("t", 64);
  const int e = b.intermediate("e", 1024);
  const int out = b.output("out", 64);
  b.step("k0", {a}, {x});
  b.step("k1", {s}, {a});
  b.step("k2", {big}, {s});
  b.step("k3", {t}, {big});
  b.step("k4", {e}, {t});
  b.step("k5", {out}, {e});
  PlannerOptions keep;
  keep.reorder = false;
  const MemoryPlan plan = plan_memory(b.p, keep);
  expect_sound(b.p, plan);
  EXPECT_EQ(plan.m_star, 4096u + 64u);
  EXPECT_EQ(of(plan, e).placement, Placement::Fresh);
  EXPECT_EQ(plan.reuses_refused, 1);
  // t takes s's storage: freed at k2, taken at k3, no gap to hold it across.
  EXPECT_EQ(of(plan, t).placement, Placement::Reuse);
  EXPECT_EQ(of(plan, t).shares, s);
  EXPECT_EQ(plan.reuses, 1);
  EXPECT_EQ(plan.planned_peak, plan.m_star);
}

TEST(Plan, ReuseNeverRaisesThePeakOnRandomGraphs) {
  int reuses = 0, refused = 0;
  for (std::uint64_t seed = 1; seed <= 300; ++seed) {
    const MemoryProblem p = testing::random_problem(seed, 10 + static_cast<int>(seed % 50));
    PlannerOptions no_inplace;
    no_inplace.inplace = false;
    for (const PlannerOptions& o : {PlannerOptions{}, no_inplace}) {
      const MemoryPlan plan = plan_memory(p, o);
      ASSERT_LE(plan.planned_peak, plan.m_star) << "seed " << seed;
      reuses += plan.reuses;
      refused += plan.reuses_refused;
    }
  }
  EXPECT_GT(reuses, 100);
  EXPECT_GT(refused, 0);
}

struct InPlaceCase {
  ProblemBuilder b;
  int x, a, c, out;
  // k1 reads a and writes c; the candidate (a, c) is offered only when `offer`.
  InPlaceCase(DType c_dtype, std::uint64_t c_bytes, bool offer, bool a_used_later = false) {
    x = b.input("x", 1024);
    a = b.intermediate("a", 1024);
    c = b.intermediate("c", c_bytes, c_dtype);
    out = b.output("out", 1024);
    b.step("k0", {a}, {x});
    std::vector<InPlaceCandidate> cands;
    if (offer) cands.push_back({a, c});
    b.step("k1", {c}, {a}, cands);
    b.step("k2", {out}, a_used_later ? std::vector<int>{c, a} : std::vector<int>{c});
  }
};

TEST(Plan, InPlaceOnlyWithMatchingDtypeSizeAndIndex) {
  {
    InPlaceCase k(DType::Float32, 1024, true);
    const MemoryPlan plan = plan_memory(k.b.p);
    expect_sound(k.b.p, plan);
    EXPECT_EQ(of(plan, k.c).placement, Placement::InPlace);
    EXPECT_EQ(of(plan, k.c).shares, k.a);
    EXPECT_EQ(of(plan, k.c).offset, of(plan, k.a).offset);
    ASSERT_EQ(plan.inplace.size(), 1u);
    EXPECT_TRUE(plan.inplace[0].accepted);
    // Definition 7.5 counts both at k1; in place they share: the arena is half of M*.
    EXPECT_EQ(plan.m_star, 2048u);
    EXPECT_EQ(plan.planned_peak, 1024u);
    EXPECT_EQ(plan.arena_size, 1024u);
  }
  struct Refused {
    DType dtype;
    std::uint64_t bytes;
    bool later;
    const char* reason;
  };
  for (const Refused& r : {Refused{DType::Int32, 1024, false, "dtype differs"},
                           Refused{DType::Float32, 512, false, "size differs"},
                           Refused{DType::Float32, 1024, true, "the read buffer is used later"}}) {
    InPlaceCase k(r.dtype, r.bytes, true, r.later);
    const MemoryPlan plan = plan_memory(k.b.p);
    expect_sound(k.b.p, plan);
    EXPECT_NE(of(plan, k.c).placement, Placement::InPlace) << r.reason;
    ASSERT_EQ(plan.inplace.size(), 1u);
    EXPECT_FALSE(plan.inplace[0].accepted);
    EXPECT_EQ(plan.inplace[0].reason, r.reason);
    EXPECT_NE(of(plan, k.c).offset, of(plan, k.a).offset);
  }
  // Same dtype and size but read at another index: the adapter offers no candidate, and the
  // planner does not write in place on its own.
  InPlaceCase k(DType::Float32, 1024, false);
  const MemoryPlan plan = plan_memory(k.b.p);
  expect_sound(k.b.p, plan);
  EXPECT_EQ(of(plan, k.c).placement, Placement::Fresh);
  EXPECT_TRUE(plan.inplace.empty());
  EXPECT_EQ(plan.arena_size, 2048u);
  // In place turned off.
  PlannerOptions off;
  off.inplace = false;
  InPlaceCase k2(DType::Float32, 1024, true);
  const MemoryPlan plan2 = plan_memory(k2.b.p, off);
  EXPECT_EQ(of(plan2, k2.c).placement, Placement::Fresh);
  EXPECT_EQ(plan2.inplace.at(0).reason, "in-place reuse is off");
}

TEST(Plan, InPlaceRefusesInputsOutputsAndATakenReader) {
  ProblemBuilder b;
  const int x = b.input("x", 256);
  const int a = b.intermediate("a", 256);
  const int c = b.intermediate("c", 256);
  const int d = b.intermediate("d", 256);
  const int y = b.output("y", 256);
  b.step("k0", {a}, {x}, {{x, a}});               // x is the caller's input
  b.step("k1", {c, d}, {a}, {{a, c}, {a, d}});    // d cannot have a's memory too
  b.step("k2", {y}, {c, d}, {{c, y}});            // y is the caller's output
  const MemoryPlan plan = plan_memory(b.p);
  expect_sound(b.p, plan);
  ASSERT_EQ(plan.inplace.size(), 4u);
  EXPECT_EQ(plan.inplace[0].reason, "the read buffer is not an intermediate");
  EXPECT_TRUE(plan.inplace[1].accepted);
  EXPECT_EQ(plan.inplace[2].reason, "the read buffer's memory is already taken");
  EXPECT_EQ(plan.inplace[3].reason, "the written buffer is a graph output");
  EXPECT_EQ(of(plan, c).placement, Placement::InPlace);
  EXPECT_NE(of(plan, d).placement, Placement::InPlace);
}

TEST(Plan, ArenaNeverAboveTheSumOfIntermediates) {
  for (std::uint64_t seed = 1; seed <= 300; ++seed) {
    const MemoryProblem p = testing::random_problem(seed, 10 + static_cast<int>(seed % 60));
    const MemoryPlan plan = plan_memory(p);
    ASSERT_LE(plan.arena_size, plan.sum_intermediates_aligned) << "seed " << seed;
    ASSERT_EQ(plan.packings.size(), 5u);
    ASSERT_EQ(plan.arena_size, *std::min_element(plan.packings.begin(), plan.packings.end()));
  }
  for (std::uint64_t seed = 1; seed <= 100; ++seed) {
    // Sizes that are multiples of the alignment: not above the plain sum either.
    const MemoryProblem p = testing::network_problem(seed, 8);
    const MemoryPlan plan = plan_memory(p);
    ASSERT_LE(plan.arena_size, plan.sum_intermediates) << "seed " << seed;
  }
}

TEST(Plan, Deterministic) {
  for (std::uint64_t seed = 1; seed <= 50; ++seed) {
    const MemoryProblem p = testing::random_problem(seed, 40);
    const std::string first = dump_memory_json(plan_memory(p));
    const MemoryProblem again = testing::random_problem(seed, 40);
    EXPECT_EQ(dump_memory_json(plan_memory(again)), first) << "seed " << seed;
  }
}

TEST(Plan, EmptyProblem) {
  const MemoryPlan plan = plan_memory(MemoryProblem{});
  EXPECT_EQ(plan.arena_size, 0u);
  EXPECT_EQ(plan.m_star, 0u);
  EXPECT_TRUE(plan.order.empty());
}

}  // namespace
}  // namespace stax::memory

namespace stax::memory {
namespace {

// Step 5: the pool's decisions stand unless the arena without them is smaller.
TEST(Plan, ReusePoolKeptUnlessItFragmentsTheArena) {
  int dropped = 0, kept_with_reuse = 0;
  for (std::uint64_t seed = 1; seed <= 60; ++seed) {
    for (const MemoryProblem& p : {testing::network_problem(seed, 20), testing::random_problem(seed, 60)}) {
      const MemoryPlan plan = plan_memory(p);
      PlannerOptions off;
      off.reuse = false;
      const MemoryPlan without = plan_memory(p, off);
      ASSERT_EQ(plan.arena_without_pool, without.arena_size);
      if (plan.pool_dropped) {
        ++dropped;
        ASSERT_LT(plan.arena_without_pool, plan.arena_with_pool);
        ASSERT_EQ(plan.arena_size, plan.arena_without_pool);
        ASSERT_EQ(plan.reuses, 0);
        EXPECT_NE(memory_summary(plan).find("reuse pool dropped"), std::string::npos);
      } else {
        ASSERT_LE(plan.arena_with_pool, plan.arena_without_pool);
        ASSERT_EQ(plan.arena_size, plan.arena_with_pool);
        if (plan.reuses > 0) ++kept_with_reuse;
      }
      ASSERT_LE(plan.arena_size, without.arena_size);
    }
  }
  EXPECT_GT(dropped, 5);
  EXPECT_GT(kept_with_reuse, 5);
}

}  // namespace
}  // namespace stax::memory
