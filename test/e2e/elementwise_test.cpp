// End-to-end: elementwise (cases in cases_elementwise.cpp).
#include <gtest/gtest.h>

#include "cases.h"

namespace stax::e2e {
namespace {

TEST(E2E, UnaryOpsOnEveryDtype) {
  std::vector<Case> cases = unary_cases();
  // 37 ops over 5 dtypes minus PyTorch's refusals, plus 11 attribute cases.
  EXPECT_GE(cases.size(), 140u);
  EXPECT_EQ(run_cases(cases), cases.size());
}

TEST(E2E, BinaryOpsOnDtypePairs) {
  std::vector<Case> cases = binary_cases();
  EXPECT_GE(cases.size(), 150u);
  EXPECT_EQ(run_cases(cases), cases.size());
}

TEST(E2E, ScalarsCastsWhereAndCreation) {
  std::vector<Case> cases = scalar_cast_where_cases();
  EXPECT_EQ(run_cases(cases), cases.size());
}

// The same tables with every instruction set this machine has (--isa scalar, avx2, avx512): the
// vector kernels and their scalar tails against the interpreter, at the default tolerances.
TEST(E2E, UnaryAndBinaryOpsWithEveryIsa) {
  std::vector<Case> cases = unary_cases();
  for (Case& c : binary_cases()) cases.push_back(std::move(c));
  for (const IsaVariant& v : isa_variants()) {
    SCOPED_TRACE("--isa " + v.isa.name());
    EXPECT_EQ(run_cases(cases, v.cxxflags, v.isa), cases.size());
  }
}

// One file for every x86-64 machine (--isa dispatch), built without -march: the same tables with
// each instruction set the machine has forced in turn, and the widest chosen by default.
TEST(E2E, UnaryAndBinaryOpsInOneDispatchingFile) {
  std::vector<Case> cases = unary_cases();
  for (Case& c : binary_cases()) cases.push_back(std::move(c));
  for (Case& c : scalar_cast_where_cases()) cases.push_back(std::move(c));
  EXPECT_EQ(run_cases_dispatch(cases), cases.size());
}

// The same tables on AArch64 (--isa neon and scalar), built with the cross compiler and run
// under qemu: NEON's kernels and tails, and the scalar code of another architecture.
TEST(E2E, UnaryAndBinaryOpsOnAarch64) {
  const std::vector<IsaVariant> variants = cross_variants();
  if (variants.empty()) GTEST_SKIP() << kNoCrossTools;
  std::vector<Case> cases = unary_cases();
  for (Case& c : binary_cases()) cases.push_back(std::move(c));
  for (const IsaVariant& v : variants) {
    SCOPED_TRACE("--isa " + v.name());
    EXPECT_EQ(run_cases(cases, v), cases.size());
  }
}

}  // namespace
}  // namespace stax::e2e
