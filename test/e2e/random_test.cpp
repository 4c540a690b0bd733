// Differential testing on random graphs (test/randgraph): every op family and dtype, seeded,
// through generated code and the interpreter on the same inputs. STAX_RANDOM_GRAPHS=N runs N
// graphs per test instead of the default (the longer mode).
#include <gtest/gtest.h>

#include <cstdlib>

#include "e2e.h"
#include "random_graph.h"

namespace stax::e2e {
namespace {

int graph_count(int default_count) {
  const char* env = std::getenv("STAX_RANDOM_GRAPHS");
  if (env == nullptr || *env == '\0') return default_count;
  return std::max(1, std::atoi(env));
}

std::vector<Case> random_cases(uint64_t first_seed, int count, const randgraph::RandomGraphOptions& opt) {
  std::vector<Case> cases;
  for (int k = 0; k < count; ++k) {
    const uint64_t seed = first_seed + static_cast<uint64_t>(k);
    randgraph::RandomGraph g = randgraph::random_graph(seed, randgraph::lowerable(opt));
    Case c;
    c.name = g.name;
    c.json = g.json;
    c.seed = seed;
    c.expect = g.may_divide_by_zero ? Expect::Either : Expect::Match;
    cases.push_back(std::move(c));
  }
  return cases;
}

// Seeds of one test never overlap another's: a failure names its graph (rg_<seed>), which
// `staxc check` reproduces with --seed <seed> on the printed JSON.
TEST(RandomGraphs, EveryFamily) {
  const std::vector<Case> cases = random_cases(1000, graph_count(150), {});
  EXPECT_EQ(run_cases(cases), cases.size());
}

TEST(RandomGraphs, ElementwiseAndViewsWithZeroDivisors) {
  randgraph::RandomGraphOptions opt;
  opt.reductions = false;
  opt.matmul = false;
  opt.composites = false;
  opt.zero_divisors = true;
  const std::vector<Case> cases = random_cases(50000, graph_count(100), opt);
  EXPECT_EQ(run_cases(cases), cases.size());
}

// Every instruction set this machine has (--isa scalar, avx2, avx512), rows long enough for
// full vectors and tails.
TEST(RandomGraphs, EveryIsa) {
  randgraph::RandomGraphOptions opt;
  opt.max_numel = 1024;
  const std::vector<Case> cases = random_cases(120000, graph_count(60), opt);
  for (const IsaVariant& v : isa_variants()) {
    SCOPED_TRACE("--isa " + v.isa.name());
    EXPECT_EQ(run_cases(cases, v.cxxflags, v.isa), cases.size());
  }
}

// The same graphs on AArch64 (--isa neon and scalar, cross-built, run under qemu).
TEST(RandomGraphs, EveryIsaOnAarch64) {
  const std::vector<IsaVariant> variants = cross_variants();
  if (variants.empty()) GTEST_SKIP() << kNoCrossTools;
  randgraph::RandomGraphOptions opt;
  opt.max_numel = 1024;
  const std::vector<Case> cases = random_cases(120000, graph_count(60), opt);
  for (const IsaVariant& v : variants) {
    SCOPED_TRACE("--isa " + v.name());
    EXPECT_EQ(run_cases(cases, v), cases.size());
  }
}

// Built as users build: -O3 -march=native.
TEST(RandomGraphs, LargerGraphs) {
  randgraph::RandomGraphOptions opt;
  opt.max_nodes = 30;
  opt.max_numel = 2048;
  const std::vector<Case> cases = random_cases(90000, graph_count(50), opt);
  EXPECT_EQ(run_cases(cases, optimized_cxxflags()), cases.size());
}

}  // namespace
}  // namespace stax::e2e
