// The range-aware simplifier: a table of check(input, expected) lines, then randomized
// equivalence and canonical-form properties.
#include "stax/ir/simplify.h"

#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <random>

namespace stax::ir {
namespace {

const Index x0 = Index::var(xvar(0));
const Index x1 = Index::var(xvar(1));
const Index x2 = Index::var(xvar(2));
const Index x3 = Index::var(xvar(3));
const Index r0 = Index::var(rvar(0));
Index c(int64_t v) { return Index::constant(v); }

// x0 < 64, x1 < 128, x2 < 4, x3 < 1, r0 < 128
const VarRanges kRanges{{xvar(0), 64}, {xvar(1), 128}, {xvar(2), 4}, {xvar(3), 1}, {rvar(0), 128}};

void check(const Index& in, const std::string& expected, const VarRanges& ranges = kRanges) {
  Index out = simplify(in, ranges);
  EXPECT_EQ(to_string(out), expected) << "input: " << to_string(in);
  EXPECT_EQ(simplify(out, ranges), out) << "not idempotent: " << to_string(in);
}

TEST(Simplify, Table) {
  check(x0, "x0");
  check(x3, "0");                           // extent 1
  check(5 * x3 + x0, "x0");
  check(x0 * x3, "0");
  check(floordiv(x1, 128), "0");            // 0 <= x1 < 128
  check(floordiv(x1, 200), "0");
  check(floordiv(x0, 32), "x0 // 32");
  check(floordiv(x0, 64), "0");
  check(mod(x1, 128), "x1");
  check(mod(x1, 256), "x1");
  check(mod(x1, 64), "x1 % 64");
  check(floordiv(128 * x0 + x1, 128), "x0");
  check(mod(128 * x0 + x1, 128), "x1");
  check(floordiv(128 * x0 + r0, 128), "x0");
  check(floordiv(8 * x0 + x2, 16), "x0 // 2");          // 8*x0 + x2 with x2 < 4 < 8
  check(mod(8 * x0 + x2, 16), "x2 + 8*(x0 % 2)");
  check(floordiv(x2 + 4 * x0, 4), "x0");
  check(mod(x2 + 4 * x0, 4), "x2");
  check(floordiv(2 * x2 + 8 * x0, 4), "2*x0 + x2 // 2");
  check(floordiv(64 * x0 + x1, 128), "(64*x0 + x1) // 128");  // x1 may exceed 63: stays
  check(mod(floordiv(x1, 2), 64), "x1 // 2");           // x1 // 2 < 64
  check(mod(floordiv(x1, 2), 32), "(x1 // 2) % 32");
  check(floordiv(x0 + 1, 64), "(x0 + 1) // 64");        // 1 <= x0 + 1 <= 64
  check(floordiv(x0 + 64, 64), "1");
  check(floordiv(-x0 + 63, 64), "0");
  check(floordiv(x0 - 64, 64), "-1");
  check(mod(x0 + 64, 64), "x0");
  check(mod(x1 - 128, 128), "x1");
  check(mod(x0 + 1, 64), "(x0 + 1) % 64");
  check(mod(-x0 + 63, 64), "-x0 + 63");
  check(x1 - 64, "x1 - 64");
  check(4 * floordiv(x1, 4) + mod(x1, 4), "x1");
  check(4 * mod(floordiv(x1, 4), 32) + mod(x1, 4), "x1");  // x1 % 128 == x1
  check(4 * mod(floordiv(x1, 4), 16) + mod(x1, 4), "x1 % 64");
  check(2 * mod(x1, 64) + floordiv(x1, 64), "x1 // 64 + 2*(x1 % 64)");  // transposed: stays
  check(floordiv(floordiv(x1, 4), 8), "x1 // 32");
  check(floordiv(floordiv(x1, 4), 32), "0");
  check(mod(mod(x1, 32), 8), "x1 % 8");
  check(floordiv(mod(x1, 32), 8), "(x1 // 8) % 4");
  check(floordiv(mod(x1, 64), 64), "0");
  check(mod(3 * x2, 16), "3*x2");           // 3*x2 <= 9
  check(mod(5 * x1, 4), "x1 % 4");          // 5 = 4 + 1
  check(floordiv(5 * x2, 4), "x2");        // 5*x2 = 4*x2 + x2, x2 < 4 -> x2 // 4 = 0
  check(mod(4 * x2 + 3, 4), "3");
  check(floordiv(4 * x2 + 3, 4), "x2");
  check(floordiv(x2 + 8192 * x0 + 2 * x1, 2), "4096*x0 + x1 + x2 // 2");
  // 0-d and constants.
  check(c(0), "0");
  check(floordiv(c(17), 5), "3");
  check(mod(c(-1), 5), "4");
}

TEST(Simplify, ReshapeRoundTrips) {
  // [64, 128] contiguous, read as [32, 256]: address 128*(2*x0 + x1 // 128) + x1 % 128.
  VarRanges r{{xvar(0), 32}, {xvar(1), 256}};
  Index flat = 256 * x0 + x1;
  std::vector<Index> coords = unflatten_index(flat, {64, 128});
  for (Index& e : coords) e = simplify(e, r);
  EXPECT_EQ(to_string(coords[0]), "2*x0 + x1 // 128");
  EXPECT_EQ(to_string(coords[1]), "x1 % 128");
  EXPECT_EQ(to_string(simplify(flat_index(coords, {64, 128}), r)), "256*x0 + x1");
  // x.T ([128, 64] view of a [64, 128] buffer) flattened to [8192]: non-contiguous.
  VarRanges rj{{xvar(0), 8192}};
  std::vector<Index> t = unflatten_index(x0, {128, 64});
  Index addr = simplify(128 * t[1] + t[0], rj);
  EXPECT_EQ(to_string(addr), "x0 // 64 + 128*(x0 % 64)");
}

// ---- randomized equivalence: a raw expression tree evaluated directly vs the simplified form.

struct Raw {
  enum Kind { Const, Var, Add, Mul, Div, Mod } kind;
  int64_t value = 0;
  int var = 0;
  std::shared_ptr<Raw> a, b;
};
using RawP = std::shared_ptr<Raw>;

int64_t fdiv(int64_t a, int64_t d) { return a / d - ((a % d != 0) && ((a < 0) != (d < 0))); }
int64_t fmod_py(int64_t a, int64_t d) { return a - d * fdiv(a, d); }

int64_t eval_raw(const RawP& e, const std::vector<int64_t>& vals) {
  switch (e->kind) {
    case Raw::Const: return e->value;
    case Raw::Var: return vals[e->var];
    case Raw::Add: return eval_raw(e->a, vals) + eval_raw(e->b, vals);
    case Raw::Mul: return eval_raw(e->a, vals) * eval_raw(e->b, vals);
    case Raw::Div: return fdiv(eval_raw(e->a, vals), e->value);
    case Raw::Mod: return fmod_py(eval_raw(e->a, vals), e->value);
  }
  return 0;
}

Index build_raw(const RawP& e) {
  switch (e->kind) {
    case Raw::Const: return Index::constant(e->value);
    case Raw::Var: return Index::var(xvar(e->var));
    case Raw::Add: return build_raw(e->a) + build_raw(e->b);
    case Raw::Mul: return build_raw(e->a) * build_raw(e->b);
    case Raw::Div: return floordiv(build_raw(e->a), e->value);
    case Raw::Mod: return mod(build_raw(e->a), e->value);
  }
  return Index::constant(0);
}

RawP random_raw(std::mt19937_64& rng, int depth) {
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<uint64_t>(n)); };
  auto node = std::make_shared<Raw>();
  int choice = depth <= 0 ? pick(2) : pick(7);
  switch (choice) {
    case 0: node->kind = Raw::Const; node->value = pick(21) - 8; break;
    case 1: node->kind = Raw::Var; node->var = pick(3); break;
    case 2:
    case 3:
      node->kind = Raw::Add;
      node->a = random_raw(rng, depth - 1);
      node->b = random_raw(rng, depth - 1);
      break;
    case 4:
      node->kind = Raw::Mul;
      node->a = random_raw(rng, depth - 1);
      node->b = std::make_shared<Raw>();
      node->b->kind = Raw::Const;
      node->b->value = pick(2) ? (1 << pick(8)) : pick(13) - 4;
      break;
    case 5:
      node->kind = Raw::Div;
      node->a = random_raw(rng, depth - 1);
      node->value = pick(2) ? (1 << pick(6)) : pick(12) + 1;
      break;
    default:
      node->kind = Raw::Mod;
      node->a = random_raw(rng, depth - 1);
      node->value = pick(2) ? (1 << pick(6)) : pick(12) + 1;
      break;
  }
  return node;
}

TEST(Simplify, RandomizedEquivalence) {
  std::mt19937_64 rng(12345);
  int nontrivial = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    std::vector<int64_t> sizes = {1 + static_cast<int64_t>(rng() % 16),
                                  1 + static_cast<int64_t>(rng() % 40),
                                  1 + static_cast<int64_t>(rng() % 9)};
    VarRanges ranges{{xvar(0), sizes[0]}, {xvar(1), sizes[1]}, {xvar(2), sizes[2]}};
    RawP raw = random_raw(rng, 4);
    Index built = build_raw(raw);
    Index simple = simplify(built, ranges);
    ASSERT_EQ(simplify(simple, ranges), simple) << to_string(built);
    if (!(simple == built)) ++nontrivial;
    for (int p = 0; p < 20; ++p) {
      std::vector<int64_t> vals = {static_cast<int64_t>(rng() % static_cast<uint64_t>(sizes[0])),
                                   static_cast<int64_t>(rng() % static_cast<uint64_t>(sizes[1])),
                                   static_cast<int64_t>(rng() % static_cast<uint64_t>(sizes[2]))};
      auto val = [&](Var v) { return vals[static_cast<std::size_t>(v.id)]; };
      int64_t expect = eval_raw(raw, vals);
      ASSERT_EQ(evaluate(built, val), expect) << "normal form of a raw tree: " << to_string(built);
      ASSERT_EQ(evaluate(simple, val), expect)
          << to_string(built) << " simplified to " << to_string(simple) << " at (" << vals[0]
          << ", " << vals[1] << ", " << vals[2] << ")";
    }
  }
  EXPECT_GT(nontrivial, 300);  // the ranges did simplify a good share of the expressions
}

// Reading a contiguous buffer through a random chain of reshapes is the same access as reading
// it directly: the canonical forms must be equal (design.md, "Equal accesses must have equal
// canonical forms").
TEST(Simplify, ReshapeChainsCanonicalize) {
  std::mt19937_64 rng(7);
  const std::vector<int64_t> primes = {2, 2, 2, 3, 2, 5, 2, 3};
  auto random_shape = [&](const std::vector<int64_t>& factors) {
    std::vector<int64_t> shape;
    for (int64_t f : factors) {
      if (shape.empty() || rng() % 2) shape.push_back(f);
      else shape.back() *= f;
    }
    return shape;
  };
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<int64_t> factors(primes.begin(), primes.begin() + 3 + static_cast<long>(rng() % 6));
    std::vector<int64_t> out_shape = random_shape(factors);
    std::vector<Index> coords;
    VarRanges ranges;
    for (std::size_t d = 0; d < out_shape.size(); ++d) {
      coords.push_back(Index::var(xvar(static_cast<int32_t>(d))));
      ranges[xvar(static_cast<int32_t>(d))] = out_shape[d];
    }
    Index direct = simplify(flat_index(coords, out_shape), ranges);
    std::vector<int64_t> shape = out_shape;
    for (int hop = 0; hop < 3; ++hop) {
      std::vector<int64_t> next = random_shape(factors);
      coords = unflatten_index(flat_index(coords, shape), next);
      for (Index& e : coords) e = simplify(e, ranges);
      shape = next;
    }
    Index chained = simplify(flat_index(coords, shape), ranges);
    ASSERT_EQ(to_string(chained), to_string(direct));
  }
}

}  // namespace
}  // namespace stax::ir
