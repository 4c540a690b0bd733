// Build-time check: the prelude (with stax_gemm.h, the matmul entry, and the vector layer it
// needs) compiles alone as C++17 with -Wall -Wextra -Werror (what users build generated code
// with), every template instantiated for every dtype of the format.
#include "stax_prelude.h"
#include "stax_gemm.h"  // matmul (with the vector layer it needs)

namespace {

template <typename T> T exercise_all(T a, T b, int& err) {
  T r = stax_rt::add(a, b);
  r = stax_rt::sub(r, stax_rt::mul(a, b));
  r = stax_rt::maximum(r, stax_rt::minimum(a, b));
  r = stax_rt::clamp(r, a, b);
  r = stax_rt::relu(stax_rt::floor(stax_rt::ceil(stax_rt::round(stax_rt::trunc(r)))));
  r = stax_rt::cast<T>(stax_rt::cast<float>(r) + stax_rt::cast<float>(stax_rt::cast<double>(r)));
  r = stax_rt::cast<T>(stax_rt::cast<int32_t>(r) + stax_rt::cast<int64_t>(stax_rt::cast<bool>(r)));
  stax_rt::ArgAcc<T> acc = stax_rt::arg_init<T>();
  stax_rt::argmax_update(acc, r, 0);
  stax_rt::argmin_combine(acc, acc);
  T c[1];
  stax_rt::matmul(&a, 1, 1, &b, 1, 1, c, 1, 1, 1);
  (void)stax_rt::isnan(r);
  (void)stax_rt::isinf(r);
  (void)stax_rt::isfinite(r);
  (void)stax_rt::truthy(r);
  (void)err;
  return stax_rt::pow(r, c[0]);
}

template <typename T> T exercise_signed(T a, T b, int& err) {
  T r = stax_rt::div_trunc(a, b, err);
  r = stax_rt::add(r, stax_rt::div_floor(a, b, err));
  r = stax_rt::add(r, stax_rt::remainder(a, b, err));
  r = stax_rt::add(r, stax_rt::neg(stax_rt::abs(stax_rt::sign(a))));
  return r;
}

template <typename T> T exercise_float(T x) {
  T r = stax_rt::exp(x) + stax_rt::exp2(x) + stax_rt::expm1(x) + stax_rt::log(x) +
        stax_rt::log2(x) + stax_rt::log10(x) + stax_rt::log1p(x) + stax_rt::sin(x) +
        stax_rt::cos(x) + stax_rt::tan(x) + stax_rt::asin(x) + stax_rt::acos(x) +
        stax_rt::atan(x) + stax_rt::sinh(x) + stax_rt::cosh(x) + stax_rt::tanh(x) +
        stax_rt::erf(x) + stax_rt::erfc(x) + stax_rt::atan2(x, x) + stax_rt::sqrt(x) +
        stax_rt::rsqrt(x) + stax_rt::reciprocal(x) + stax_rt::sigmoid(x) + stax_rt::silu(x) +
        stax_rt::gelu(x) + stax_rt::gelu_tanh(x) + stax_rt::leaky_relu(x, x) +
        stax_rt::inf<T>() + stax_rt::nan<T>();
  stax_rt::Welford w;
  stax_rt::welford_update(w, static_cast<double>(r));
  stax_rt::welford_combine(w, w);
  return static_cast<T>(stax_rt::welford_var(w, 1.0));
}

}  // namespace

// The only external symbol of this file, so nothing above is unused.
int stax_prelude_cxx17_check(int n) {
  int err = 0;
  double total = exercise_all<float>(1.0f, 2.0f, err) + exercise_all<double>(1.0, 2.0, err) +
                 exercise_all<int32_t>(1, 2, err) + exercise_all<int64_t>(1, 2, err) +
                 exercise_all<bool>(true, false, err) + exercise_signed<float>(1.0f, 2.0f, err) +
                 exercise_signed<double>(1, 2, err) + exercise_signed<int32_t>(1, 2, err) +
                 exercise_signed<int64_t>(1, 2, err) + exercise_float<float>(0.5f) +
                 exercise_float<double>(0.5);
  stax_rt::Workspace ws(nullptr, static_cast<std::size_t>(n));
  const int64_t shape[1] = {1};
  const stax_rt::TensorSpec spec{"x", STAX_FLOAT32, 1, shape};
  char msg[64];
  const stax_layout layout{STAX_FLOAT32, 1, shape, nullptr};
  int code = stax_rt::check_layout("input", 0, spec, &total, layout, msg, sizeof msg);
  return static_cast<int>(total) + err + code + (ws.failed() ? 1 : 0) +
         static_cast<int>(stax_rt::strerror(code)[0]) + static_cast<int>(stax_rt::dtype_name(0)[0]);
}
