// End-to-end: convolutions and batch norms folded into them (cases in cases_conv.cpp), with every
// instruction set this machine has, in one dispatching file, and on AArch64 under qemu.
#include <gtest/gtest.h>

#include "cases.h"

namespace stax::e2e {
namespace {

TEST(E2E, ConvolutionsWithEveryIsa) {
  const std::vector<Case> cases = conv_cases();
  EXPECT_GE(cases.size(), 38u);
  for (const IsaVariant& v : isa_variants()) {
    SCOPED_TRACE("--isa " + v.isa.name());
    EXPECT_EQ(run_cases(cases, v.cxxflags, v.isa), cases.size());
  }
}

TEST(E2E, ConvolutionsInOneDispatchingFile) {
  const std::vector<Case> cases = conv_cases();
  EXPECT_EQ(run_cases_dispatch(cases), cases.size());
}

TEST(E2E, ConvolutionsOnAarch64) {
  const std::vector<IsaVariant> variants = cross_variants();
  if (variants.empty()) GTEST_SKIP() << kNoCrossTools;
  const std::vector<Case> cases = conv_cases();
  for (const IsaVariant& v : variants) {
    SCOPED_TRACE("--isa " + v.name());
    EXPECT_EQ(run_cases(cases, v), cases.size());
  }
}

}  // namespace
}  // namespace stax::e2e
