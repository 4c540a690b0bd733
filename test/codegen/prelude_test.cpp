// The runtime prelude on its own, against hand-computed values (PyTorch 2.x eager semantics).
#include "stax_prelude.h"
#include "stax_prelude.h"  // every section is guarded: a second inclusion is harmless

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <vector>

namespace {

constexpr int32_t kI32Min = std::numeric_limits<int32_t>::min();
constexpr int32_t kI32Max = std::numeric_limits<int32_t>::max();
constexpr int64_t kI64Min = std::numeric_limits<int64_t>::min();
constexpr int64_t kI64Max = std::numeric_limits<int64_t>::max();
const float kNaNf = std::numeric_limits<float>::quiet_NaN();
const double kNaN = std::numeric_limits<double>::quiet_NaN();
const float kInff = std::numeric_limits<float>::infinity();
const double kInf = std::numeric_limits<double>::infinity();

TEST(Prelude, WrappingIntegerArithmetic) {
  EXPECT_EQ(stax_rt::add<int32_t>(kI32Max, 1), kI32Min);
  EXPECT_EQ(stax_rt::sub<int32_t>(kI32Min, 1), kI32Max);
  EXPECT_EQ(stax_rt::mul<int32_t>(65536, 65536), 0);
  EXPECT_EQ(stax_rt::mul<int32_t>(-3, 7), -21);
  EXPECT_EQ(stax_rt::mul<int64_t>(kI64Max, 2), -2);
  EXPECT_EQ(stax_rt::neg<int32_t>(kI32Min), kI32Min);
  EXPECT_EQ(stax_rt::abs<int32_t>(kI32Min), kI32Min);
  EXPECT_EQ(stax_rt::abs<int64_t>(-5), 5);
  EXPECT_EQ(stax_rt::add<bool>(true, true), true);
  EXPECT_EQ(stax_rt::mul<bool>(true, false), false);
  EXPECT_EQ(stax_rt::add<float>(1.5f, 2.25f), 3.75f);
}

TEST(Prelude, IntegerDivisionTruncAndFloor) {
  int err = 0;
  EXPECT_EQ(stax_rt::div_trunc<int32_t>(7, 2, err), 3);
  EXPECT_EQ(stax_rt::div_trunc<int32_t>(-7, 2, err), -3);
  EXPECT_EQ(stax_rt::div_floor<int32_t>(-7, 2, err), -4);
  EXPECT_EQ(stax_rt::div_floor<int32_t>(7, -2, err), -4);
  EXPECT_EQ(stax_rt::div_floor<int32_t>(-7, -2, err), 3);
  EXPECT_EQ(stax_rt::div_floor<int64_t>(6, -3, err), -2);
  EXPECT_EQ(stax_rt::div_trunc<int32_t>(kI32Min, -1, err), kI32Min);
  EXPECT_EQ(stax_rt::div_floor<int64_t>(kI64Min, -1, err), kI64Min);
  EXPECT_EQ(err, 0);
  EXPECT_EQ(stax_rt::div_trunc<int32_t>(5, 0, err), 0);
  EXPECT_EQ(err, 1);
  err = 0;
  EXPECT_EQ(stax_rt::div_floor<int64_t>(5, 0, err), 0);
  EXPECT_EQ(err, 1);
}

TEST(Prelude, CheckedIndexAndTheKernelErrorCode) {
  int err = 0;
  EXPECT_EQ(stax_rt::checked_index<int64_t>(0, 5, err), 0);
  EXPECT_EQ(stax_rt::checked_index<int32_t>(4, 5, err), 4);
  EXPECT_EQ(err, 0);
  EXPECT_EQ(stax_rt::checked_index<int64_t>(5, 5, err), 0);  // out of range: 0, inside the data
  EXPECT_EQ(err, 2);
  err = 0;
  EXPECT_EQ(stax_rt::checked_index<int32_t>(-1, 5, err), 0);
  EXPECT_EQ(stax_rt::checked_index<int64_t>(kI64Min, 5, err), 0);
  EXPECT_EQ(stax_rt::checked_index<int64_t>(int64_t{1} << 40, int64_t{1} << 40, err), 0);
  EXPECT_EQ(err, 2);
  // A division by zero after an index error keeps both bits; the index error is reported.
  EXPECT_EQ(stax_rt::div_trunc<int32_t>(1, 0, err), 0);
  EXPECT_EQ(err, 3);
  EXPECT_EQ(stax_rt::kernel_error(1), STAX_ERR_DIV_BY_ZERO);
  EXPECT_EQ(stax_rt::kernel_error(2), STAX_ERR_INDEX_OUT_OF_RANGE);
  EXPECT_EQ(stax_rt::kernel_error(3), STAX_ERR_INDEX_OUT_OF_RANGE);
}

TEST(Prelude, IntegerRemainderIsPythonStyle) {
  int err = 0;
  EXPECT_EQ(stax_rt::remainder<int32_t>(7, 3, err), 1);
  EXPECT_EQ(stax_rt::remainder<int32_t>(-7, 3, err), 2);
  EXPECT_EQ(stax_rt::remainder<int32_t>(7, -3, err), -2);
  EXPECT_EQ(stax_rt::remainder<int32_t>(-7, -3, err), -1);
  EXPECT_EQ(stax_rt::remainder<int32_t>(6, -3, err), 0);
  EXPECT_EQ(stax_rt::remainder<int32_t>(kI32Min, -1, err), 0);
  EXPECT_EQ(stax_rt::remainder<int64_t>(kI64Min, 3, err), 1);  // -2^63 = 3 * (-3074457345618258603) + 1
  EXPECT_EQ(err, 0);
  EXPECT_EQ(stax_rt::remainder<int64_t>(1, 0, err), 0);
  EXPECT_EQ(err, 1);
}

TEST(Prelude, FloatDivisionFollowsIeeeAndPyTorch) {
  int err = 0;
  EXPECT_EQ(stax_rt::div_trunc(-7.5f, 2.0f, err), -3.0f);
  EXPECT_EQ(stax_rt::div_floor(-7.5f, 2.0f, err), -4.0f);
  EXPECT_EQ(stax_rt::div_floor(7.5, -2.0, err), -4.0);
  EXPECT_EQ(stax_rt::div_floor(1.0, kInf, err), 0.0);
  EXPECT_EQ(stax_rt::div_floor(1.0f, 0.0f, err), kInff);
  EXPECT_EQ(stax_rt::div_floor(-1.0, 0.0, err), -kInf);
  EXPECT_TRUE(std::isnan(stax_rt::div_floor(0.0, 0.0, err)));
  // A zero quotient keeps the sign of the true quotient.
  EXPECT_TRUE(std::signbit(stax_rt::div_floor(-0.0, 5.0, err)));
  EXPECT_EQ(stax_rt::remainder(-7.0, 3.0, err), 2.0);
  EXPECT_EQ(stax_rt::remainder(7.0f, -3.0f, err), -2.0f);
  EXPECT_EQ(stax_rt::remainder(5.5, 2.0, err), 1.5);
  EXPECT_TRUE(std::isnan(stax_rt::remainder(1.0f, 0.0f, err)));
  EXPECT_EQ(err, 0);  // float division never flags
}

TEST(Prelude, IntegerPower) {
  EXPECT_EQ(stax_rt::pow<int32_t>(3, 4), 81);
  EXPECT_EQ(stax_rt::pow<int32_t>(-2, 3), -8);
  EXPECT_EQ(stax_rt::pow<int32_t>(5, 0), 1);
  EXPECT_EQ(stax_rt::pow<int32_t>(0, 0), 1);
  EXPECT_EQ(stax_rt::pow<int32_t>(2, -1), 0);
  EXPECT_EQ(stax_rt::pow<int32_t>(1, -5), 1);
  EXPECT_EQ(stax_rt::pow<int32_t>(-1, -5), -1);
  EXPECT_EQ(stax_rt::pow<int32_t>(-1, -4), 1);
  EXPECT_EQ(stax_rt::pow<int32_t>(2, 31), kI32Min);  // wraps
  EXPECT_EQ(stax_rt::pow<int64_t>(3, 40), INT64_C(-6289078614652622815));  // 3^40 - 2^64
  EXPECT_EQ(stax_rt::pow(true, false), true);
  EXPECT_EQ(stax_rt::pow(false, true), false);
  EXPECT_FLOAT_EQ(stax_rt::pow(2.0f, 10.0f), 1024.0f);
  EXPECT_DOUBLE_EQ(stax_rt::pow(9.0, 0.5), 3.0);
  EXPECT_EQ(stax_rt::pow(kNaN, 0.0), 1.0);
}

TEST(Prelude, CastsNeverHitUndefinedBehaviour) {
  EXPECT_EQ(stax_rt::cast<int32_t>(3.7f), 3);
  EXPECT_EQ(stax_rt::cast<int32_t>(-3.7), -3);
  EXPECT_EQ(stax_rt::cast<int32_t>(kNaNf), 0);
  EXPECT_EQ(stax_rt::cast<int32_t>(kInff), kI32Max);
  EXPECT_EQ(stax_rt::cast<int32_t>(-kInff), kI32Min);
  EXPECT_EQ(stax_rt::cast<int32_t>(3e9), kI32Max);
  EXPECT_EQ(stax_rt::cast<int32_t>(-3e9f), kI32Min);
  EXPECT_EQ(stax_rt::cast<int32_t>(2147483647.9), kI32Max);
  EXPECT_EQ(stax_rt::cast<int32_t>(2147483647.0), kI32Max);
  EXPECT_EQ(stax_rt::cast<int32_t>(-2147483648.0), kI32Min);
  EXPECT_EQ(stax_rt::cast<int64_t>(-kInf), kI64Min);
  EXPECT_EQ(stax_rt::cast<int64_t>(9.3e18f), kI64Max);
  EXPECT_EQ(stax_rt::cast<int64_t>(-kNaN), 0);
  EXPECT_EQ(stax_rt::cast<int64_t>(-9.2e18), static_cast<int64_t>(-9.2e18));
  EXPECT_EQ(stax_rt::cast<int32_t>(int64_t{4294967297}), 1);  // wraps
  EXPECT_EQ(stax_rt::cast<int32_t>(int64_t{-1}), -1);
  EXPECT_EQ(stax_rt::cast<int64_t>(int32_t{-7}), -7);
  EXPECT_EQ(stax_rt::cast<bool>(kNaN), true);
  EXPECT_EQ(stax_rt::cast<bool>(-0.0f), false);
  EXPECT_EQ(stax_rt::cast<bool>(int64_t{256}), true);
  EXPECT_EQ(stax_rt::cast<float>(true), 1.0f);
  EXPECT_EQ(stax_rt::cast<int64_t>(false), 0);
  EXPECT_EQ(stax_rt::cast<float>(int64_t{16777217}), 16777216.0f);
}

TEST(Prelude, RoundingHalfToEven) {
  EXPECT_EQ(stax_rt::round(0.5f), 0.0f);
  EXPECT_EQ(stax_rt::round(1.5f), 2.0f);
  EXPECT_EQ(stax_rt::round(2.5), 2.0);
  EXPECT_EQ(stax_rt::round(-2.5), -2.0);
  EXPECT_EQ(stax_rt::round(-3.5f), -4.0f);
  EXPECT_EQ(stax_rt::round<int32_t>(7), 7);
  EXPECT_EQ(stax_rt::floor(-1.5), -2.0);
  EXPECT_EQ(stax_rt::ceil(-1.5f), -1.0f);
  EXPECT_EQ(stax_rt::trunc(-1.5f), -1.0f);
  EXPECT_EQ(stax_rt::floor<int64_t>(-9), -9);
}

TEST(Prelude, SignAndNanPropagatingMinMax) {
  EXPECT_EQ(stax_rt::sign(-3.0f), -1.0f);
  EXPECT_EQ(stax_rt::sign(0.0), 0.0);
  EXPECT_EQ(stax_rt::sign(kNaN), 0.0);
  EXPECT_EQ(stax_rt::sign<int32_t>(-9), -1);
  EXPECT_EQ(stax_rt::sign<int64_t>(4), 1);
  EXPECT_TRUE(std::isnan(stax_rt::maximum(kNaNf, 1.0f)));
  EXPECT_TRUE(std::isnan(stax_rt::maximum(1.0f, kNaNf)));
  EXPECT_TRUE(std::isnan(stax_rt::minimum(kNaN, -kInf)));
  EXPECT_TRUE(std::isnan(stax_rt::minimum(2.0, kNaN)));
  EXPECT_EQ(stax_rt::maximum(2.0, 3.0), 3.0);
  EXPECT_EQ(stax_rt::minimum<int32_t>(-2, 3), -2);
  EXPECT_EQ(stax_rt::maximum<bool>(false, true), true);
}

TEST(Prelude, ClampAndRelu) {
  EXPECT_EQ(stax_rt::clamp(5.0f, 0.0f, 1.0f), 1.0f);
  EXPECT_EQ(stax_rt::clamp(-5.0f, 0.0f, 1.0f), 0.0f);
  EXPECT_EQ(stax_rt::clamp(0.25f, 0.0f, 1.0f), 0.25f);
  EXPECT_EQ(stax_rt::clamp(0.5, 2.0, 1.0), 1.0);  // lo > hi gives hi
  EXPECT_TRUE(std::isnan(stax_rt::clamp(kNaN, 0.0, 1.0)));
  EXPECT_EQ(stax_rt::clamp_min<int32_t>(-3, 0), 0);
  EXPECT_EQ(stax_rt::clamp_max<int64_t>(9, 4), 4);
  EXPECT_EQ(stax_rt::relu(-2.0f), 0.0f);
  EXPECT_EQ(stax_rt::relu(2.0f), 2.0f);
  EXPECT_TRUE(std::isnan(stax_rt::relu(kNaNf)));
  EXPECT_EQ(stax_rt::relu<int32_t>(-4), 0);
}

TEST(Prelude, Predicates) {
  EXPECT_TRUE(stax_rt::isnan(kNaNf));
  EXPECT_FALSE(stax_rt::isnan<int32_t>(0));
  EXPECT_TRUE(stax_rt::isinf(-kInf));
  EXPECT_FALSE(stax_rt::isinf(kNaN));
  EXPECT_FALSE(stax_rt::isfinite(kNaN));
  EXPECT_TRUE(stax_rt::isfinite(1e308));
  EXPECT_TRUE(stax_rt::isfinite<int64_t>(kI64Min));
  EXPECT_EQ(stax_rt::bitwise_not<int32_t>(5), -6);
  EXPECT_EQ(stax_rt::bitwise_not(true), false);
}

TEST(Prelude, TranscendentalsMatchLibm) {
  const float xs[] = {-3.5f, -1.0f, -0.25f, 0.0f, 0.3f, 1.0f, 2.75f};
  for (float x : xs) {
    EXPECT_NEAR(stax_rt::exp(x), std::exp(x), 2e-7f * std::exp(x)) << x;
    EXPECT_NEAR(stax_rt::tanh(x), std::tanh(x), 2e-7f) << x;
    EXPECT_NEAR(stax_rt::erf(x), std::erf(x), 2e-7f) << x;
    EXPECT_NEAR(stax_rt::erfc(x), std::erfc(x), 4e-7f * std::erfc(x)) << x;
    EXPECT_NEAR(stax_rt::sin(x), std::sin(x), 2e-7f) << x;
    EXPECT_NEAR(stax_rt::atan(x), std::atan(x), 2e-7f) << x;
    EXPECT_NEAR(stax_rt::expm1(double(x)), std::expm1(double(x)), 1e-15) << x;
  }
  EXPECT_FLOAT_EQ(stax_rt::log(std::exp(1.0f)), 1.0f);
  EXPECT_DOUBLE_EQ(stax_rt::log2(8.0), 3.0);
  EXPECT_DOUBLE_EQ(stax_rt::log10(1000.0), 3.0);
  EXPECT_EQ(stax_rt::log(0.0f), -kInff);
  EXPECT_TRUE(std::isnan(stax_rt::log(-1.0)));
  EXPECT_EQ(stax_rt::exp(-kInf), 0.0);
  EXPECT_EQ(stax_rt::rsqrt(4.0f), 0.5f);
  EXPECT_EQ(stax_rt::reciprocal(0.0), kInf);
  EXPECT_DOUBLE_EQ(stax_rt::atan2(1.0, -1.0), 3.0 * std::atan(1.0));
  EXPECT_FLOAT_EQ(stax_rt::exp2(5.0f), 32.0f);
}

// SLEEF's own log1p overflows to inf for huge finite inputs; the prelude's stays finite and
// within an ULP of libm's over the whole range, with log1p's accuracy near 0 kept.
TEST(Prelude, Log1pOfHugeFiniteInputs) {
  const float fs[] = {1e-10f, 0.5f, 1e29f, 1e30f, 1.0001e30f, 1e37f, 1e38f, 3e38f, std::numeric_limits<float>::max()};
  for (float x : fs) {
    const float want = std::log1p(x);
    EXPECT_TRUE(std::isfinite(stax_rt::log1p(x))) << x;
    EXPECT_NEAR(stax_rt::log1p(x), want, std::nextafter(want, kInff) - want) << x;
  }
  const double ds[] = {1e-300, 0.5, 1e299, 1e300, 1.0001e300, 1e306, 1e307, 1e308,
                       std::numeric_limits<double>::max()};
  for (double x : ds) {
    const double want = std::log1p(x);
    EXPECT_TRUE(std::isfinite(stax_rt::log1p(x))) << x;
    EXPECT_NEAR(stax_rt::log1p(x), want, std::nextafter(want, kInf) - want) << x;
  }
  EXPECT_EQ(stax_rt::log1p(kInff), kInff);
  EXPECT_EQ(stax_rt::log1p(kInf), kInf);
  EXPECT_EQ(stax_rt::log1p(-1.0f), -kInff);
  EXPECT_TRUE(std::isnan(stax_rt::log1p(std::numeric_limits<float>::quiet_NaN())));
  EXPECT_TRUE(std::isnan(stax_rt::log1p(-2.0)));
}

TEST(Prelude, Activations) {
  EXPECT_FLOAT_EQ(stax_rt::sigmoid(0.0f), 0.5f);
  EXPECT_EQ(stax_rt::sigmoid(-200.0f), 0.0f);
  EXPECT_EQ(stax_rt::sigmoid(200.0f), 1.0f);
  EXPECT_NEAR(stax_rt::sigmoid(1.0), 0.7310585786300049, 1e-15);
  EXPECT_NEAR(stax_rt::silu(1.0), 0.7310585786300049, 1e-15);
  EXPECT_NEAR(stax_rt::gelu(1.0), 0.8413447460685429, 1e-15);   // x * Phi(x)
  EXPECT_NEAR(stax_rt::gelu(-1.0f), -0.15865525f, 1e-7f);
  EXPECT_NEAR(stax_rt::gelu_tanh(1.0), 0.8411919906082768, 1e-15);
  EXPECT_EQ(stax_rt::leaky_relu(-2.0f, 0.01f), -0.02f);
  EXPECT_EQ(stax_rt::leaky_relu(3.0, 0.2), 3.0);
}

TEST(Prelude, ArgmaxTakesFirstOfTiesAndNan) {
  stax_rt::ArgAcc<float> acc = stax_rt::arg_init<float>();
  const float v[] = {1.0f, 3.0f, 3.0f, -1.0f};
  for (int i = 0; i < 4; ++i) stax_rt::argmax_update(acc, v[i], i);
  EXPECT_EQ(acc.index, 1);
  stax_rt::ArgAcc<float> mn = stax_rt::arg_init<float>();
  const float w[] = {2.0f, -1.0f, 5.0f, -1.0f};
  for (int i = 0; i < 4; ++i) stax_rt::argmin_update(mn, w[i], i);
  EXPECT_EQ(mn.index, 1);
  // NaN wins both ways; the first NaN.
  stax_rt::ArgAcc<double> an = stax_rt::arg_init<double>();
  const double u[] = {1.0, kNaN, 7.0, kNaN};
  for (int i = 0; i < 4; ++i) stax_rt::argmax_update(an, u[i], i);
  EXPECT_EQ(an.index, 1);
  stax_rt::ArgAcc<double> an2 = stax_rt::arg_init<double>();
  for (int i = 0; i < 4; ++i) stax_rt::argmin_update(an2, u[i], i);
  EXPECT_EQ(an2.index, 1);
  // Combining partial results keeps the rule: the lower index wins a tie.
  stax_rt::ArgAcc<int32_t> left{4, 7}, right{4, 2};
  stax_rt::argmax_combine(left, right);
  EXPECT_EQ(left.index, 2);
}

TEST(Prelude, WelfordVariance) {
  stax_rt::Welford w;
  const double xs[] = {2, 4, 4, 4, 5, 5, 7, 9};
  for (double x : xs) stax_rt::welford_update(w, x);
  EXPECT_DOUBLE_EQ(w.mean, 5.0);
  EXPECT_DOUBLE_EQ(stax_rt::welford_var(w, 0.0), 4.0);
  EXPECT_DOUBLE_EQ(stax_rt::welford_var(w, 1.0), 32.0 / 7.0);
  stax_rt::Welford a, b;
  for (int i = 0; i < 3; ++i) stax_rt::welford_update(a, xs[i]);
  for (int i = 3; i < 8; ++i) stax_rt::welford_update(b, xs[i]);
  stax_rt::welford_combine(a, b);
  EXPECT_DOUBLE_EQ(a.mean, 5.0);
  EXPECT_DOUBLE_EQ(stax_rt::welford_var(a, 0.0), 4.0);
  stax_rt::Welford one;
  stax_rt::welford_update(one, 3.0);
  EXPECT_TRUE(std::isnan(stax_rt::welford_var(one, 1.0)));  // 0 / 0, as PyTorch
}

TEST(Prelude, WorkspaceAllocatesOnlyWithoutCallerBuffer) {
  alignas(64) unsigned char mine[128];
  stax_rt::Workspace caller(mine, sizeof mine);
  EXPECT_FALSE(caller.failed());
  EXPECT_EQ(caller.at<unsigned char>(64), mine + 64);
  stax_rt::Workspace owned(nullptr, 1000);
  EXPECT_FALSE(owned.failed());
  EXPECT_EQ(reinterpret_cast<uintptr_t>(owned.at<float>(0)) % 64, 0u);
  stax_rt::Workspace empty(nullptr, 0);
  EXPECT_FALSE(empty.failed());
}

TEST(Prelude, CheckLayoutNamesTheMismatch) {
  const int64_t shape[] = {2, 3};
  const stax_rt::TensorSpec spec{"x.1", STAX_FLOAT32, 2, shape};
  float data[6] = {};
  char msg[256];
  const int64_t good_strides[] = {3, 1};
  EXPECT_EQ(stax_rt::check_layout("input", 0, spec, data, {STAX_FLOAT32, 2, shape, nullptr}, msg, sizeof msg), STAX_OK);
  EXPECT_EQ(stax_rt::check_layout("input", 0, spec, data, {STAX_FLOAT32, 2, shape, good_strides}, msg, sizeof msg), STAX_OK);
  EXPECT_EQ(stax_rt::check_layout("input", 0, spec, data, {STAX_INT32, 2, shape, nullptr}, msg, sizeof msg),
            STAX_ERR_INVALID_ARGUMENT);
  EXPECT_STREQ(msg, "input 0 ('x.1'): expected dtype float32, got int32");
  const int64_t other[] = {3, 2};
  EXPECT_EQ(stax_rt::check_layout("output", 1, spec, data, {STAX_FLOAT32, 2, other, nullptr}, msg, sizeof msg),
            STAX_ERR_INVALID_ARGUMENT);
  EXPECT_STREQ(msg, "output 1 ('x.1'): expected shape [2, 3], got [3, 2]");
  const int64_t transposed[] = {1, 2};
  EXPECT_EQ(stax_rt::check_layout("input", 0, spec, data, {STAX_FLOAT32, 2, shape, transposed}, msg, sizeof msg),
            STAX_ERR_INVALID_ARGUMENT);
  EXPECT_STREQ(msg, "input 0 ('x.1'): stride 2 of dimension 1, expected 1 (dense row-major)");
  EXPECT_EQ(stax_rt::check_layout("input", 0, spec, nullptr, {STAX_FLOAT32, 2, shape, nullptr}, msg, sizeof msg),
            STAX_ERR_INVALID_ARGUMENT);
  EXPECT_STREQ(msg, "input 0 ('x.1'): data pointer is NULL");
  // A short buffer takes the message cut to its size, terminated.
  char small[9];
  EXPECT_EQ(stax_rt::check_layout("input", 0, spec, nullptr, {STAX_FLOAT32, 2, shape, nullptr}, small, sizeof small),
            STAX_ERR_INVALID_ARGUMENT);
  EXPECT_STREQ(small, "input 0 ");
  // The stride of a size-1 dimension is free.
  const int64_t shape1[] = {1, 4};
  const stax_rt::TensorSpec spec1{"r", STAX_INT64, 2, shape1};
  const int64_t odd_strides[] = {99, 1};
  EXPECT_EQ(stax_rt::check_layout("input", 0, spec1, data, {STAX_INT64, 2, shape1, odd_strides}, msg, sizeof msg), STAX_OK);
  EXPECT_STREQ(stax_rt::strerror(STAX_ERR_DIV_BY_ZERO), "integer division or remainder by zero");
  EXPECT_STREQ(stax_rt::strerror(STAX_ERR_INDEX_OUT_OF_RANGE), "index out of range (embedding, index_select or gather)");
  EXPECT_STREQ(stax_rt::strerror(42), "unknown error code");
}

}  // namespace

// The dispatch section's choice (the --isa dispatch file): CPUID bits and the OS's register state
// both decide, STAX_ISA forces only what the machine supports, and the last set always remains.
namespace {
struct EnvGuard {
  explicit EnvGuard(const char* value) {
    if (value) setenv("STAX_ISA", value, 1);
    else unsetenv("STAX_ISA");
  }
  ~EnvGuard() { unsetenv("STAX_ISA"); }
};
}  // namespace

TEST(PreludeDispatch, ChoosesTheFirstSetTheCpuAndOsSupport) {
  // Leaf 1 EDX bit 0 (x87 FPU) and XCR0 bit 0 (x87 state) are set on every x86-64 machine; leaf
  // 0x7fffffff lies beyond the highest leaf; XCR0 bit 62 is reserved, never set.
  static const stax_rt::CpuidBit fpu[] = {{1, 3, 0}};
  static const stax_rt::CpuidBit leaf_beyond_the_top[] = {{0x7fffffffu, 0, 0}};
  const stax_rt::IsaNeeds xcr0_never_set{"needs_xcr0_bit_62", fpu, 1, 1ull << 62};  // a reserved XCR0 bit
  const stax_rt::IsaNeeds missing_leaf{"missing_leaf", leaf_beyond_the_top, 1, 0};
  const stax_rt::IsaNeeds has_fpu{"has_fpu", fpu, 1, 0x1};  // XCR0 bit 0 (x87 state) is always set
  const stax_rt::IsaNeeds none{"none", nullptr, 0, 0};
#if defined(__x86_64__)
  EXPECT_FALSE(stax_rt::cpu_supports(xcr0_never_set));  // a CPU feature the OS does not save: fall back
  EXPECT_FALSE(stax_rt::cpu_supports(missing_leaf));
  EXPECT_TRUE(stax_rt::cpu_supports(has_fpu));
#endif
  EXPECT_TRUE(stax_rt::cpu_supports(none));
  const stax_rt::IsaNeeds isas[] = {xcr0_never_set, missing_leaf, none};
  {
    EnvGuard env(nullptr);
    EXPECT_EQ(stax_rt::choose_isa(isas, 3), 2);
  }
  {
    EnvGuard env("needs_xcr0_bit_62");  // forcing what the machine lacks is ignored
    EXPECT_EQ(stax_rt::choose_isa(isas, 3), 2);
  }
#if defined(__x86_64__)
  const stax_rt::IsaNeeds two[] = {xcr0_never_set, has_fpu, none};
  {
    EnvGuard env(nullptr);
    EXPECT_EQ(stax_rt::choose_isa(two, 3), 1);
  }
  {
    EnvGuard env("none");  // forcing a narrower set the machine supports
    EXPECT_EQ(stax_rt::choose_isa(two, 3), 2);
  }
#endif
}
