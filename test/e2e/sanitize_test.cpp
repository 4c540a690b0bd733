// The generated code built once with AddressSanitizer and UndefinedBehaviorSanitizer (any report
// aborts the run): no out-of-bounds access (masked loads of cat and pad, views, matmul strides),
// no signed overflow, no bad shift or cast, no leak of the workspace it allocates; an index out
// of range reads nothing outside the data.
#include <gtest/gtest.h>

#include "cases.h"

namespace stax::e2e {
namespace {

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
  const std::vector<std::string> flags = {"-std=c++17", "-O1", "-g", "-fopenmp", "-Wall", "-Wextra", "-Werror",
                                          "-fsanitize=address,undefined", "-fno-sanitize-recover=all",
                                          "-fno-omit-frame-pointer"};
  EXPECT_EQ(run_cases(cases, flags), cases.size());
}

}  // namespace
}  // namespace stax::e2e
