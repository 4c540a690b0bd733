// The generated code built once with AddressSanitizer and UndefinedBehaviorSanitizer (any report
// aborts the run): no out-of-bounds access (masked loads of cat and pad, views, matmul strides),
// no signed overflow, no bad shift or cast, no leak of the workspace it allocates; an index out
// of range reads nothing outside the data.
#include <gtest/gtest.h>

#include "cases.h"
#include "random_graph.h"

namespace stax::e2e {
namespace {

std::vector<std::string> sanitize_flags() {
  return {"-std=c++17", "-O1", "-g", "-march=native", "-fopenmp", "-Wall", "-Wextra", "-Werror",
          "-fsanitize=address,undefined", "-fno-sanitize-recover=all", "-fno-omit-frame-pointer"};
}

TEST(E2E, CleanUnderAddressAndUndefinedBehaviourSanitizers) {
  std::vector<Case> cases;
  // Whole tables where memory is addressed in unusual ways (masks, views, strides, copies).
  for (auto table : {interface_cases, view_cases, composite_matmul_cases, nn_cases}) {
    std::vector<Case> more = table();
    cases.insert(cases.end(), more.begin(), more.end());
  }
  // A sample of the op tables, every fifth case (an instrumented build is slow).
  for (auto table : {scalar_cast_where_cases, unary_cases, binary_cases, reduction_cases}) {
    std::vector<Case> more = table();
    for (std::size_t i = 0; i < more.size(); i += 5) cases.push_back(more[i]);
  }
  EXPECT_EQ(run_cases(cases, sanitize_flags()), cases.size());
}

// Random graphs (every op family, rows long enough for full vectors and tails), sanitized the
// same way: what no table thought of.
TEST(E2E, RandomGraphsCleanUnderSanitizers) {
  randgraph::RandomGraphOptions opt;
  opt.max_numel = 1024;
  opt.zero_divisors = true;
  std::vector<Case> cases;
  for (uint64_t seed = 300000; seed < 300060; ++seed) {
    randgraph::RandomGraph g = randgraph::random_graph(seed, randgraph::lowerable(opt));
    Case c;
    c.name = g.name;
    c.json = g.json;
    c.seed = seed;
    c.expect = g.may_divide_by_zero ? Expect::Either : Expect::Match;
    cases.push_back(std::move(c));
  }
  EXPECT_EQ(run_cases(cases, sanitize_flags()), cases.size());
}

// The smallest graphs scripts/randgraph.sh shrank failures to, kept once fixed (with the seed
// whose inputs they failed on).
TEST(E2E, ShrunkRandomGraphFailures) {
  std::vector<Case> cases;
  // Seed 257: an index operand of & printed bare, "-x0 - 1 & int64_t{0}", which -Wparentheses
  // (an error under -Werror) flags.
  Case c;
  c.name = "rg_257_bitwise_and_of_arange";
  c.seed = 257;
  c.json = R"({"format": "stax-graph", "version": 1, "name": "rg_257", "inputs": [],
    "nodes": [{"name": "a", "op": "arange", "args": [], "start": -1, "end": -13, "step": -1, "dtype": "int64"},
              {"name": "t", "op": "bitwise_and", "args": ["a", 0]},
              {"name": "u", "op": "bitwise_xor", "args": [{"op": "neg", "args": ["a"]}, 5]}],
    "outputs": ["t", "u"]})";
  cases.push_back(c);
  EXPECT_EQ(run_cases(cases, sanitize_flags()), cases.size());
  for (const IsaVariant& v : isa_variants()) EXPECT_EQ(run_cases(cases, v.cxxflags, v.isa), cases.size()) << v.isa.name();
}

// Seed 592 of scripts/randgraph.sh, shrunk: the rows index_select picks from a softmax were read
// after the index_select had written over them in place (the memory plan took the indexed load
// for a read at the element written).
TEST(E2E, ShrunkRandomGraph592IndexSelectOfSoftmax) {
  Case c;
  c.name = "rg_592_index_select_of_softmax";
  c.seed = 592;
  c.json = R"({"format": "stax-graph", "version": 1, "name": "rg_592",
    "inputs": [{"name": "for", "dtype": "float64", "shape": [5, 3]}, {"name": "q", "dtype": "int32", "shape": [5]},
               {"name": "h_3", "dtype": "bool", "shape": [5, 1]}],
    "constants": [{"name": "c1", "dtype": "float64", "shape": [5, 3, 5, 3], "fill": 3.625}],
    "nodes": [{"name": "V2", "op": "softmax", "args": ["for"], "dim": 1},
              {"name": "out.5.a", "op": "index_select", "args": ["V2", {"op": "clamp", "args": ["q"], "min": 0, "max": 4}], "dim": -2},
              {"name": "v7", "op": "where", "args": ["h_3", "c1", "out.5.a"]}],
    "outputs": ["v7"]})";
  EXPECT_EQ(run_cases({c}), 1u);
}

// Seed 9148 of scripts/randgraph.sh, shrunk: an `any` over a dim of size 1 is a reduction group
// without a reduction loop; the kernel plan's next-row prefetches took the loop of such a group
// from its empty list of reduction dims, and staxc crashed on every vector instruction set.
TEST(E2E, ShrunkRandomGraph9148ReductionOverADimOfSizeOne) {
  Case c;
  c.name = "rg_9148_reduction_over_a_dim_of_size_one";
  c.seed = 9148;
  c.json = R"({"format": "stax-graph", "version": 1, "name": "rg_9148",
    "inputs": [{"name": "in2", "dtype": "float32", "shape": [1, 4, 1, 1]}],
    "constants": [{"name": "w", "dtype": "bool", "shape": [1, 4, 1, 1], "fill": false},
                  {"name": "c0_2", "dtype": "bool", "shape": [1, 4, 1, 1], "data": [true, true, true, false]}],
    "nodes": [{"name": "t.2", "op": "adaptive_avg_pool2d", "args": ["in2"], "output_size": [4, 5]},
              {"name": "NULL", "op": "logical_xor", "args": ["in2", "w"]},
              {"name": "h_8", "op": "bitwise_or", "args": ["w", "c0_2"]},
              {"name": "out.10.a", "op": "acos", "args": [{"op": "clamp", "args": ["t.2"], "min": -0.9, "max": 0.9}]},
              {"name": "n-11", "op": "bitwise_and", "args": ["NULL", {"op": "any", "args": ["h_8"], "dim": 0, "keepdim": true}]}],
    "outputs": ["out.10.a", "n-11"]})";
  for (const IsaVariant& v : isa_variants()) EXPECT_EQ(run_cases({c}, v.cxxflags, v.isa), 1u) << v.isa.name();
}

// Seed 1426 of scripts/randgraph.sh --conv, shrunk: `(x | 7) != 6` is always true, and g++ -Wall
// said so of the generated comparison (-Wtautological-compare) until integer & | ^ became calls.
TEST(E2E, ShrunkRandomGraph1426ComparisonOfABitwiseOr) {
  Case c;
  c.name = "rg_1426_comparison_of_a_bitwise_or";
  c.seed = 1426;
  c.json = R"({"format": "stax-graph", "version": 1, "name": "rg_1426",
    "inputs": [{"name": "i", "dtype": "bool", "shape": [1]}],
    "nodes": [{"name": "n-3", "op": "bitwise_or", "args": ["i", {"op": "full", "args": [], "shape": [6], "value": 7}]},
              {"name": "4", "op": "ne", "args": ["n-3", 6]},
              {"name": "5", "op": "eq", "args": [{"op": "bitwise_and", "args": ["n-3", 8]}, 1]}],
    "outputs": ["4", "5"]})";
  for (const IsaVariant& v : isa_variants()) EXPECT_EQ(run_cases({c}, v.cxxflags, v.isa), 1u) << v.isa.name();
}

}  // namespace
}  // namespace stax::e2e
