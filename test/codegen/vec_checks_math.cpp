// Vector layer: the transcendentals (SLEEF's, and the inline float32 exp, erf and tanh) against
// long double references (ULP bounds), the activations against the prelude, accurate long sums,
// vector argmax/argmin, lane maps and checked integer division.
#include "vec_checks.h"

namespace vec_checks {

namespace {

constexpr int kSamples = 1500;

struct Domain {
  double lo, hi;
  bool log_scale;  // sample |x| log-uniformly in [lo, hi] (lo > 0), both signs unless positive_only
  bool positive_only;
};

template <typename T> int sample(const Domain& d, T* x, uint64_t seed) {
  Lcg rng(seed);
  int n = 0;
  for (int i = 0; i < kSamples; ++i) {
    double v = d.log_scale ? std::exp(rng.uniform(std::log(d.lo), std::log(d.hi))) : rng.uniform(d.lo, d.hi);
    if (d.log_scale && !d.positive_only && (rng.next() & 1)) v = -v;
    x[n++] = static_cast<T>(v);
  }
  // Special values, kept only when the reference defines them (NaN in, NaN out, infinities).
  T s[kMaxEdges];
  const int k = edge_values(s);
  for (int i = 0; i < k; ++i) x[n++] = s[i];
  return n;
}

// f over x in vector form (tails included) vs ref in long double: at most max_ulp apart, and
// NaN exactly where the reference is NaN.
template <typename T, typename VF, typename RF>
void unary_ulp(const char* what, VF vf, RF ref, const Domain& d, double max_ulp) {
  T x[kSamples + kMaxEdges], r[kSamples + kMaxEdges];
  const int n = sample(d, x, 11);
  apply1(vf, x, r, n);
  double worst = 0;
  for (int i = 0; i < n; ++i) {
    const long double want = ref(static_cast<long double>(x[i]));
    const double e = ulp_error(r[i], want);
    if (e > worst) worst = e;
    CHECK(e <= max_ulp, "%s(%.9g) = %.17g, want %.17Lg (%.3g ULP)", what, double(x[i]), double(r[i]), want, e);
  }
  if (worst > max_ulp) std::printf("    %s: worst %.3g ULP\n", what, worst);
}

template <typename T, typename VF, typename RF>
void binary_ulp(const char* what, VF vf, RF ref, const Domain& dx, const Domain& dy, double max_ulp) {
  T x[kSamples + kMaxEdges], y[kSamples + kMaxEdges], r[kSamples + kMaxEdges];
  const int n = sample(dx, x, 12);
  sample(dy, y, 13);
  apply2(vf, x, y, r, n);
  for (int i = 0; i < n; ++i) {
    const long double want = ref(static_cast<long double>(x[i]), static_cast<long double>(y[i]));
    const double e = ulp_error(r[i], want);
    CHECK(e <= max_ulp, "%s(%.9g, %.9g) = %.17g, want %.17Lg (%.3g ULP)", what, double(x[i]), double(y[i]),
          double(r[i]), want, e);
  }
}

// SLEEF's u10 functions promise 1.0 ULP; a little slack covers the long double reference.
constexpr double kU10 = 1.0 + 1e-3;
constexpr double kU15 = 1.5 + 1e-3;

template <typename T> void transcendentals_of() {
  using VT = V<T>;
  const bool f32 = std::is_same_v<T, float>;
  const double exp_hi = f32 ? 88.7 : 709.7, exp_lo = f32 ? -87.3 : -708.3;  // normal results
  const Domain exp_d{exp_lo, exp_hi, false, false}, pos{1e-30, 1e30, true, true};
  const Domain wide{1e-6, 1e6, true, false}, unit{-1, 1, false, false}, trig{-1e4, 1e4, false, false};
  unary_ulp<T>("exp", [](VT v) { return stax_rt::exp(v); }, [](long double v) { return std::exp(v); }, exp_d, kU10);
  unary_ulp<T>("exp2", [](VT v) { return stax_rt::exp2(v); }, [](long double v) { return std::exp2(v); },
               Domain{exp_lo * 1.44, exp_hi * 1.44, false, false}, kU10);
  unary_ulp<T>("expm1", [](VT v) { return stax_rt::expm1(v); }, [](long double v) { return std::expm1(v); },
               Domain{-30, exp_hi, false, false}, kU10);
  unary_ulp<T>("expm1 small", [](VT v) { return stax_rt::expm1(v); }, [](long double v) { return std::expm1(v); },
               Domain{1e-20, 1e-2, true, false}, kU10);
  unary_ulp<T>("log", [](VT v) { return stax_rt::log(v); }, [](long double v) { return std::log(v); }, pos, kU10);
  unary_ulp<T>("log2", [](VT v) { return stax_rt::log2(v); }, [](long double v) { return std::log2(v); }, pos, kU10);
  unary_ulp<T>("log10", [](VT v) { return stax_rt::log10(v); }, [](long double v) { return std::log10(v); }, pos, kU10);
  unary_ulp<T>("log1p", [](VT v) { return stax_rt::log1p(v); }, [](long double v) { return std::log1p(v); },
               Domain{-0.999, 1e6, false, false}, kU10);
  unary_ulp<T>("log1p small", [](VT v) { return stax_rt::log1p(v); }, [](long double v) { return std::log1p(v); },
               Domain{1e-20, 1e-2, true, false}, kU10);
  unary_ulp<T>("sin", [](VT v) { return stax_rt::sin(v); }, [](long double v) { return std::sin(v); }, trig, kU10);
  unary_ulp<T>("cos", [](VT v) { return stax_rt::cos(v); }, [](long double v) { return std::cos(v); }, trig, kU10);
  unary_ulp<T>("tan", [](VT v) { return stax_rt::tan(v); }, [](long double v) { return std::tan(v); }, trig, kU10);
  unary_ulp<T>("asin", [](VT v) { return stax_rt::asin(v); }, [](long double v) { return std::asin(v); }, unit, kU10);
  unary_ulp<T>("acos", [](VT v) { return stax_rt::acos(v); }, [](long double v) { return std::acos(v); }, unit, kU10);
  unary_ulp<T>("atan", [](VT v) { return stax_rt::atan(v); }, [](long double v) { return std::atan(v); }, wide, kU10);
  const Domain hyp{-(f32 ? 88.0 : 709.0), f32 ? 88.0 : 709.0, false, false};
  unary_ulp<T>("sinh", [](VT v) { return stax_rt::sinh(v); }, [](long double v) { return std::sinh(v); }, hyp, kU10);
  unary_ulp<T>("cosh", [](VT v) { return stax_rt::cosh(v); }, [](long double v) { return std::cosh(v); }, hyp, kU10);
  unary_ulp<T>("tanh", [](VT v) { return stax_rt::tanh(v); }, [](long double v) { return std::tanh(v); },
               Domain{-20, 20, false, false}, kU10);
  unary_ulp<T>("erf", [](VT v) { return stax_rt::erf(v); }, [](long double v) { return std::erf(v); },
               Domain{-6, 6, false, false}, kU10);
  unary_ulp<T>("erfc", [](VT v) { return stax_rt::erfc(v); }, [](long double v) { return std::erfc(v); },
               Domain{-6, f32 ? 9.0 : 26.0, false, false}, kU15);
  binary_ulp<T>("atan2", [](VT a, VT b) { return stax_rt::atan2(a, b); },
                [](long double a, long double b) { return std::atan2(a, b); }, wide, wide, kU10);
  binary_ulp<T>("pow", [](VT a, VT b) { return stax_rt::pow(a, b); },
                [](long double a, long double b) { return std::pow(a, b); }, Domain{1e-3, 1e3, true, true},
                Domain{-10, 10, false, false}, kU10);
  // Hand-checked special values (C99 Annex F, as std:: and torch).
  const T nan = stax_rt::nan<T>(), inf = stax_rt::inf<T>();
  CHECK(stax_rt::exp(VT(-inf)).lane(0) == T(0) && stax_rt::exp(VT(inf)).lane(0) == inf, "exp(+-inf)");
  CHECK(std::isnan(stax_rt::exp(VT(nan)).lane(0)) && std::isnan(stax_rt::log(VT(T(-1))).lane(0)), "exp(nan), log(-1)");
  CHECK(stax_rt::log(VT(T(0))).lane(W - 1) == -inf, "log(0) = -inf");
  CHECK(stax_rt::pow(VT(nan), VT(T(0))).lane(0) == T(1) && stax_rt::pow(VT(T(1)), VT(nan)).lane(0) == T(1),
        "pow(nan, 0) = pow(1, nan) = 1");
  CHECK(stax_rt::pow(VT(T(-2)), VT(T(3))).lane(0) == T(-8) && std::isnan(stax_rt::pow(VT(T(-2)), VT(T(0.5))).lane(0)),
        "pow of a negative base");
  CHECK(stax_rt::tanh(VT(inf)).lane(0) == T(1) && stax_rt::erf(VT(-inf)).lane(0) == T(-1), "tanh(inf), erf(-inf)");
  CHECK(stax_rt::atan2(VT(T(0)), VT(T(-1))).lane(0) == static_cast<T>(3.14159265358979323846L), "atan2(0, -1) = pi");
}

// The transcendentals and activations on the edge values (every value, or pair, in every lane
// position among ordinary values) against the scalar path's: NaN exactly where it gives NaN,
// zeros and infinities alike (signs included), other results at most a few representable
// values apart: the vector functions (SLEEF's, or the inline float32 exp, erf and tanh) and the
// scalar SLEEF functions are each within 1 ULP of the exact result (erfc 1.5), so they may
// differ by 2 (erfc: 3); the activations compose them (4).
namespace rt = stax_rt;
template <typename T> constexpr Unary<T> kTranscendental[] = {
    {"exp", [](V<T> x) { return rt::exp(x); }, [](T x) { return rt::exp(x); }, 2},
    {"exp2", [](V<T> x) { return rt::exp2(x); }, [](T x) { return rt::exp2(x); }, 2},
    {"expm1", [](V<T> x) { return rt::expm1(x); }, [](T x) { return rt::expm1(x); }, 2},
    {"log", [](V<T> x) { return rt::log(x); }, [](T x) { return rt::log(x); }, 2},
    {"log2", [](V<T> x) { return rt::log2(x); }, [](T x) { return rt::log2(x); }, 2},
    {"log10", [](V<T> x) { return rt::log10(x); }, [](T x) { return rt::log10(x); }, 2},
    {"log1p", [](V<T> x) { return rt::log1p(x); }, [](T x) { return rt::log1p(x); }, 2},
    {"sin", [](V<T> x) { return rt::sin(x); }, [](T x) { return rt::sin(x); }, 2},
    {"cos", [](V<T> x) { return rt::cos(x); }, [](T x) { return rt::cos(x); }, 2},
    {"tan", [](V<T> x) { return rt::tan(x); }, [](T x) { return rt::tan(x); }, 2},
    {"asin", [](V<T> x) { return rt::asin(x); }, [](T x) { return rt::asin(x); }, 2},
    {"acos", [](V<T> x) { return rt::acos(x); }, [](T x) { return rt::acos(x); }, 2},
    {"atan", [](V<T> x) { return rt::atan(x); }, [](T x) { return rt::atan(x); }, 2},
    {"sinh", [](V<T> x) { return rt::sinh(x); }, [](T x) { return rt::sinh(x); }, 2},
    {"cosh", [](V<T> x) { return rt::cosh(x); }, [](T x) { return rt::cosh(x); }, 2},
    {"tanh", [](V<T> x) { return rt::tanh(x); }, [](T x) { return rt::tanh(x); }, 2},
    {"erf", [](V<T> x) { return rt::erf(x); }, [](T x) { return rt::erf(x); }, 2},
    {"erfc", [](V<T> x) { return rt::erfc(x); }, [](T x) { return rt::erfc(x); }, 3},
    {"sigmoid", [](V<T> x) { return rt::sigmoid(x); }, [](T x) { return rt::sigmoid(x); }, 4},
    {"silu", [](V<T> x) { return rt::silu(x); }, [](T x) { return rt::silu(x); }, 4},
    {"gelu", [](V<T> x) { return rt::gelu(x); }, [](T x) { return rt::gelu(x); }, 4},
    {"gelu_tanh", [](V<T> x) { return rt::gelu_tanh(x); }, [](T x) { return rt::gelu_tanh(x); }, 4},
};
template <typename T> constexpr Binary<T> kTranscendental2[] = {
    {"atan2", [](V<T> x, V<T> y) { return rt::atan2(x, y); }, [](T x, T y) { return rt::atan2(x, y); }, 2},
    {"pow", [](V<T> x, V<T> y) { return rt::pow(x, y); }, [](T x, T y) { return rt::pow(x, y); }, 2},
};

// float32 exp, erf and tanh (inline on AVX2 and AVX-512, stax_vec.h) over a dense sweep of all
// float32 inputs, and where their pieces meet: subnormal results, the overflow and underflow
// thresholds, the switch points of erf and tanh.
float float_of_bits(uint32_t b) {
  float x;
  std::memcpy(&x, &b, sizeof x);
  return x;
}

// f over `n` consecutive float32 bit patterns from `first` (stepping by `step`) against ref.
template <typename VF, typename RF> void float_sweep(const char* what, VF vf, RF ref, uint32_t first, uint32_t step, int n) {
  float x[64], r[64];
  double worst = 0;
  for (int done = 0; done < n; done += 64) {
    const int k = n - done < 64 ? n - done : 64;
    for (int i = 0; i < k; ++i) x[i] = float_of_bits(first + static_cast<uint32_t>(done + i) * step);
    apply1(vf, x, r, k);
    for (int i = 0; i < k; ++i) {
      const double e = ulp_error(r[i], ref(static_cast<long double>(x[i])));
      if (e > worst) worst = e;
      CHECK(e <= kU10, "%s(%.9g) = %.9g, want %.12Lg (%.3g ULP)", what, double(x[i]), double(r[i]),
            ref(static_cast<long double>(x[i])), e);
    }
  }
  if (worst > kU10) std::printf("    %s: worst %.3g ULP\n", what, worst);
}

// An odd function rising to 1 (erf, tanh): 4096 floats on each side of +-each switch point (where
// its pieces meet and where it saturates), f(-x) = -f(x) bit for bit, f(+-0) = +-0, f(inf) = 1
// and f(-1e30) = -1.
template <typename VFn, typename RFn> void odd_to_one(const char* name, VFn vf, RFn ref, const float (&switches)[3]) {
  using VF = V<float>;
  for (float b : switches) {
    const float both[2] = {b, -b};
    for (float at : both) {
      uint32_t bits;
      std::memcpy(&bits, &at, sizeof bits);
      float_sweep(name, vf, ref, bits - 4096, 1, 8192);
    }
  }
  float x[64], r[64], rn[64];
  Lcg rng(17);
  for (float& v : x) v = static_cast<float>(rng.uniform(-6, 6));
  apply1(vf, x, r, 64);
  for (float& v : x) v = -v;
  apply1(vf, x, rn, 64);
  for (int i = 0; i < 64; ++i) CHECK(same_bits(rn[i], -r[i]), "%s(-x) = -%s(x) at x = %.9g", name, name, double(-x[i]));
  CHECK(same_bits(vf(VF(0.0f)).lane(0), 0.0f) && same_bits(vf(VF(-0.0f)).lane(0), -0.0f), "%s(+-0) = +-0", name);
  CHECK(vf(VF(stax_rt::inf<float>())).lane(0) == 1.0f && vf(VF(-1e30f)).lane(0) == -1.0f, "%s saturates", name);
}

void float_exp_erf_tanh() {
  using VF = V<float>;
  const auto vexp = [](VF v) { return stax_rt::exp(v); };
  const auto verf = [](VF v) { return stax_rt::erf(v); };
  const auto rexp = [](long double v) { return std::exp(v); };
  const auto rerf = [](long double v) { return std::erf(v); };
  // Every 4093rd bit pattern: about a million inputs of every sign and exponent (NaNs included).
  float_sweep("exp", vexp, rexp, 0, 4093, 1049344);
  float_sweep("erf", verf, rerf, 0, 4093, 1049344);
  // Subnormal results: x from ln FLT_MIN = -87.34 down to ln 2^-150 = -103.97 (every 266th
  // float), then the floats around the underflow threshold.
  const float flt_min_arg = static_cast<float>(std::log(static_cast<long double>(std::numeric_limits<float>::min())));
  uint32_t mb;
  std::memcpy(&mb, &flt_min_arg, sizeof mb);
  float_sweep("exp subnormal", vexp, rexp, mb, 266, 8192);
  const float underflow = static_cast<float>(std::log(std::ldexp(1.0L, -150)));  // -103.972076, just above
  uint32_t ub;
  std::memcpy(&ub, &underflow, sizeof ub);
  float_sweep("exp at the underflow threshold", vexp, rexp, ub - 4096, 1, 8192);
  CHECK(stax_rt::exp(VF(underflow)).lane(0) == std::numeric_limits<float>::denorm_min(), "exp(%.9g) = 2^-149",
        double(underflow));
  CHECK(stax_rt::exp(VF(std::nextafter(underflow, -200.0f))).lane(0) == 0.0f, "exp below the underflow threshold");
  // Overflow: the last float x with e^x below FLT_MAX rounded up, and the first one above.
  const float overflow = static_cast<float>(std::log(static_cast<long double>(std::numeric_limits<float>::max())));
  uint32_t ob;
  std::memcpy(&ob, &overflow, sizeof ob);
  float_sweep("exp at the overflow threshold", vexp, rexp, ob - 4096, 1, 8192);
  CHECK(std::isfinite(stax_rt::exp(VF(88.7228317f)).lane(0)) && stax_rt::exp(VF(88.7228394f)).lane(0) == stax_rt::inf<float>(),
        "exp overflows between 88.7228317 and 88.7228394");
  CHECK(stax_rt::exp(VF(89.0f)).lane(0) == stax_rt::inf<float>(), "exp(89) = inf");
  const float big[] = {104.0f, 200.0f, 1e30f, stax_rt::inf<float>()};
  for (float v : big) {
    CHECK(stax_rt::exp(VF(v)).lane(0) == stax_rt::inf<float>() && stax_rt::exp(VF(-v)).lane(0) == 0.0f,
          "exp(+-%g) = inf, 0", double(v));
  }
  CHECK(stax_rt::exp(VF(0.0f)).lane(0) == 1.0f && stax_rt::exp(VF(-0.0f)).lane(0) == 1.0f, "exp(+-0) = 1");
  // Lanes that round to 0 (a masked softmax's -inf) among ordinary ones, among ones beyond the
  // fast path's range, and among NaNs: each lane as exp of that value alone.
  const float mixes[][4] = {{-stax_rt::inf<float>(), 0.5f, -200.0f, -3.25f},
                            {-stax_rt::inf<float>(), 87.5f, -1.0f, -90.0f},
                            {-stax_rt::inf<float>(), stax_rt::nan<float>(), 2.0f, -104.5f}};
  for (const auto& mix : mixes) {
    float in[64], out[64];
    for (int i = 0; i < 64; ++i) in[i] = mix[i % 4];
    apply1(vexp, in, out, 64);
    for (int i = 0; i < 64; ++i) {
      const float alone = stax_rt::exp(VF(in[i])).lane(0);
      CHECK(same_bits(out[i], alone) || (std::isnan(out[i]) && std::isnan(alone)), "exp(%.9g) among other lanes",
            double(in[i]));
    }
  }
  // erf: 4096 floats on each side of where its pieces meet (0.75, 1.5) and where it saturates (4).
  odd_to_one("erf", verf, rerf, {0.75f, 1.5f, 4.0f});
  CHECK(std::isnan(stax_rt::erf(VF(stax_rt::nan<float>())).lane(0)) &&
            std::isnan(stax_rt::exp(VF(-stax_rt::nan<float>())).lane(0)) &&
            std::isnan(stax_rt::tanh(VF(stax_rt::nan<float>())).lane(0)),
        "NaN in, NaN out");
  // tanh: the sweep, then as erf (pieces meet at 0.625 and 1.5, saturation from 9.5).
  const auto vtanh = [](VF v) { return stax_rt::tanh(v); };
  const auto rtanh = [](long double v) { return std::tanh(v); };
  float_sweep("tanh", vtanh, rtanh, 0, 4093, 1049344);
  odd_to_one("tanh", vtanh, rtanh, {0.625f, 1.5f, 9.5f});
}

template <typename T> void activations_of() {
  using VT = V<T>;
  T x[kSamples + kMaxEdges], r[kSamples + kMaxEdges];
  const int n = sample(Domain{-30, 30, false, false}, x, 5);
  struct Case {
    const char* name;
    VT (*vf)(VT);
    T (*sf)(T);
  };
  const Case cases[] = {
      {"sigmoid", [](VT v) { return stax_rt::sigmoid(v); }, [](T v) { return stax_rt::sigmoid(v); }},
      {"silu", [](VT v) { return stax_rt::silu(v); }, [](T v) { return stax_rt::silu(v); }},
      {"gelu", [](VT v) { return stax_rt::gelu(v); }, [](T v) { return stax_rt::gelu(v); }},
      {"gelu_tanh", [](VT v) { return stax_rt::gelu_tanh(v); }, [](T v) { return stax_rt::gelu_tanh(v); }},
  };
  for (const Case& c : cases) {
    apply1(c.vf, x, r, n);
    for (int i = 0; i < n; ++i) {
      const T want = c.sf(x[i]);
      // The vector and scalar SLEEF functions may differ by an ULP inside the formula, which
      // 1 + erf(x) amplifies where it cancels: 4 ULP of the result or 4 eps * (|x| + 1).
      const double e = ulp_error(r[i], static_cast<long double>(want));
      const double abs_tol = 4 * double(std::numeric_limits<T>::epsilon()) * (std::fabs(double(x[i])) + 1);
      const bool ok = (std::isnan(double(want)) && std::isnan(double(r[i]))) || e <= 4 ||
                      std::fabs(double(r[i]) - double(want)) <= abs_tol;
      CHECK(ok, "%s(%.9g) = %.17g, scalar %.17g", c.name, double(x[i]), double(r[i]), double(want));
    }
  }
}

// The accuracy bar of long sums: 2^27 float32 values within 1e-5 relative of double. One running
// float per lane cannot do it (the check below shows so); float64 lanes, the accumulators of
// generated float32 sums, can.
void long_float_sums() {
  const int64_t n = int64_t(1) << 27;
  V<double> lanes(0.0);
  V<float> naive(0.0f);
  double exact = 0;
  // Values 1 + k/1024 for k = i mod 1024 (exact in float), summed in double analytically.
  const V<float> step(static_cast<float>(W) / 1024.0f);
  V<float> v = V<float>::iota(0.0f) * V<float>(1.0f / 1024.0f) + V<float>(1.0f);
  int64_t k = 0;
  for (int64_t i = 0; i < n; i += W) {
    lanes = lanes + stax_rt::convert(v, stax_rt::VecTag<double>());
    naive += v;
    k += W;
    v = v + step;
    if (k == 1024) v = v - V<float>(1.0f), k = 0;
  }
  for (int64_t j = 0; j < 1024; ++j) exact += (1.0 + static_cast<double>(j) / 1024.0) * static_cast<double>(n / 1024);
  const double got = stax_rt::reduce_sum(lanes);
  const double naive_sum = static_cast<double>(stax_rt::reduce_sum(naive));
  CHECK(std::fabs(got - exact) <= 1e-5 * exact, "float64-lane sum of 2^27: %.17g, exact %.17g", got, exact);
  CHECK(std::fabs(naive_sum - exact) > 1e-5 * exact, "one running float per lane should drift (%.17g vs %.17g)",
        naive_sum, exact);
  // The mean of the same values, through the same sum.
  CHECK(std::fabs(got / double(n) - exact / double(n)) <= 1e-5 * (exact / double(n)), "mean of 2^27");
}

template <typename T> void arg_reductions_of() {
  Lcg rng(3);
  for (int n = 1; n <= 3 * W + 2; ++n) {
    for (int variant = 0; variant < 6; ++variant) {
      T x[3 * 16 + 2];
      for (int i = 0; i < n; ++i) x[i] = static_cast<T>(static_cast<int>(rng.uniform(0, 4)));  // many ties
      // Variants 4 and 5: edge values (signed zeros, infinities, the extremes and identities,
      // NaNs), drawn with repeats, among those small values.
      for (int i = 0; variant >= 4 && i < n; ++i) {
        if (rng.next() % (variant == 4 ? 2 : 5) != 0) x[i] = edge_table<T>()[rng.next() % edge_count<T>];
      }
      if constexpr (std::is_floating_point_v<T>) {
        if (variant == 2 || variant == 3) x[rng.next() % static_cast<uint64_t>(n)] = stax_rt::nan<T>();
        if (variant == 3) x[rng.next() % static_cast<uint64_t>(n)] = stax_rt::nan<T>();
      }
      // Whole vectors in int32-position lanes, the rest in the scalar accumulators they fold
      // into, as generated row reductions do.
      using Lim = std::numeric_limits<T>;
      const T lowest = Lim::has_infinity ? -Lim::infinity() : Lim::min();
      const T highest = Lim::has_infinity ? Lim::infinity() : Lim::max();
      stax_rt::ArgLanes<T, int32_t, Isa> amax(lowest), amin(highest);
      int i = 0;
      for (; i + W <= n; i += W) {
        const V<T> v = V<T>::loadu(x + i);
        const V<int32_t> at = V<int32_t>::iota(i);
        stax_rt::argmax_update(amax, v, at);
        stax_rt::argmin_update(amin, v, at);
      }
      stax_rt::ArgAcc<T> got_max = stax_rt::arg_init<T>(), got_min = stax_rt::arg_init<T>();
      for (; i < n; ++i) {
        stax_rt::argmax_update(got_max, x[i], i);
        stax_rt::argmin_update(got_min, x[i], i);
      }
      stax_rt::argmax_combine(got_max, amax);
      stax_rt::argmin_combine(got_min, amin);
      stax_rt::ArgAcc<T> want_max = stax_rt::arg_init<T>(), want_min = stax_rt::arg_init<T>();
      for (int j = 0; j < n; ++j) {
        stax_rt::argmax_update(want_max, x[j], j);
        stax_rt::argmin_update(want_min, x[j], j);
      }
      CHECK(got_max.index == want_max.index, "argmax of %d (variant %d): %lld, want %lld", n, variant,
            static_cast<long long>(got_max.index), static_cast<long long>(want_max.index));
      CHECK(got_min.index == want_min.index, "argmin of %d (variant %d): %lld, want %lld", n, variant,
            static_cast<long long>(got_min.index), static_cast<long long>(want_min.index));
    }
  }
}

template <typename T> void division_of() {
  // Integer division lane by lane: a zero divisor sets the flag, but only in active lanes.
  T a[16], b[16];
  for (int i = 0; i < W; ++i) a[i] = static_cast<T>(7 - 3 * i), b[i] = static_cast<T>(i % 4 - 2);  // b: -2 -1 0 1 ...
  for (int n = 0; n <= W; ++n) {
    int err = 0;
    const V<T> x = V<T>::loadu(a, n), y = V<T>::loadu(b, n);
    const V<T> q = stax_rt::div_floor(x, y, err, n), t = stax_rt::div_trunc(x, y, err, n);
    const V<T> r = stax_rt::remainder(x, y, err, n);
    int want_err = 0;
    for (int i = 0; i < n; ++i) {
      CHECK(q.lane(i) == stax_rt::div_floor(a[i], b[i], want_err), "div_floor(%lld, %lld)", (long long)a[i], (long long)b[i]);
      CHECK(t.lane(i) == stax_rt::div_trunc(a[i], b[i], want_err), "div_trunc");
      CHECK(r.lane(i) == stax_rt::remainder(a[i], b[i], want_err), "remainder");
    }
    CHECK(err == want_err, "error flag with %d active lanes: %d, want %d", n, err, want_err);
    CHECK(err == (n > 2 ? 1 : 0), "the zero divisor is lane 2");
  }
  const V<T> p = stax_rt::pow(V<T>::iota(T(-2)), V<T>(T(3)));
  for (int i = 0; i < W; ++i) CHECK(p.lane(i) == stax_rt::pow(static_cast<T>(i - 2), T(3)), "integer pow lane %d", i);
}

}  // namespace

void check_transcendentals() {
  run(kTranscendental<float>);
  run(kTranscendental<double>);
  run(kTranscendental2<float>);
  run(kTranscendental2<double>);
  transcendentals_of<float>();
  // The scalar set keeps the prelude's SLEEF functions, checked by transcendentals_of (SLEEF's
  // scalar erff is up to 1.94 ULP off for subnormal x, which its sampled domain does not reach).
  if constexpr (stax_rt::is_simd<Isa>) float_exp_erf_tanh();
  transcendentals_of<double>();
}

void check_activations() {
  activations_of<float>();
  activations_of<double>();
}

void check_long_sums() { long_float_sums(); }

void check_arg_reductions() {
  arg_reductions_of<float>();
  arg_reductions_of<double>();
  arg_reductions_of<int32_t>();
  arg_reductions_of<int64_t>();
}

void check_division_and_maps() {
  division_of<int32_t>();
  division_of<int64_t>();
  // map: only the first n lanes see f.
  int calls = 0;
  const V<int32_t> m = stax_rt::map([&calls](int32_t v) { return ++calls, v * 2; }, V<int32_t>::iota(1), W - 1);
  CHECK(calls == W - 1, "map called %d times", calls);
  for (int i = 0; i < W; ++i) CHECK(m.lane(i) == (i < W - 1 ? 2 * (i + 1) : i + 1), "map lane %d", i);
  // from_lanes: f of consecutive values of a loop variable.
  const V<int64_t> q = stax_rt::from_lanes<int64_t, Isa>([](int64_t i) { return (i + 5) / 3 % 4; }, 30);
  const V<double> h = stax_rt::from_lanes<double, Isa>([](int64_t i) { return 0.5 * static_cast<double>(i); }, -3);
  for (int i = 0; i < W; ++i) {
    CHECK(q.lane(i) == (i + 35) / 3 % 4, "from_lanes lane %d", i);
    CHECK(h.lane(i) == 0.5 * (i - 3), "from_lanes of double, lane %d", i);
  }
}

}  // namespace vec_checks
