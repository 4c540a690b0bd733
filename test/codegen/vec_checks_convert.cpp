// Vector layer: conversions between every pair of dtypes (bool included) and the horizontal
// reductions, lane by lane against the scalar path on the edge values of vec_checks.h in every
// lane position; reductions of rows with tails, as kernels run them.
#include "vec_checks.h"

namespace vec_checks {

namespace {

// cast<To> of every edge value of From, side by side and among ordinary values, in every lane;
// through bool and back.
template <typename To, typename From> void conversion() {
  const int tol = std::is_floating_point_v<To> && !std::is_same_v<To, From> ? kValue : kBits;
  Items<From> items(1);
  for (int gap = 0; gap <= 1; ++gap) {
    Layout<From> in(items.v, 1, items.count, W, gap);
    for (int i = 0; i < in.n; i += W) {
      const int k = in.n - i < W ? in.n - i : W;
      const V<From> x = V<From>::loadu(in.x[0] + i, k);
      const V<To> y = stax_rt::cast<To>(x);
      const M b = stax_rt::cast<bool>(x);
      const V<To> back = stax_rt::cast<To>(b);
      for (int l = 0; l < k; ++l) {
        const From v = in.x[0][i + l];
        const To want = stax_rt::cast<To>(v);
        CHECK(agree(y.lane(l), want, tol), "cast %s -> %s (lane %d), want %s", show(v).s, show(y.lane(l)).s, l,
              show(want).s);
        CHECK(b.lane(l) == stax_rt::cast<bool>(v), "cast to bool of %s (lane %d)", show(v).s, l);
        CHECK(same_bits(back.lane(l), b.lane(l) ? To(1) : To(0)), "cast from bool (lane %d)", l);
      }
    }
  }
}

// The same on every edge value as a constant (see constant_and_run).
template <typename To, typename From> struct Casts {
  static constexpr int tol = std::is_floating_point_v<To> && !std::is_same_v<To, From> ? kValue : kBits;
  static constexpr auto vector = +[](V<From> v) { return stax_rt::cast<To>(v); };
  static constexpr auto scalar = +[](From v) { return stax_rt::cast<To>(v); };
  static constexpr auto vector_bool = +[](V<From> v) { return stax_rt::cast<bool>(v); };
  static constexpr auto scalar_bool = +[](From v) { return stax_rt::cast<bool>(v); };
};
template <typename To, typename From> void constant_conversions() {
  using C = Casts<To, From>;
  each_constant<From>([](auto at) STAX_CHECK_ALWAYS_INLINE {
    constexpr From x = edge_table<From>()[at];
    constant_and_run("cast", x, C::vector, C::scalar, C::tol);
    constant_and_run("cast<bool>", x, C::vector_bool, C::scalar_bool, kBits);
  });
}

template <typename From> void conversions_from() {
  conversion<float, From>();
  conversion<double, From>();
  conversion<int32_t, From>();
  conversion<int64_t, From>();
  constant_conversions<float, From>();
  constant_conversions<double, From>();
  constant_conversions<int32_t, From>();
  constant_conversions<int64_t, From>();
}

// The scalar path's own answers at the edges of the conversions (so that the comparison above
// compares with the intended values): truncation toward zero, saturation on both sides, NaN to
// 0, rounding to nearest even, overflow to infinity. Each is converted twice: as a constant the
// compiler sees (always inlined: it folds the conversion itself, with its own idea of the
// instruction) and as a value read at run time (the instruction runs).
template <typename To, typename From> __attribute__((always_inline)) inline void corner(From x, To want) {
  volatile From hidden = x;
  const From y = hidden;
  const To folded = stax_rt::cast<To>(V<From>(x)).lane(W - 1), run = stax_rt::cast<To>(V<From>(y)).lane(0);
  const To scalar = stax_rt::cast<To>(y);
  CHECK(same_bits(scalar, want) && same_bits(folded, want) && same_bits(run, want),
        "cast %s: scalar %s, vector %s (a constant), %s (at run time), want %s", show(x).s, show(scalar).s,
        show(folded).s, show(run).s, show(want).s);
}

void conversion_corners() {
  using I32 = std::numeric_limits<int32_t>;
  using I64 = std::numeric_limits<int64_t>;
  const float nanf = stax_rt::nan<float>(), inff = stax_rt::inf<float>();
  const double nan = stax_rt::nan<double>(), inf = stax_rt::inf<double>();
  corner<int32_t>(3e9f, I32::max());
  corner<int32_t>(-3e9f, I32::min());
  corner<int32_t>(2147483520.0f, 2147483520);
  corner<int32_t>(2147483648.0f, I32::max());
  corner<int32_t>(-2147483648.0f, I32::min());
  corner<int32_t>(-2147483904.0f, I32::min());
  corner<int32_t>(-0.0f, 0);
  corner<int32_t>(-2.75f, -2);
  corner<int32_t>(nanf, 0);
  corner<int32_t>(-inff, I32::min());
  corner<int32_t>(2147483647.75, I32::max());
  corner<int32_t>(-2147483648.75, I32::min());
  corner<int32_t>(-nan, 0);
  corner<int64_t>(1e19, I64::max());
  corner<int64_t>(-1e19, I64::min());
  corner<int64_t>(0x1.fffffffffffffp62, int64_t(0x7ffffffffffffc00));
  corner<int64_t>(0x1p63, I64::max());
  corner<int64_t>(0x1.fffffep62f, int64_t(0x7fffff8000000000));
  corner<int64_t>(0x1p63f, I64::max());
  corner<int64_t>(-0x1p63f, I64::min());
  corner<int64_t>(-2.75f, int64_t(-2));
  corner<int64_t>(inf, I64::max());
  corner<int64_t>(nan, int64_t(0));
  corner<int32_t>(int64_t(1) << 32 | 5, 5);
  corner<int32_t>(int64_t(0x80000000), I32::min());
  corner<float>((int64_t(1) << 40) + 1, 1099511627776.0f);
  corner<float>((int64_t(1) << 24) + 1, 16777216.0f);
  corner<float>((int64_t(1) << 24) + 3, 16777220.0f);
  corner<float>(I64::max(), 0x1p63f);
  corner<float>(2147483584, 2147483648.0f);
  corner<double>((int64_t(1) << 53) + 1, 0x1p53);
  corner<double>(I64::max() - 511, 0x1p63);
  corner<double>(I64::max() - 512, 0x1.fffffffffffffp62);
  corner<double>(I64::min(), -0x1p63);
  corner<float>(0x1.fffffefffffffp127, 0x1.fffffep127f);
  corner<float>(0x1.ffffffp127, inff);
  corner<float>(-1e300, -inff);
  corner<float>(0x1p-150, 0.0f);
  corner<float>(-0x1p-150, -0.0f);
  corner<float>(0x1.0000000000001p-150, 0x1p-149f);
  corner<float>(0x1.8p-149, 0x1p-148f);
  corner<float>(0x1.000001p0, 1.0f);
  corner<float>(0x1.0000010000001p0, 0x1.000002p0f);
}

// reduce_sum in the layer's fixed order, halving: lanes i and i + W/2 first, then i and i + W/4
// of those sums, ... (for AVX2: ((l0+l4)+(l2+l6)) + ((l1+l5)+(l3+l7))). reduce_prod, reduce_max
// and reduce_min fold lanes 0..W-1 in order with the scalar operation.
template <typename T> T halving_sum(const T* lanes) {
  T t[16];
  for (int i = 0; i < W; ++i) t[i] = lanes[i];
  for (int h = W / 2; h >= 1; h /= 2)
    for (int i = 0; i < h; ++i) t[i] = stax_rt::add(t[i], t[i + h]);
  return t[0];
}

template <typename T> void lane_reductions() {
  Items<T> items(1);
  const int tol = std::is_floating_point_v<T> ? kValue : kBits;
  for (int gap = 0; gap <= 2; ++gap) {  // vectors of edge values only, and mixed with ordinary ones
    Layout<T> in(items.v, 1, items.count, W, gap);
    for (int i = 0; i + W <= in.n; i += W) {
      const T* l = in.x[0] + i;
      const V<T> v = V<T>::loadu(l);
      T prod = l[0], mx = l[0], mn = l[0];
      for (int k = 1; k < W; ++k) {
        prod = stax_rt::mul(prod, l[k]);
        mx = stax_rt::maximum(mx, l[k]);
        mn = stax_rt::minimum(mn, l[k]);
      }
      const T sum = halving_sum(l);
      CHECK(agree(stax_rt::reduce_sum(v), sum, tol), "reduce_sum at %d: %s, want %s", i, show(stax_rt::reduce_sum(v)).s,
            show(sum).s);
      CHECK(agree(stax_rt::reduce_prod(v), prod, tol), "reduce_prod at %d: %s, want %s", i,
            show(stax_rt::reduce_prod(v)).s, show(prod).s);
      CHECK(agree(stax_rt::reduce_max(v), mx, kBits), "reduce_max at %d: %s, want %s", i, show(stax_rt::reduce_max(v)).s,
            show(mx).s);
      CHECK(agree(stax_rt::reduce_min(v), mn, kBits), "reduce_min at %d: %s, want %s", i, show(stax_rt::reduce_min(v)).s,
            show(mn).s);
    }
  }
}

// reduce_max/min of floats where the order of the lanes decides the bits, and where it does not
// (AVX2 and AVX-512 reduce by a tree when no lane is NaN and the extreme is not zero): every pair
// of lanes p != q holding -0 and +0 as the extremes (the first zero lane's sign must win), two
// NaNs of different signs and payloads (the first NaN lane's), and one extreme among ordinary
// values (+-7.5, a subnormal, an infinity), against the scalar fold over the lanes.
template <typename T> void ordered_extremes() {
  using Bits = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;
  auto from_bits = [](Bits b) { T t; std::memcpy(&t, &b, sizeof t); return t; };
  const T nan_a = from_bits(sizeof(T) == 4 ? Bits(0x7fc00123u) : Bits(0x7ff8000000000123ull));
  const T nan_b = from_bits(sizeof(T) == 4 ? Bits(0xffc00456u) : Bits(0xfff8000000000456ull));
  const T lone[] = {T(7.5), T(-7.5), std::numeric_limits<T>::denorm_min(), -std::numeric_limits<T>::denorm_min(),
                    stax_rt::inf<T>(), -stax_rt::inf<T>()};
  auto check = [&](const T* l, const char* what, int p, int q) {
    T mx = l[0], mn = l[0];
    for (int k = 1; k < W; ++k) mx = stax_rt::maximum(mx, l[k]), mn = stax_rt::minimum(mn, l[k]);
    const V<T> v = V<T>::loadu(l);
    CHECK(agree(stax_rt::reduce_max(v), mx, kBits), "reduce_max, %s at %d and %d: %s, want %s", what, p, q,
          show(stax_rt::reduce_max(v)).s, show(mx).s);
    CHECK(agree(stax_rt::reduce_min(v), mn, kBits), "reduce_min, %s at %d and %d: %s, want %s", what, p, q,
          show(stax_rt::reduce_min(v)).s, show(mn).s);
  };
  T l[16];
  for (int p = 0; p < W; ++p) {
    for (int q = 0; q < W; ++q) {
      if (p == q) continue;
      for (T back : {T(-1), T(1)}) {  // zeros the maximum (among -1s) or the minimum (among 1s)
        for (int k = 0; k < W; ++k) l[k] = back;
        l[p] = T(-0.0), l[q] = T(0.0);
        check(l, "-0 and +0", p, q);
      }
      for (int k = 0; k < W; ++k) l[k] = ordinary<T>(k);
      l[p] = nan_a, l[q] = nan_b;
      check(l, "two NaNs", p, q);
    }
    for (T x : lone) {
      for (int k = 0; k < W; ++k) l[k] = ordinary<T>(k + p);
      l[p] = x;
      check(l, "one extreme", p, p);
    }
  }
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
  CHECK(same_value(stax_rt::reduce_sum(sum), want_sum), "sum of %d: %.17g, want %.17g", n,
        double(stax_rt::reduce_sum(sum)), double(want_sum));
  CHECK(same_value(stax_rt::reduce_prod(prod), want_prod), "prod of signs of %d", n);
  CHECK(same_value(stax_rt::reduce_max(mx), want_max), "max of %d: %.17g, want %.17g", n,
        double(stax_rt::reduce_max(mx)), double(want_max));
  CHECK(same_value(stax_rt::reduce_min(mn), want_min), "min of %d", n);
}

template <typename T> void reductions_of() {
  lane_reductions<T>();
  if constexpr (std::is_floating_point_v<T>) ordered_extremes<T>();
  Lcg rng(7);
  for (int n = 1; n <= 3 * W + 3; ++n) {
    row_reductions<T>(n, rng, false);
    if constexpr (std::is_floating_point_v<T>) row_reductions<T>(n, rng, true);
  }
}

}  // namespace

void check_conversions() {
  conversions_from<float>();
  conversions_from<double>();
  conversions_from<int32_t>();
  conversions_from<int64_t>();
  conversion_corners();
}

void check_reductions() {
  reductions_of<float>();
  reductions_of<double>();
  reductions_of<int32_t>();
  reductions_of<int64_t>();
}

}  // namespace vec_checks
