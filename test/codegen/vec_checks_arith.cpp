// Vector layer: arithmetic, comparisons, selection, conversions and horizontal reductions,
// lane by lane against the prelude's scalar functions on every pair of special values.
#include "vec_checks.h"

namespace vec_checks {

namespace {

constexpr int kMaxPairs = 32 * 32;

// Every ordered pair of T's special values, as two arrays.
template <typename T> int pairs(T* a, T* b) {
  T s[32];
  const int n = special_values(s);
  int k = 0;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) a[k] = s[i], b[k++] = s[j];
  return k;
}

template <typename T, typename VF, typename SF>
void binary_same(const char* what, VF vf, SF sf, bool bits) {
  T a[kMaxPairs], b[kMaxPairs], r[kMaxPairs];
  const int n = pairs(a, b);
  apply2(vf, a, b, r, n);
  for (int k = 0; k < n; ++k) {
    const T want = sf(a[k], b[k]);
    const bool ok = bits ? same_bits(r[k], want) : same_value(r[k], want);
    CHECK(ok, "%s(%.17g, %.17g) = %.17g, want %.17g", what, as_double(double(a[k])), as_double(double(b[k])),
          double(r[k]), double(want));
  }
}

template <typename T, typename VF, typename SF> void unary_same(const char* what, VF vf, SF sf, bool bits) {
  T a[32], r[32];
  const int n = special_values(a);
  apply1(vf, a, r, n);
  for (int k = 0; k < n; ++k) {
    const T want = sf(a[k]);
    const bool ok = bits ? same_bits(r[k], want) : same_value(r[k], want);
    CHECK(ok, "%s(%.17g) = %.17g, want %.17g", what, double(a[k]), double(r[k]), double(want));
  }
}

template <typename T> void float_arithmetic() {
  using VT = V<T>;
  binary_same<T>("add", [](VT x, VT y) { return x + y; }, [](T x, T y) { return x + y; }, false);
  binary_same<T>("sub", [](VT x, VT y) { return x - y; }, [](T x, T y) { return x - y; }, false);
  binary_same<T>("mul", [](VT x, VT y) { return x * y; }, [](T x, T y) { return x * y; }, false);
  binary_same<T>("div", [](VT x, VT y) { return x / y; }, [](T x, T y) { return x / y; }, false);
  binary_same<T>("maximum", [](VT x, VT y) { return stax_rt::maximum(x, y); },
                 [](T x, T y) { return stax_rt::maximum(x, y); }, true);
  binary_same<T>("minimum", [](VT x, VT y) { return stax_rt::minimum(x, y); },
                 [](T x, T y) { return stax_rt::minimum(x, y); }, true);
  binary_same<T>("clamp_min", [](VT x, VT y) { return stax_rt::clamp_min(x, y); },
                 [](T x, T y) { return stax_rt::clamp_min(x, y); }, true);
  binary_same<T>("clamp_max", [](VT x, VT y) { return stax_rt::clamp_max(x, y); },
                 [](T x, T y) { return stax_rt::clamp_max(x, y); }, true);
  binary_same<T>("leaky_relu", [](VT x, VT y) { return stax_rt::leaky_relu(x, y); },
                 [](T x, T y) { return stax_rt::leaky_relu(x, y); }, false);
  binary_same<T>("fma", [](VT x, VT y) { return stax_rt::fma(x, y, x); },
#if defined(__FMA__)
                 [](T x, T y) { return std::fma(x, y, x); },
#else
                 [](T x, T y) { return x * y + x; },
#endif
                 false);
  binary_same<T>("clamp", [](VT x, VT y) { return stax_rt::clamp(x, y, VT(T(2))); },
                 [](T x, T y) { return stax_rt::clamp(x, y, T(2)); }, true);
  unary_same<T>("neg", [](VT x) { return -x; }, [](T x) { return -x; }, true);
  unary_same<T>("neg()", [](VT x) { return stax_rt::neg(x); }, [](T x) { return stax_rt::neg(x); }, true);
  unary_same<T>("abs", [](VT x) { return stax_rt::abs(x); }, [](T x) { return std::fabs(x); }, true);
  unary_same<T>("floor", [](VT x) { return stax_rt::floor(x); }, [](T x) { return std::floor(x); }, false);
  unary_same<T>("ceil", [](VT x) { return stax_rt::ceil(x); }, [](T x) { return std::ceil(x); }, false);
  unary_same<T>("trunc", [](VT x) { return stax_rt::trunc(x); }, [](T x) { return std::trunc(x); }, false);
  unary_same<T>("round", [](VT x) { return stax_rt::round(x); }, [](T x) { return std::nearbyint(x); }, false);
  unary_same<T>("sqrt", [](VT x) { return stax_rt::sqrt(x); }, [](T x) { return std::sqrt(x); }, false);
  unary_same<T>("rsqrt", [](VT x) { return stax_rt::rsqrt(x); }, [](T x) { return stax_rt::rsqrt(x); }, false);
  unary_same<T>("reciprocal", [](VT x) { return stax_rt::reciprocal(x); }, [](T x) { return stax_rt::reciprocal(x); }, false);
  unary_same<T>("relu", [](VT x) { return stax_rt::relu(x); }, [](T x) { return stax_rt::relu(x); }, true);
  unary_same<T>("sign", [](VT x) { return stax_rt::sign(x); }, [](T x) { return stax_rt::sign(x); }, true);
  // Hand-computed corners: half to even, maximum of signed zeros, NaN propagation.
  const VT r = stax_rt::round(VT::iota(T(-2.5)));  // -2.5 -1.5 -0.5 0.5 1.5 2.5 ...
  const T want_round[] = {-2, -2, -0.0, 0, 2, 2, 4, 4, 6, 6, 8, 8, 10, 10, 12, 12};
  for (int i = 0; i < W; ++i) CHECK(same_value(r.lane(i), want_round[i]), "round(%g)", double(T(-2.5) + T(i)));
  CHECK(std::signbit(stax_rt::maximum(VT(-T(0)), VT(T(0))).lane(0)), "maximum(-0, +0) is the first, -0");
  CHECK(!std::signbit(stax_rt::maximum(VT(T(0)), VT(-T(0))).lane(0)), "maximum(+0, -0) is the first, +0");
  CHECK(std::isnan(stax_rt::maximum(VT(T(1)), VT(stax_rt::nan<T>())).lane(0)), "maximum(1, nan) is nan");
  CHECK(std::isnan(stax_rt::minimum(VT(stax_rt::nan<T>()), VT(T(1))).lane(0)), "minimum(nan, 1) is nan");
}

template <typename T> void int_arithmetic() {
  using VT = V<T>;
  binary_same<T>("add", [](VT x, VT y) { return x + y; }, [](T x, T y) { return stax_rt::add(x, y); }, true);
  binary_same<T>("sub", [](VT x, VT y) { return stax_rt::sub(x, y); }, [](T x, T y) { return stax_rt::sub(x, y); }, true);
  binary_same<T>("mul", [](VT x, VT y) { return x * y; }, [](T x, T y) { return stax_rt::mul(x, y); }, true);
  binary_same<T>("maximum", [](VT x, VT y) { return stax_rt::maximum(x, y); },
                 [](T x, T y) { return stax_rt::maximum(x, y); }, true);
  binary_same<T>("minimum", [](VT x, VT y) { return stax_rt::minimum(x, y); },
                 [](T x, T y) { return stax_rt::minimum(x, y); }, true);
  binary_same<T>("and", [](VT x, VT y) { return x & y; }, [](T x, T y) { return static_cast<T>(x & y); }, true);
  binary_same<T>("or", [](VT x, VT y) { return x | y; }, [](T x, T y) { return static_cast<T>(x | y); }, true);
  binary_same<T>("xor", [](VT x, VT y) { return x ^ y; }, [](T x, T y) { return static_cast<T>(x ^ y); }, true);
  binary_same<T>("clamp", [](VT x, VT y) { return stax_rt::clamp(x, y, VT(T(5))); },
                 [](T x, T y) { return stax_rt::clamp(x, y, T(5)); }, true);
  unary_same<T>("neg", [](VT x) { return -x; }, [](T x) { return stax_rt::neg(x); }, true);
  unary_same<T>("abs", [](VT x) { return stax_rt::abs(x); }, [](T x) { return stax_rt::abs(x); }, true);
  unary_same<T>("not", [](VT x) { return stax_rt::bitwise_not(x); }, [](T x) { return stax_rt::bitwise_not(x); }, true);
  unary_same<T>("sign", [](VT x) { return stax_rt::sign(x); }, [](T x) { return stax_rt::sign(x); }, true);
  unary_same<T>("relu", [](VT x) { return stax_rt::relu(x); }, [](T x) { return stax_rt::relu(x); }, true);
  // Hand-computed wrap-around.
  const T mx = std::numeric_limits<T>::max(), mn = std::numeric_limits<T>::min();
  CHECK((VT(mx) + VT(T(1))).lane(0) == mn, "max + 1 wraps to min");
  CHECK(stax_rt::abs(VT(mn)).lane(W - 1) == mn, "abs(min) is min");
  CHECK((VT(T(-3)) * VT(T(7))).lane(W - 1) == T(-21), "-3 * 7");
}

template <typename T> void comparisons() {
  using VT = V<T>;
  T a[kMaxPairs], b[kMaxPairs];
  const int n = pairs(a, b);
  for (int i = 0; i < n; i += W) {
    const int k = n - i < W ? n - i : W;
    const VT x = VT::loadu(a + i, k), y = VT::loadu(b + i, k);
    const M eq = x == y, ne = x != y, lt = x < y, le = x <= y, gt = x > y, ge = x >= y;
    const VT sel = stax_rt::where(lt, x, y);
    const M tr = stax_rt::truthy(x), nan = stax_rt::isnan(x), inf = stax_rt::isinf(x), fin = stax_rt::isfinite(x);
    for (int l = 0; l < k; ++l) {
      const T p = a[i + l], q = b[i + l];
      CHECK(eq.lane(l) == (p == q) && ne.lane(l) == (p != q), "==/!= of %.17g, %.17g", double(p), double(q));
      CHECK(lt.lane(l) == (p < q) && le.lane(l) == (p <= q), "</<= of %.17g, %.17g", double(p), double(q));
      CHECK(gt.lane(l) == (p > q) && ge.lane(l) == (p >= q), ">/>= of %.17g, %.17g", double(p), double(q));
      CHECK(same_bits(sel.lane(l), p < q ? p : q), "where(<) of %.17g, %.17g", double(p), double(q));
      CHECK(tr.lane(l) == stax_rt::truthy(p), "truthy(%.17g)", double(p));
      CHECK(nan.lane(l) == stax_rt::isnan(p) && inf.lane(l) == stax_rt::isinf(p) && fin.lane(l) == stax_rt::isfinite(p),
            "isnan/isinf/isfinite(%.17g)", double(p));
    }
  }
}

template <typename To, typename From> void conversion() {
  From s[32];
  const int n = special_values(s);
  for (int i = 0; i < n; i += W) {
    const int k = n - i < W ? n - i : W;
    const V<From> x = V<From>::loadu(s + i, k);
    const auto y = stax_rt::cast<To>(x);
    const M b = stax_rt::cast<bool>(x);
    const V<To> back = stax_rt::cast<To>(b);
    for (int l = 0; l < k; ++l) {
      const To want = stax_rt::cast<To>(s[i + l]);
      CHECK(same_value(y.lane(l), want), "cast %.17g: got %.17g, want %.17g", double(s[i + l]), double(y.lane(l)),
            double(want));
      CHECK(b.lane(l) == stax_rt::cast<bool>(s[i + l]), "cast to bool of %.17g", double(s[i + l]));
      CHECK(back.lane(l) == (b.lane(l) ? To(1) : To(0)), "cast from bool");
    }
  }
}

template <typename From> void conversions_from() {
  conversion<float, From>();
  conversion<double, From>();
  conversion<int32_t, From>();
  conversion<int64_t, From>();
}

// A row of n values reduced with full vectors and one masked tail, as kernels do.
template <typename T> void row_reductions(int n, Lcg& rng, bool with_nan) {
  using VT = V<T>;
  T x[3 * 16 + 8] = {};
  for (int i = 0; i < n; ++i) x[i] = static_cast<T>(static_cast<int64_t>(rng.uniform(-50, 50)));
  if (with_nan) x[rng.next() % static_cast<uint64_t>(n)] = stax_rt::nan<T>();
  VT sum(T(0)), prod(T(1)), mx(std::numeric_limits<T>::lowest()), mn(std::numeric_limits<T>::max());
  if constexpr (std::is_floating_point_v<T>) mx = VT(-stax_rt::inf<T>()), mn = VT(stax_rt::inf<T>());
  int i = 0;
  for (; i + W <= n; i += W) {
    const VT v = VT::loadu(x + i);
    sum += v;
    prod *= stax_rt::sign(v);
    mx = stax_rt::maximum(mx, v);
    mn = stax_rt::minimum(mn, v);
  }
  if (i < n) {  // the tail, padded with each operation's identity
    const T lowest = std::is_floating_point_v<T> ? -stax_rt::inf<T>() : std::numeric_limits<T>::lowest();
    const T highest = std::is_floating_point_v<T> ? stax_rt::inf<T>() : std::numeric_limits<T>::max();
    sum += VT::loadu(x + i, n - i);
    prod *= stax_rt::sign(VT::loadu(x + i, n - i, T(1)));
    mx = stax_rt::maximum(mx, VT::loadu(x + i, n - i, lowest));
    mn = stax_rt::minimum(mn, VT::loadu(x + i, n - i, highest));
  }
  T want_sum = 0, want_prod = 1, want_max = x[0], want_min = x[0];
  for (int j = 0; j < n; ++j) {
    want_sum = stax_rt::add(want_sum, x[j]);
    want_prod = stax_rt::mul(want_prod, stax_rt::sign(x[j]));
    want_max = stax_rt::maximum(want_max, x[j]);
    want_min = stax_rt::minimum(want_min, x[j]);
  }
  // Integers (and small integral floats) sum exactly in any order.
  CHECK(same_value(stax_rt::reduce_sum(sum), want_sum),
        "sum of %d: %.17g, want %.17g", n, double(stax_rt::reduce_sum(sum)), double(want_sum));
  CHECK(same_value(stax_rt::reduce_prod(prod), want_prod), "prod of signs of %d", n);
  CHECK(same_value(stax_rt::reduce_max(mx), want_max), "max of %d: %.17g, want %.17g", n,
        double(stax_rt::reduce_max(mx)), double(want_max));
  CHECK(same_value(stax_rt::reduce_min(mn), want_min), "min of %d", n);
}

template <typename T> void reductions_of() {
  Lcg rng(7);
  for (int n = 1; n <= 3 * W + 3; ++n) {
    row_reductions<T>(n, rng, false);
    if constexpr (std::is_floating_point_v<T>) row_reductions<T>(n, rng, true);
  }
  // NaN in each lane position propagates through max/min.
  if constexpr (std::is_floating_point_v<T>) {
    for (int k = 0; k < W; ++k) {
      const V<T> v = stax_rt::where(M::first(k + 1) & ~M::first(k), V<T>(stax_rt::nan<T>()), V<T>::iota(T(1)));
      CHECK(std::isnan(stax_rt::reduce_max(v)) && std::isnan(stax_rt::reduce_min(v)), "NaN in lane %d", k);
      CHECK(std::isnan(stax_rt::reduce_sum(v)), "NaN sum, lane %d", k);
    }
    CHECK(stax_rt::reduce_max(V<T>(-stax_rt::inf<T>())) == -stax_rt::inf<T>(), "max of -inf");
  }
  // Wrapping integer sum: W copies of max.
  if constexpr (std::is_integral_v<T>) {
    const T mx = std::numeric_limits<T>::max();
    T want = 0;
    for (int i = 0; i < W; ++i) want = stax_rt::add(want, mx);
    CHECK(stax_rt::reduce_sum(V<T>(mx)) == want, "wrapping reduce_sum");
  }
}

}  // namespace

void check_arithmetic() {
  float_arithmetic<float>();
  float_arithmetic<double>();
  int_arithmetic<int32_t>();
  int_arithmetic<int64_t>();
}

void check_compare_select() {
  comparisons<float>();
  comparisons<double>();
  comparisons<int32_t>();
  comparisons<int64_t>();
}

void check_conversions() {
  conversions_from<float>();
  conversions_from<double>();
  conversions_from<int32_t>();
  conversions_from<int64_t>();
  // Hand-computed corners of float -> int (PyTorch leaves them unspecified; ours saturate).
  CHECK(stax_rt::cast<int32_t>(V<float>(3e9f)).lane(0) == std::numeric_limits<int32_t>::max(), "3e9f -> int32");
  CHECK(stax_rt::cast<int32_t>(V<float>(-3e9f)).lane(W - 1) == std::numeric_limits<int32_t>::min(), "-3e9f -> int32");
  CHECK(stax_rt::cast<int32_t>(V<double>(stax_rt::nan<double>())).lane(0) == 0, "nan -> int32");
  CHECK(stax_rt::cast<int64_t>(V<float>(-2.75f)).lane(0) == -2, "-2.75f -> int64");
  CHECK(stax_rt::cast<int64_t>(V<double>(1e19)).lane(0) == std::numeric_limits<int64_t>::max(), "1e19 -> int64");
  CHECK(stax_rt::cast<int32_t>(V<int64_t>(int64_t(1) << 32 | 5)).lane(0) == 5, "int64 -> int32 wraps");
  CHECK(stax_rt::cast<float>(V<int64_t>((int64_t(1) << 40) + 1)).lane(0) == 1099511627776.0f, "int64 -> float rounds");
}

void check_reductions() {
  reductions_of<float>();
  reductions_of<double>();
  reductions_of<int32_t>();
  reductions_of<int64_t>();
}

}  // namespace vec_checks
