// End-to-end: structure (cases in cases_structure.cpp).
#include <gtest/gtest.h>

#include "cases.h"

namespace stax::e2e {
namespace {

TEST(E2E, ReductionsAndScans) {
  std::vector<Case> cases = reduction_cases();
  EXPECT_GE(cases.size(), 200u);
  EXPECT_EQ(run_cases(cases), cases.size());
}

TEST(E2E, ViewsCatAndPad) {
  std::vector<Case> cases = view_cases();
  EXPECT_EQ(run_cases(cases), cases.size());
}

TEST(E2E, CompositesAndMatmul) {
  std::vector<Case> cases = composite_matmul_cases();
  EXPECT_EQ(run_cases(cases, optimized_cxxflags()), cases.size());
}

// The same tables in one --isa dispatch file, each instruction set the machine has forced in turn.
TEST(E2E, StructureInOneDispatchingFile) {
  std::vector<Case> cases = reduction_cases();
  for (Case& c : view_cases()) cases.push_back(std::move(c));
  for (Case& c : composite_matmul_cases()) cases.push_back(std::move(c));
  EXPECT_EQ(run_cases_dispatch(cases), cases.size());
}

}  // namespace
}  // namespace stax::e2e
