// End-to-end: interface (cases in cases_interface.cpp).
#include <gtest/gtest.h>

#include "cases.h"

namespace stax::e2e {
namespace {

TEST(E2E, InterfaceEdges) {
  std::vector<Case> cases = interface_cases();
  EXPECT_EQ(run_cases(cases), cases.size());
}

TEST(E2E, InterfaceEdgesInOneDispatchingFile) {
  std::vector<Case> cases = interface_cases();
  EXPECT_EQ(run_cases_dispatch(cases), cases.size());
}

// The interface edges on AArch64 (--isa neon and scalar, the cross compiler, qemu): among them
// constants in the weights file, which the linker there reaches through the GOT unless they are
// declared hidden (every constant would then read the first one's bytes).
TEST(E2E, InterfaceEdgesOnAarch64) {
  const std::vector<IsaVariant> variants = cross_variants();
  if (variants.empty()) GTEST_SKIP() << kNoCrossTools;
  const std::vector<Case> cases = interface_cases();
  for (const IsaVariant& v : variants) {
    SCOPED_TRACE("--isa " + v.name());
    EXPECT_EQ(run_cases(cases, v), cases.size());
  }
}

TEST(E2E, ModelsNamedLikeTheGeneratedCodesOwnIdentifiers) {
  const std::vector<Case> cases = model_name_cases();
  EXPECT_EQ(run_cases(cases), cases.size());
  for (const IsaVariant& v : isa_variants()) {
    SCOPED_TRACE("--isa " + v.isa.name());
    EXPECT_EQ(run_cases(cases, v.cxxflags, v.isa), cases.size());
  }
  EXPECT_EQ(run_cases_dispatch(cases), cases.size());
}

}  // namespace
}  // namespace stax::e2e
