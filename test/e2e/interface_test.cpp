// End-to-end: interface (cases in cases_interface.cpp).
#include <gtest/gtest.h>

#include "cases.h"

namespace stax::e2e {
namespace {

TEST(E2E, InterfaceEdges) {
  std::vector<Case> cases = interface_cases();
  EXPECT_EQ(run_cases(cases), cases.size());
}

}  // namespace
}  // namespace stax::e2e
