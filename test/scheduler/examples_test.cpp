// Examples 7.1 and 7.2 of the chapter, and the row-wise models that must become one kernel.
#include <gtest/gtest.h>

#include <iostream>

#include "helpers.h"
#include "stax/scheduler/dump.h"

namespace stax::scheduler {
namespace {

using testing::run;

TEST(Examples, Probe) {
  for (const char* name : {"example_7_1", "example_7_2", "softmax", "layer_norm", "mlp"}) {
    testing::Scheduled r = run(testing::load_sample(name));
    std::cout << r.log << dump_schedule_text(r.schedule, r.program) << "\n";
  }
}

}  // namespace
}  // namespace stax::scheduler
