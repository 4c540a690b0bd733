#include "stax/driver/preview.h"

#include <gtest/gtest.h>

namespace stax::driver {
namespace {

TEST(Preview, TypeString) {
  EXPECT_EQ(tensor_type_str(Tensor(DType::Float32, {64, 128})), "float32[64, 128]");
  EXPECT_EQ(tensor_type_str(Tensor(DType::Bool, {})), "bool[]");
}

TEST(Preview, ValuesPerDtype) {
  Tensor f(DType::Float64, {3});
  f.set_double(0, 0.5);
  f.set_double(1, -1.0 / 3.0);
  f.set_double(2, 1e20);
  EXPECT_EQ(preview_values(f), "0.5 -0.333333 1e+20");
  Tensor i(DType::Int32, {2});
  i.set_int(0, -8);
  i.set_int(1, 7);
  EXPECT_EQ(preview_values(i), "-8 7");
  Tensor b(DType::Bool, {2});
  b.set_bool(1, true);
  EXPECT_EQ(preview_values(b), "false true");
}

TEST(Preview, LongTensorsAreCut) {
  Tensor t(DType::Int64, {2, 5});
  for (int64_t k = 0; k < 10; ++k) t.set_int(k, k);
  EXPECT_EQ(preview_values(t, 3), "0 1 2 ... (10 values)");
  EXPECT_EQ(preview_values(t, 10), "0 1 2 3 4 5 6 7 8 9");
}

}  // namespace
}  // namespace stax::driver
