// The generator's exact first values (computed by an independent reference implementation of
// splitmix64 + xoshiro256**, Lemire's bounded integers and Box-Muller) and rough moments.
#include "stax/support/random.h"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

namespace stax {
namespace {

TEST(Rng, ExactRawOutputs) {
  Rng rng(0, 0);
  EXPECT_EQ(rng.next(), 0xfb5405f7bd79c540ull);
  EXPECT_EQ(rng.next(), 0x780c98e26cea5883ull);
  EXPECT_EQ(rng.next(), 0x2a146e0980febc66ull);
}

TEST(Rng, ExactNormals) {
  Rng rng(0, 0);
  const double expected[] = {-0.18828292767396576, 0.037215465135026334, -0.3852465993151268,
                             1.8608611242771411, 1.7347400514363307};
  for (double e : expected) EXPECT_DOUBLE_EQ(rng.normal(), e);
  Rng other(7, 3);
  EXPECT_DOUBLE_EQ(other.normal(), -0.3445083505141297);
  EXPECT_DOUBLE_EQ(other.normal(), -1.8649266368718975);
  EXPECT_DOUBLE_EQ(other.normal(), -1.2910524708777127);
}

TEST(RandomTensor, ExactFloat32) {
  Tensor t = random_tensor(DType::Float32, {5}, 0, 0);
  const float expected[] = {-0.18828292191028595f, 0.0372154638171196f, -0.385246604681015f,
                            1.8608611822128296f, 1.7347400188446045f};
  for (int i = 0; i < 5; ++i) EXPECT_EQ(t.data_as<float>()[i], expected[i]) << i;
  Tensor s1 = random_tensor(DType::Float32, {3}, 0, 1);
  EXPECT_EQ(s1.data_as<float>()[0], 0.20271790027618408f);
  EXPECT_EQ(s1.data_as<float>()[1], -0.32266363501548767f);
  EXPECT_EQ(s1.data_as<float>()[2], -1.496495008468628f);
}

TEST(RandomTensor, ExactFloat64InRowMajorOrder) {
  Tensor t = random_tensor(DType::Float64, {1, 3}, 7, 3);
  EXPECT_EQ(t.data_as<double>()[0], -0.3445083505141297);
  EXPECT_EQ(t.data_as<double>()[1], -1.8649266368718975);
  EXPECT_EQ(t.data_as<double>()[2], -1.2910524708777127);
}

TEST(RandomTensor, ExactInts) {
  const int64_t expected[] = {-5, -1, 0, 1, 8, -2, 6, -6, -1, 5};
  Tensor i32 = random_tensor(DType::Int32, {2, 5}, 42, 1);
  Tensor i64 = random_tensor(DType::Int64, {10}, 42, 1);
  for (int i = 0; i < 10; ++i) {
    EXPECT_EQ(i32.data_as<int32_t>()[i], expected[i]) << i;
    EXPECT_EQ(i64.data_as<int64_t>()[i], expected[i]) << i;
  }
}

TEST(RandomTensor, ExactBools) {
  const unsigned char expected[] = {0, 0, 1, 1, 1, 1, 0, 1, 1, 1};
  Tensor t = random_tensor(DType::Bool, {10}, 42, 2);
  for (int i = 0; i < 10; ++i) EXPECT_EQ(t.data()[i], expected[i]) << i;
}

TEST(RandomTensor, ZeroDim) {
  Tensor t = random_tensor(DType::Float64, {}, 0, 0);
  ASSERT_EQ(t.numel(), 1);
  EXPECT_EQ(t.data_as<double>()[0], -0.18828292767396576);
}

TEST(RandomTensor, SameSeedSameBytesOtherSeedOrStreamDiffers) {
  Tensor a = random_tensor(DType::Float32, {64}, 123, 0);
  Tensor b = random_tensor(DType::Float32, {64}, 123, 0);
  Tensor c = random_tensor(DType::Float32, {64}, 124, 0);
  Tensor d = random_tensor(DType::Float32, {64}, 123, 1);
  EXPECT_EQ(std::memcmp(a.data(), b.data(), a.nbytes()), 0);
  EXPECT_NE(std::memcmp(a.data(), c.data(), a.nbytes()), 0);
  EXPECT_NE(std::memcmp(a.data(), d.data(), a.nbytes()), 0);
  // Swapping seed and stream gives another sequence too.
  EXPECT_NE(Rng(1, 2).next(), Rng(2, 1).next());
}

TEST(RandomTensor, NormalMoments) {
  const int64_t n = 200000;
  Tensor t = random_tensor(DType::Float64, {n}, 5, 0);
  double sum = 0, sum2 = 0, sum4 = 0;
  int64_t beyond3 = 0;
  for (int64_t i = 0; i < n; ++i) {
    double x = t.data_as<double>()[i];
    sum += x;
    sum2 += x * x;
    sum4 += x * x * x * x;
    beyond3 += std::fabs(x) > 3.0;
  }
  double mean = sum / n, var = sum2 / n - mean * mean;
  EXPECT_NEAR(mean, 0.0, 0.01);        // standard error 0.0022
  EXPECT_NEAR(var, 1.0, 0.015);        // standard error 0.0032
  EXPECT_NEAR(sum4 / n, 3.0, 0.1);     // kurtosis of a normal
  EXPECT_NEAR(static_cast<double>(beyond3) / n, 0.0027, 0.0006);
}

TEST(RandomTensor, IntsCoverMinus8To8Uniformly) {
  const int64_t n = 170000;
  Tensor t = random_tensor(DType::Int32, {n}, 9, 4);
  std::array<int64_t, 17> count{};
  for (int64_t i = 0; i < n; ++i) {
    int32_t v = t.data_as<int32_t>()[i];
    ASSERT_GE(v, -8);
    ASSERT_LE(v, 8);
    ++count[static_cast<std::size_t>(v + 8)];
  }
  for (int64_t c : count) EXPECT_NEAR(static_cast<double>(c), 10000.0, 500.0);  // sd ~97
}

TEST(RandomTensor, BoolsAreAFairCoin) {
  const int64_t n = 100000;
  Tensor t = random_tensor(DType::Bool, {n}, 3, 0);
  int64_t ones = 0;
  for (int64_t i = 0; i < n; ++i) {
    ASSERT_LE(t.data()[i], 1);
    ones += t.data()[i];
  }
  EXPECT_NEAR(static_cast<double>(ones) / n, 0.5, 0.008);  // sd 0.0016
}

TEST(Rng, UniformIntFullAndDegenerateRanges) {
  Rng rng(1, 1);
  for (int i = 0; i < 100; ++i) EXPECT_EQ(rng.uniform_int(4, 4), 4);
  Rng a(2, 0), b(2, 0);
  EXPECT_EQ(static_cast<uint64_t>(a.uniform_int(INT64_MIN, INT64_MAX)), b.next());
  for (int i = 0; i < 1000; ++i) {
    double u = rng.uniform();
    EXPECT_GE(u, 0.0);
    EXPECT_LT(u, 1.0);
  }
}

}  // namespace
}  // namespace stax
