// Lowering against the reference interpreter on the project's seeded random graphs: every op
// family, every dtype, views of views, broadcasting, scalars.
#include <gtest/gtest.h>

#include "compare.h"
#include "random_graph.h"
#include "stax/graph/frontend.h"

namespace stax::testing {
namespace {

void run_seeds(const randgraph::RandomGraphOptions& opt, uint64_t first, uint64_t last) {
  int failures = 0;
  for (uint64_t seed = first; seed <= last; ++seed) {
    randgraph::RandomGraph rg = randgraph::random_graph(seed, randgraph::lowerable(opt));
    graph::Graph g = graph::parse_graph(rg.json);
    std::string err = compare_with_interpreter(g, seed, Tolerance{2e-5, 1e-5});
    if (!err.empty()) {
      ADD_FAILURE() << "seed " << seed << ": " << err << "\n" << rg.json;
      if (++failures >= 3) break;
    }
  }
}

TEST(LoweringRandomGraphs, Default) { run_seeds({}, 1, 400); }

TEST(LoweringRandomGraphs, DeepGraphs) {
  randgraph::RandomGraphOptions opt;
  opt.max_nodes = 40;
  run_seeds(opt, 1, 60);
}

TEST(LoweringRandomGraphs, ViewsAndCatPad) {
  randgraph::RandomGraphOptions opt;
  opt.only_ops = {"reshape", "permute", "transpose", "expand", "unsqueeze", "squeeze",
                  "flatten", "slice", "select", "cat", "pad", "add", "mul", "sum", "matmul"};
  opt.max_nodes = 20;
  run_seeds(opt, 1, 150);
}

TEST(LoweringRandomGraphs, ZeroDivisorsFailTogether) {
  randgraph::RandomGraphOptions opt;
  opt.zero_divisors = true;
  opt.only_ops = {"div", "remainder", "add", "cat", "sum", "reshape", "where"};
  run_seeds(opt, 1, 300);
}

}  // namespace
}  // namespace stax::testing
