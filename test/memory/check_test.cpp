// The plan checker: sound plans pass on many random problems under every option, and broken
// plans are caught (a checker that cannot fail would prove nothing).
#include "stax/memory/check.h"

#include <gtest/gtest.h>

#include "problems.h"
#include "stax/memory/plan.h"

namespace stax::memory {
namespace {

std::vector<PlannerOptions> all_options() {
  std::vector<PlannerOptions> out;
  for (int bits = 0; bits < 8; ++bits) {
    PlannerOptions o;
    o.reorder = (bits & 1) != 0;
    o.reuse = (bits & 2) != 0;
    o.inplace = (bits & 4) != 0;
    out.push_back(o);
  }
  PlannerOptions wide;
  wide.alignment = 256;
  out.push_back(wide);
  return out;
}

TEST(Check, RandomProblemsUnderEveryOption) {
  const std::vector<PlannerOptions> options = all_options();
  int inplace = 0, reused = 0;
  for (std::uint64_t seed = 1; seed <= 200; ++seed) {
    const MemoryProblem p = testing::random_problem(seed, 1 + static_cast<int>(seed % 70));
    ASSERT_EQ(validate_problem(p), "") << "seed " << seed;
    for (const PlannerOptions& o : options) {
      const MemoryPlan plan = plan_memory(p, o);
      const std::vector<std::string> v = check_plan(p, plan);
      ASSERT_TRUE(v.empty()) << "seed " << seed << ": " << v.front();
      for (const BufferPlan& b : plan.buffers) {
        inplace += b.placement == Placement::InPlace ? 1 : 0;
        reused += b.placement == Placement::Reuse ? 1 : 0;
      }
    }
  }
  // The random problems exercise both kinds of sharing.
  EXPECT_GT(inplace, 300);
  EXPECT_GT(reused, 300);
}

TEST(Check, NetworkProblems) {
  for (std::uint64_t seed = 1; seed <= 100; ++seed) {
    const MemoryProblem p = testing::network_problem(seed, 3 + static_cast<int>(seed % 10));
    const MemoryPlan plan = plan_memory(p);
    const std::vector<std::string> v = check_plan(p, plan);
    ASSERT_TRUE(v.empty()) << "seed " << seed << ": " << v.front();
  }
}

// A plan with an in-place pair and a reuse, to break in several ways.
struct Broken : ::testing::Test {
  testing::ProblemBuilder b;
  int x = 0, a = 0, c = 0, d = 0, e = 0, out = 0;
  MemoryPlan plan;
  void SetUp() override {
    x = b.input("x", 256);
    a = b.intermediate("a", 256);
    c = b.intermediate("c", 256);
    d = b.intermediate("d", 128);
    e = b.intermediate("e", 256);
    out = b.output("out", 256);
    b.step("k0", {a}, {x});
    b.step("k1", {c}, {a}, {{a, c}});
    b.step("k2", {d}, {c});
    b.step("k3", {e}, {d, x});
    b.step("k4", {out}, {e, c});
    plan = plan_memory(b.p);
    ASSERT_TRUE(check_plan(b.p, plan).empty());
    ASSERT_EQ(plan.buffers[static_cast<std::size_t>(c)].placement, Placement::InPlace);
  }
  BufferPlan& at(int i) { return plan.buffers[static_cast<std::size_t>(i)]; }
  std::string first() {
    const std::vector<std::string> v = check_plan(b.p, plan);
    return v.empty() ? "" : v.front();
  }
};

TEST_F(Broken, OverlapOfLiveBuffers) {
  at(d).offset = at(c).offset;  // d is born while c lives
  EXPECT_NE(first().find("overlaps"), std::string::npos) << first();
}

TEST_F(Broken, PartialOverlap) {
  at(d).offset = at(c).offset + 128 >= plan.arena_size ? at(c).offset : at(c).offset + 64;
  EXPECT_NE(first(), "");
}

TEST_F(Broken, InPlaceNotOffered) {
  b.p.steps[1].inplace.clear();
  EXPECT_NE(first().find("overlaps"), std::string::npos) << first();
}

TEST_F(Broken, InPlaceMarkedOnAnotherPair) {
  at(c).placement = Placement::Fresh;  // same bytes as a, no longer declared in place
  EXPECT_NE(first().find("overlaps"), std::string::npos) << first();
}

TEST_F(Broken, Misaligned) {
  at(d).offset += 8;
  EXPECT_NE(first(), "");
}

TEST_F(Broken, OutsideTheArena) {
  at(e).offset = plan.arena_size;
  EXPECT_NE(first().find("past the arena"), std::string::npos) << first();
}

TEST_F(Broken, OrderNotTopological) {
  std::swap(plan.order[0], plan.order[1]);
  EXPECT_NE(first().find("runs before"), std::string::npos) << first();
}

TEST_F(Broken, WrongLifetime) {
  at(a).life.last += 1;
  EXPECT_NE(first().find("lifetime"), std::string::npos) << first();
}

TEST_F(Broken, OutputPlacedInTheArena) {
  at(out).placement = Placement::Fresh;
  EXPECT_NE(first().find("not an intermediate"), std::string::npos) << first();
}

TEST_F(Broken, ArenaLargerThanTheSum) {
  plan.arena_size = 10000;
  EXPECT_NE(first().find("larger than"), std::string::npos) << first();
}

TEST(Validate, RejectsMalformedProblems) {
  testing::ProblemBuilder b;
  const int x = b.input("x", 4);
  const int a = b.intermediate("a", 4);
  b.step("k0", {a}, {x});
  EXPECT_EQ(validate_problem(b.p), "");
  MemoryProblem twice = b.p;
  twice.steps.push_back({"k1", {a}, {}, {}, {}});
  EXPECT_EQ(validate_problem(twice), "a is defined twice");
  MemoryProblem early = b.p;
  early.steps[0].reads.push_back(2);
  EXPECT_NE(validate_problem(early).find("out of range"), std::string::npos);
  MemoryProblem undefined = b.p;
  undefined.buffers.push_back({2, "b", DType::Float32, 4, BufferRole::Intermediate});
  EXPECT_EQ(validate_problem(undefined), "b is defined by no step");
  MemoryProblem input_def = b.p;
  input_def.steps[0].defines.push_back(x);
  EXPECT_NE(validate_problem(input_def).find("defines x"), std::string::npos);
  MemoryProblem forward = b.p;
  forward.steps[0].after.push_back(0);
  EXPECT_NE(validate_problem(forward).find("later step"), std::string::npos);
  MemoryProblem bad_candidate = b.p;
  bad_candidate.steps[0].inplace.push_back({a, a});
  EXPECT_NE(validate_problem(bad_candidate).find("does not read"), std::string::npos);
}

}  // namespace
}  // namespace stax::memory
