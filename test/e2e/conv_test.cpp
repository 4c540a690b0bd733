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

// Built with AddressSanitizer and UndefinedBehaviorSanitizer (any report aborts the run), for the
// compiler's default target (the scalar set on x86-64) and the machine's widest set: the patches
// packed from the input read nothing outside it, whatever the padding, stride and dilation.
TEST(E2E, ConvolutionsCleanUnderSanitizers) {
  const std::vector<Case> cases = conv_cases();
  for (bool native : {false, true}) {
    SCOPED_TRACE(native ? "-march=native" : "the compiler's default target");
    std::vector<std::string> flags = {"-std=c++17", "-O1", "-g", "-fopenmp", "-Wall", "-Wextra", "-Werror",
                                      "-fsanitize=address,undefined", "-fno-sanitize-recover=all", "-fno-omit-frame-pointer"};
    if (native) flags.push_back("-march=native");
    EXPECT_EQ(run_cases(cases, flags), cases.size());
  }
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
