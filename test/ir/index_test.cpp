// The normal form maintained by the index factories (no ranges known: variables are only
// non-negative), evaluation, printing and the affine helpers.
#include "stax/ir/index.h"

#include <gtest/gtest.h>

namespace stax::ir {
namespace {

const Index x0 = Index::var(xvar(0));
const Index x1 = Index::var(xvar(1));
const Index x2 = Index::var(xvar(2));
const Index r0 = Index::var(rvar(0));
Index c(int64_t v) { return Index::constant(v); }

void check(const Index& e, const std::string& expected) { EXPECT_EQ(to_string(e), expected); }

TEST(IndexNormalForm, SumsSortAndFold) {
  check(x1 + x0, "x0 + x1");
  check(x0 * 128 + x1, "128*x0 + x1");
  check(x1 + 128 * x0, "128*x0 + x1");
  check(x0 + 3 + x0 + 4, "2*x0 + 7");
  check(x0 - x0, "0");
  check(x0 + r0 + x1, "x0 + x1 + r0");
  check(c(2) * (x0 + 5), "2*x0 + 10");
  check(-x0 + 63, "-x0 + 63");
  check(x1 - 2 * x0, "-2*x0 + x1");
  check(x0 - 3, "x0 - 3");
  check(x0 * x1 + x1 * x0, "2*x0*x1");
  check((x0 + 1) * (x1 + 2), "2*x0 + x0*x1 + x1 + 2");
}

TEST(IndexNormalForm, FloorDivAndMod) {
  check(floordiv(c(7), 2), "3");
  check(floordiv(c(-7), 2), "-4");
  check(mod(c(-7), 2), "1");
  check(floordiv(x0, 1), "x0");
  check(mod(x0, 1), "0");
  check(floordiv(x0, 4), "x0 // 4");
  check(mod(x0, 8), "x0 % 8");
  // (a*c + b) // c -> a + b // c and (a*c + b) % c -> b % c (always, by integer arithmetic).
  check(floordiv(128 * x0 + x1, 128), "x0 + x1 // 128");
  check(mod(128 * x0 + x1, 128), "x1 % 128");
  check(floordiv(x0 + 9, 4), "(x0 + 1) // 4 + 2");
  check(mod(x0 + 9, 4), "(x0 + 1) % 4");
  // Nested floordivs merge; % of % by a divisor.
  check(floordiv(floordiv(x0, 4), 8), "x0 // 32");
  check(mod(mod(x0, 32), 8), "x0 % 8");
  check(mod(mod(x0, 4), 8), "x0 % 4");  // x0 % 4 < 8
  check(floordiv(mod(x0, 32), 8), "(x0 // 8) % 4");
  // Common factors cancel.
  check(floordiv(4 * x0 + 2, 8), "x0 // 2");  // (2*x0 + 1) // 4, and 1 < 2
  check(floordiv(4 * x0 + 4 * x1 + 2, 8), "(x0 + x1) // 2");
  check(mod(4 * x0, 8), "4*(x0 % 2)");
  // Merges.
  check(4 * floordiv(x0, 4) + mod(x0, 4), "x0");
  check(8 * mod(floordiv(x0, 8), 16) + mod(x0, 8), "x0 % 128");
  check(128 * floordiv(x0, 128) + 8 * mod(floordiv(x0, 8), 16) + mod(x0, 8), "x0");
  check(3 * (4 * floordiv(x0, 4) + mod(x0, 4)), "3*x0");
  // (x // a + k) // d == (x + k*a) // (a*d)
  check(floordiv(floordiv(x0, 4) + 1, 2), "(x0 + 4) // 8");
  // Printing of nested atoms.
  check(128 * floordiv(x0, 4) + 1, "128*(x0 // 4) + 1");
  check(mod(floordiv(x0 + x1, 3), 5), "((x0 + x1) // 3) % 5");
}

TEST(IndexNormalForm, EqualityIsStructural) {
  EXPECT_EQ(x0 * 128 + x1, x1 + x0 * 128);
  EXPECT_NE(x0 * 128 + x1, x0 * 64 + x1);
  EXPECT_EQ((x0 * 128 + x1).hash(), (x1 + 128 * x0).hash());
  EXPECT_LT(x0, x1);
  EXPECT_LT(x1, r0);
  EXPECT_LT(c(5), x0);
}

TEST(IndexQueries, EvaluateAndVars) {
  Index e = 128 * floordiv(x0, 3) + mod(x1 + 5, 7) - 2;
  auto val = [](Var v) -> int64_t { return v.id == 0 ? 10 : 4; };
  EXPECT_EQ(evaluate(e, val), 128 * 3 + 2 - 2);
  EXPECT_EQ(evaluate(floordiv(x0 - 11, 4), val), -1);
  EXPECT_EQ(evaluate(mod(x0 - 11, 4), val), 3);
  std::vector<Var> vars = free_vars(e);
  ASSERT_EQ(vars.size(), 2u);
  EXPECT_EQ(vars[0], xvar(0));
  EXPECT_EQ(vars[1], xvar(1));
  EXPECT_TRUE(uses_var(e, xvar(1)));
  EXPECT_FALSE(uses_var(e, rvar(0)));
}

TEST(IndexQueries, Affine) {
  Index e = 5 + 16 * x0 - 3 * x2;
  EXPECT_TRUE(is_affine(e));
  EXPECT_EQ(affine_coefficient(e, xvar(0)), 16);
  EXPECT_EQ(affine_coefficient(e, xvar(1)), 0);
  EXPECT_EQ(affine_coefficient(e, xvar(2)), -3);
  EXPECT_EQ(affine_constant(e), 5);
  EXPECT_TRUE(is_affine(x1));
  EXPECT_FALSE(is_affine(floordiv(x0, 2)));
  EXPECT_FALSE(is_affine(x0 * x1));
}

TEST(IndexQueries, SubstituteRenormalizes) {
  Index e = 128 * x0 + x1;
  Index t = Index::var(cvar(0));
  Index s = substitute(e, {{xvar(0), floordiv(t, 128)}, {xvar(1), mod(t, 128)}});
  EXPECT_EQ(to_string(s), "c0");
}

TEST(IndexQueries, FlatAndUnflatten) {
  EXPECT_EQ(to_string(flat_index({x0, x1, x2}, {2, 3, 4})), "12*x0 + 4*x1 + x2");
  EXPECT_EQ(to_string(flat_index({}, {})), "0");
  std::vector<Index> u = unflatten_index(x0, {2, 3, 4});
  ASSERT_EQ(u.size(), 3u);
  EXPECT_EQ(to_string(u[0]), "x0 // 12");
  EXPECT_EQ(to_string(u[1]), "(x0 // 4) % 3");
  EXPECT_EQ(to_string(u[2]), "x0 % 4");
  // Flattening the unflattened coordinates gives the flat index back (the merges at work).
  EXPECT_EQ(to_string(flat_index(u, {2, 3, 4})), "x0");
}

TEST(IndexQueries, Bounds) {
  VarRanges r{{xvar(0), 64}, {xvar(1), 128}};
  Bounds b = bounds(128 * x0 + x1, r);
  EXPECT_EQ(b.lo, 0);
  EXPECT_EQ(b.hi, 8191);
  b = bounds(-x0 + 5, r);
  EXPECT_EQ(b.lo, -58);
  EXPECT_EQ(b.hi, 5);
  b = bounds(mod(x1, 100), r);
  EXPECT_EQ(b.lo, 0);
  EXPECT_EQ(b.hi, 99);
  b = bounds(floordiv(x1, 8), r);
  EXPECT_EQ(b.hi, 15);
  b = bounds(x2, r);  // unknown variable: non-negative, unbounded
  EXPECT_EQ(b.lo, 0);
  EXPECT_EQ(b.hi, INT64_MAX);
}

}  // namespace
}  // namespace stax::ir
