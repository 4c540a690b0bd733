// End-to-end: pools, indexing, batch_norm and the activations (cases in cases_nn.cpp), for every
// instruction set this machine has.
#include <gtest/gtest.h>

#include "cases.h"

namespace stax::e2e {
namespace {

TEST(E2E, PoolsIndexingNormsAndActivationsWithEveryIsa) {
  const std::vector<Case> cases = nn_cases();
  EXPECT_GE(cases.size(), 75u);
  for (const IsaVariant& v : isa_variants()) {
    SCOPED_TRACE("--isa " + v.isa.name());
    EXPECT_EQ(run_cases(cases, v.cxxflags, v.isa), cases.size());
  }
}

}  // namespace
}  // namespace stax::e2e
