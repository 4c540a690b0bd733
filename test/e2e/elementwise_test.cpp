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

}  // namespace
}  // namespace stax::e2e
