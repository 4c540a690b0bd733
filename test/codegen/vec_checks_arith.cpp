// Vector layer: every elementwise operation, comparison, predicate and select of every dtype, and
// integer division with its error flag, lane by lane against the scalar path (the prelude's
// functions, or the scalar set's Vec where the prelude has none) on the edge values of
// vec_checks.h: each value, ordered pair or ordered triple of them in every lane position among
// ordinary values (Layout), compared as `agree` says. The shifts and bit casts of the SIMD sets.
#include "vec_checks.h"

namespace vec_checks {

namespace {

// The scalar set's fma: one rounding when the compiler targets FMA, else two.
template <typename T> T scalar_fma(T a, T b, T c) {
  return stax_rt::fma(stax_rt::ScalarV<T>(a), stax_rt::ScalarV<T>(b), stax_rt::ScalarV<T>(c)).v;
}

// Every triple once (not in every lane: each edge value still meets every lane).
template <typename T, std::size_t N> void run(const Ternary<T> (&cases)[N]) {
  Items<T> items(3);
  Layout<T> in(items.v, 3, items.count, 1, 1);
  T* r = new T[static_cast<std::size_t>(in.n)];
  for (const Ternary<T>& c : cases) {
    apply3(c.vf, in.x[0], in.x[1], in.x[2], r, in.n);
    for (int i = 0; i < in.n; ++i) {
      const T x = in.x[0][i], y = in.x[1][i], z = in.x[2][i], want = c.sf(x, y, z);
      CHECK(agree(r[i], want, c.tol), "%s(%s, %s, %s) = %s, want %s", c.name, show(x).s, show(y).s, show(z).s,
            show(r[i]).s, show(want).s);
    }
  }
  delete[] r;
}

// Mask results, stored as bools (a tail through Mask::storeu(p, n)).
template <typename T, std::size_t N> void run(const Compare<T> (&cases)[N]) {
  Items<T> items(2);
  Layout<T> in(items.v, 2, items.count, W, 1);
  bool* r = new bool[static_cast<std::size_t>(in.n)];
  for (const Compare<T>& c : cases) {
    for (int i = 0; i < in.n; i += W) {
      const int k = in.n - i < W ? in.n - i : W;
      c.vf(V<T>::loadu(in.x[0] + i, k), V<T>::loadu(in.x[1] + i, k)).storeu(r + i, k);
    }
    for (int i = 0; i < in.n; ++i) {
      const T x = in.x[0][i], y = in.x[1][i];
      CHECK(r[i] == c.sf(x, y), "%s(%s, %s) is %d (lane %d)", c.name, show(x).s, show(y).s, int(r[i]), i % W);
    }
  }
  delete[] r;
}

template <typename T, std::size_t N> void run(const Predicate<T> (&cases)[N]) {
  Items<T> items(1);
  Layout<T> in(items.v, 1, items.count, W, 1);
  bool* r = new bool[static_cast<std::size_t>(in.n)];
  for (const Predicate<T>& c : cases) {
    for (int i = 0; i < in.n; i += W) {
      const int k = in.n - i < W ? in.n - i : W;
      c.vf(V<T>::loadu(in.x[0] + i, k)).storeu(r + i, k);
    }
    for (int i = 0; i < in.n; ++i)
      CHECK(r[i] == c.sf(in.x[0][i]), "%s(%s) is %d (lane %d)", c.name, show(in.x[0][i]).s, int(r[i]), i % W);
  }
  delete[] r;
}

// The unary operations of a table with a constant operand (see constant_and_run; the table and
// the index are constants, so the call is inlined).
template <typename T, const auto& Cases> void run_constants() {
  each_index<static_cast<int>(sizeof Cases / sizeof Cases[0])>([](auto c) {
    each_constant<T>([](auto at) STAX_CHECK_ALWAYS_INLINE {
      constexpr T x = edge_table<T>()[at];
      constexpr const Unary<T>& u = Cases[decltype(c)::value];
      constexpr V<T> (*vf)(V<T>) = u.vf;
      constant_and_run(u.name, x, vf, u.sf, u.tol);
    });
  });
}

// ---- the tables: one entry an operation, the vector form and the scalar path's ----
namespace rt = stax_rt;

template <typename T> constexpr Unary<T> kFloatUnary[] = {
    {"-x", [](V<T> x) { return -x; }, [](T x) { return -x; }, kBits},
    {"neg", [](V<T> x) { return rt::neg(x); }, [](T x) { return rt::neg(x); }, kBits},
    {"abs", [](V<T> x) { return rt::abs(x); }, [](T x) { return rt::abs(x); }, kBits},
    {"relu", [](V<T> x) { return rt::relu(x); }, [](T x) { return rt::relu(x); }, kBits},
    {"sign", [](V<T> x) { return rt::sign(x); }, [](T x) { return rt::sign(x); }, kBits},
    {"floor", [](V<T> x) { return rt::floor(x); }, [](T x) { return rt::floor(x); }, kValue},
    {"ceil", [](V<T> x) { return rt::ceil(x); }, [](T x) { return rt::ceil(x); }, kValue},
    {"trunc", [](V<T> x) { return rt::trunc(x); }, [](T x) { return rt::trunc(x); }, kValue},
    {"round", [](V<T> x) { return rt::round(x); }, [](T x) { return rt::round(x); }, kValue},
    {"sqrt", [](V<T> x) { return rt::sqrt(x); }, [](T x) { return rt::sqrt(x); }, kValue},
    {"rsqrt", [](V<T> x) { return rt::rsqrt(x); }, [](T x) { return rt::rsqrt(x); }, kValue},
    {"reciprocal", [](V<T> x) { return rt::reciprocal(x); }, [](T x) { return rt::reciprocal(x); }, kValue},
};

template <typename T> constexpr Binary<T> kFloatBinary[] = {
    {"+", [](V<T> x, V<T> y) { return x + y; }, [](T x, T y) { return rt::add(x, y); }, kValue},
    {"-", [](V<T> x, V<T> y) { return x - y; }, [](T x, T y) { return rt::sub(x, y); }, kValue},
    {"*", [](V<T> x, V<T> y) { return x * y; }, [](T x, T y) { return rt::mul(x, y); }, kValue},
    {"/", [](V<T> x, V<T> y) { return x / y; }, [](T x, T y) { return x / y; }, kValue},
    {"add", [](V<T> x, V<T> y) { return rt::add(x, y); }, [](T x, T y) { return rt::add(x, y); }, kValue},
    {"sub", [](V<T> x, V<T> y) { return rt::sub(x, y); }, [](T x, T y) { return rt::sub(x, y); }, kValue},
    {"mul", [](V<T> x, V<T> y) { return rt::mul(x, y); }, [](T x, T y) { return rt::mul(x, y); }, kValue},
    {"+=", [](V<T> x, V<T> y) { return x += y; }, [](T x, T y) { return x + y; }, kValue},
    {"-=", [](V<T> x, V<T> y) { return x -= y; }, [](T x, T y) { return x - y; }, kValue},
    {"*=", [](V<T> x, V<T> y) { return x *= y; }, [](T x, T y) { return x * y; }, kValue},
    {"/=", [](V<T> x, V<T> y) { return x /= y; }, [](T x, T y) { return x / y; }, kValue},
    {"maximum", [](V<T> x, V<T> y) { return rt::maximum(x, y); }, [](T x, T y) { return rt::maximum(x, y); }, kBits},
    {"minimum", [](V<T> x, V<T> y) { return rt::minimum(x, y); }, [](T x, T y) { return rt::minimum(x, y); }, kBits},
    {"clamp_min", [](V<T> x, V<T> y) { return rt::clamp_min(x, y); }, [](T x, T y) { return rt::clamp_min(x, y); }, kBits},
    {"clamp_max", [](V<T> x, V<T> y) { return rt::clamp_max(x, y); }, [](T x, T y) { return rt::clamp_max(x, y); }, kBits},
    {"where(x < y, x, y)", [](V<T> x, V<T> y) { return rt::where(x < y, x, y); }, [](T x, T y) { return x < y ? x : y; },
     kBits},
    {"where(isnan(x), y, x)", [](V<T> x, V<T> y) { return rt::where(rt::isnan(x), y, x); },
     [](T x, T y) { return rt::isnan(x) ? y : x; }, kBits},
    {"leaky_relu", [](V<T> x, V<T> y) { return rt::leaky_relu(x, y); }, [](T x, T y) { return rt::leaky_relu(x, y); },
     kValue},
    {"div_trunc", [](V<T> x, V<T> y) { return rt::div_trunc(x, y); }, [](T x, T y) { return rt::div_trunc(x, y); }, kValue},
    {"div_floor", [](V<T> x, V<T> y) { return rt::div_floor(x, y); }, [](T x, T y) { return rt::div_floor(x, y); }, kValue},
    {"remainder", [](V<T> x, V<T> y) { return rt::remainder(x, y); }, [](T x, T y) { return rt::remainder(x, y); }, kValue},
};

template <typename T> constexpr Ternary<T> kFloatTernary[] = {
    {"fma", [](V<T> x, V<T> y, V<T> z) { return rt::fma(x, y, z); }, scalar_fma<T>, kValue},
    {"clamp", [](V<T> x, V<T> y, V<T> z) { return rt::clamp(x, y, z); }, [](T x, T y, T z) { return rt::clamp(x, y, z); },
     kBits},
};

template <typename T> constexpr Unary<T> kIntUnary[] = {
    {"-x", [](V<T> x) { return -x; }, [](T x) { return rt::neg(x); }, kBits},
    {"neg", [](V<T> x) { return rt::neg(x); }, [](T x) { return rt::neg(x); }, kBits},
    {"~x", [](V<T> x) { return ~x; }, [](T x) { return rt::bitwise_not(x); }, kBits},
    {"bitwise_not", [](V<T> x) { return rt::bitwise_not(x); }, [](T x) { return rt::bitwise_not(x); }, kBits},
    {"abs", [](V<T> x) { return rt::abs(x); }, [](T x) { return rt::abs(x); }, kBits},
    {"relu", [](V<T> x) { return rt::relu(x); }, [](T x) { return rt::relu(x); }, kBits},
    {"sign", [](V<T> x) { return rt::sign(x); }, [](T x) { return rt::sign(x); }, kBits},
    {"floor", [](V<T> x) { return rt::floor(x); }, [](T x) { return rt::floor(x); }, kBits},
    {"ceil", [](V<T> x) { return rt::ceil(x); }, [](T x) { return rt::ceil(x); }, kBits},
    {"trunc", [](V<T> x) { return rt::trunc(x); }, [](T x) { return rt::trunc(x); }, kBits},
    {"round", [](V<T> x) { return rt::round(x); }, [](T x) { return rt::round(x); }, kBits},
};

template <typename T> constexpr Binary<T> kIntBinary[] = {
    {"+", [](V<T> x, V<T> y) { return x + y; }, [](T x, T y) { return rt::add(x, y); }, kBits},
    {"-", [](V<T> x, V<T> y) { return x - y; }, [](T x, T y) { return rt::sub(x, y); }, kBits},
    {"*", [](V<T> x, V<T> y) { return x * y; }, [](T x, T y) { return rt::mul(x, y); }, kBits},
    {"add", [](V<T> x, V<T> y) { return rt::add(x, y); }, [](T x, T y) { return rt::add(x, y); }, kBits},
    {"sub", [](V<T> x, V<T> y) { return rt::sub(x, y); }, [](T x, T y) { return rt::sub(x, y); }, kBits},
    {"mul", [](V<T> x, V<T> y) { return rt::mul(x, y); }, [](T x, T y) { return rt::mul(x, y); }, kBits},
    {"+=", [](V<T> x, V<T> y) { return x += y; }, [](T x, T y) { return rt::add(x, y); }, kBits},
    {"-=", [](V<T> x, V<T> y) { return x -= y; }, [](T x, T y) { return rt::sub(x, y); }, kBits},
    {"*=", [](V<T> x, V<T> y) { return x *= y; }, [](T x, T y) { return rt::mul(x, y); }, kBits},
    {"&", [](V<T> x, V<T> y) { return x & y; }, [](T x, T y) { return static_cast<T>(x & y); }, kBits},
    {"|", [](V<T> x, V<T> y) { return x | y; }, [](T x, T y) { return static_cast<T>(x | y); }, kBits},
    {"^", [](V<T> x, V<T> y) { return x ^ y; }, [](T x, T y) { return static_cast<T>(x ^ y); }, kBits},
    {"maximum", [](V<T> x, V<T> y) { return rt::maximum(x, y); }, [](T x, T y) { return rt::maximum(x, y); }, kBits},
    {"minimum", [](V<T> x, V<T> y) { return rt::minimum(x, y); }, [](T x, T y) { return rt::minimum(x, y); }, kBits},
    {"clamp_min", [](V<T> x, V<T> y) { return rt::clamp_min(x, y); }, [](T x, T y) { return rt::clamp_min(x, y); }, kBits},
    {"clamp_max", [](V<T> x, V<T> y) { return rt::clamp_max(x, y); }, [](T x, T y) { return rt::clamp_max(x, y); }, kBits},
    {"where(x < y, x, y)", [](V<T> x, V<T> y) { return rt::where(x < y, x, y); }, [](T x, T y) { return x < y ? x : y; },
     kBits},
    {"pow", [](V<T> x, V<T> y) { return rt::pow(x, y); }, [](T x, T y) { return rt::pow(x, y); }, kBits},
};

template <typename T> constexpr Ternary<T> kIntTernary[] = {
    {"clamp", [](V<T> x, V<T> y, V<T> z) { return rt::clamp(x, y, z); }, [](T x, T y, T z) { return rt::clamp(x, y, z); },
     kBits},
};

// maximum and minimum with a constant on either side (for the sweep of constants).
template <typename T> constexpr Unary<T> kWithOne[] = {
    {"maximum(x, 1)", [](V<T> x) { return rt::maximum(x, V<T>(T(1))); }, [](T x) { return rt::maximum(x, T(1)); }, kBits},
    {"minimum(1, x)", [](V<T> x) { return rt::minimum(V<T>(T(1)), x); }, [](T x) { return rt::minimum(T(1), x); }, kBits},
};

template <typename T> constexpr Compare<T> kCompare[] = {
    {"==", [](V<T> x, V<T> y) { return x == y; }, [](T x, T y) { return rt::eq(x, y); }},
    {"!=", [](V<T> x, V<T> y) { return x != y; }, [](T x, T y) { return rt::ne(x, y); }},
    {"<", [](V<T> x, V<T> y) { return x < y; }, [](T x, T y) { return rt::lt(x, y); }},
    {"<=", [](V<T> x, V<T> y) { return x <= y; }, [](T x, T y) { return rt::le(x, y); }},
    {">", [](V<T> x, V<T> y) { return x > y; }, [](T x, T y) { return rt::gt(x, y); }},
    {">=", [](V<T> x, V<T> y) { return x >= y; }, [](T x, T y) { return rt::ge(x, y); }},
};

template <typename T> constexpr Predicate<T> kPredicate[] = {
    {"isnan", [](V<T> x) { return rt::isnan(x); }, [](T x) { return rt::isnan(x); }},
    {"isinf", [](V<T> x) { return rt::isinf(x); }, [](T x) { return rt::isinf(x); }},
    {"isfinite", [](V<T> x) { return rt::isfinite(x); }, [](T x) { return rt::isfinite(x); }},
    {"truthy", [](V<T> x) { return rt::truthy(x); }, [](T x) { return rt::truthy(x); }},
    {"cast<bool>", [](V<T> x) { return rt::cast<bool>(x); }, [](T x) { return rt::cast<bool>(x); }},
};

template <typename T> void elementwise_of() {
  if constexpr (std::is_floating_point_v<T>) {
    run(kFloatUnary<T>);
    run_constants<T, kFloatUnary<T>>();
    run_constants<T, kWithOne<T>>();
    run(kFloatBinary<T>);
    run(kFloatTernary<T>);
  } else {
    run(kIntUnary<T>);
    run_constants<T, kIntUnary<T>>();
    run_constants<T, kWithOne<T>>();
    run(kIntBinary<T>);
    run(kIntTernary<T>);
  }
}

// div_trunc, div_floor and remainder with the error flag (floats never set it), per vector and
// per tail: the lanes agree with the scalar functions, and the flag is set exactly when one of
// the first n lanes (n = W, or the tail's length) divides by zero.
template <typename T> void division_of() {
  using VT = V<T>;
  namespace rt = stax_rt;
  struct Case {
    const char* name;
    VT (*vf)(VT, VT, int&, int);
    T (*sf)(T, T, int&);
  };
  const Case cases[] = {
      {"div_trunc", [](VT x, VT y, int& e, int n) { return rt::div_trunc(x, y, e, n); },
       [](T x, T y, int& e) { return rt::div_trunc(x, y, e); }},
      {"div_floor", [](VT x, VT y, int& e, int n) { return rt::div_floor(x, y, e, n); },
       [](T x, T y, int& e) { return rt::div_floor(x, y, e); }},
      {"remainder", [](VT x, VT y, int& e, int n) { return rt::remainder(x, y, e, n); },
       [](T x, T y, int& e) { return rt::remainder(x, y, e); }},
  };
  const int tol = std::is_floating_point_v<T> ? kValue : kBits;
  Items<T> items(2);
  Layout<T> in(items.v, 2, items.count, W, 1);
  for (const Case& c : cases) {
    for (int i = 0; i < in.n; i += W) {
      const int k = in.n - i < W ? in.n - i : W;
      int err = 0, want_err = 0;
      const VT r = c.vf(VT::loadu(in.x[0] + i, k), VT::loadu(in.x[1] + i, k), err, k);
      for (int l = 0; l < k; ++l) {
        const T x = in.x[0][i + l], y = in.x[1][i + l], want = c.sf(x, y, want_err);
        CHECK(agree(r.lane(l), want, tol), "%s(%s, %s) = %s, want %s (lane %d)", c.name, show(x).s, show(y).s,
              show(r.lane(l)).s, show(want).s, l);
      }
      CHECK(err == want_err, "%s: error flag %d, want %d (%d lanes from element %d)", c.name, err, want_err, k, i);
    }
  }
}

// shift_left(x, n) and shift_right_arith(x, n) of int32 lanes (the SIMD sets, for the inline
// float32 functions): for 0 <= n < 32 as x << n (wrapping) and x >> n (arithmetic); any other
// count, negative or >= 32, as a shift by at least the width: 0, and the sign in every bit.
// Counts read at run time and written as constants (which the compiler folds itself).
int32_t shl_ref(int32_t x, int n) {
  return static_cast<unsigned>(n) < 32u ? static_cast<int32_t>(static_cast<uint32_t>(x) << n) : 0;
}
int32_t sar_ref(int32_t x, int n) { return static_cast<unsigned>(n) < 32u ? x >> n : (x < 0 ? -1 : 0); }

// (Templates over the set, the calls found by argument-dependent lookup: the scalar set has none
// of these functions.)
template <int N, typename I> void constant_shifts(const stax_rt::Vec<int32_t, I>& x, const int32_t* in) {
  const stax_rt::Vec<int32_t, I> l = shift_left(x, N), r = shift_right_arith(x, N);
  for (int i = 0; i < W; ++i)
    CHECK(l.lane(i) == shl_ref(in[i], N) && r.lane(i) == sar_ref(in[i], N), "shifts of %d by the constant %d", in[i], N);
}

template <typename I> void shifts_and_bit_casts() {
  using VI = stax_rt::Vec<int32_t, I>;
  using VF = stax_rt::Vec<float, I>;
  Items<int32_t> items(1);
  Layout<int32_t> in(items.v, 1, items.count, W, 1);
  volatile int counts[] = {0, 1, 2, 5, 23, 30, 31, 32, 33, 63, 64, 100, 255, 256, -1, -2, -31, -32, -33,
                           std::numeric_limits<int>::min(), std::numeric_limits<int>::max()};
  for (const volatile int& count : counts) {
    const int n = count;
    for (int i = 0; i + W <= in.n; i += W) {
      const VI x = VI::loadu(in.x[0] + i);
      const VI l = shift_left(x, n), r = shift_right_arith(x, n);
      for (int k = 0; k < W; ++k) {
        const int32_t v = in.x[0][i + k];
        CHECK(l.lane(k) == shl_ref(v, n), "shift_left(%d, %d) = %d", v, n, l.lane(k));
        CHECK(r.lane(k) == sar_ref(v, n), "shift_right_arith(%d, %d) = %d", v, n, r.lane(k));
      }
    }
  }
  const VI x = VI::loadu(in.x[0]);
  constant_shifts<0>(x, in.x[0]);
  constant_shifts<23>(x, in.x[0]);
  constant_shifts<31>(x, in.x[0]);
  constant_shifts<32>(x, in.x[0]);
  constant_shifts<-1>(x, in.x[0]);
  // Bit casts move the bits, signalling NaNs included.
  Items<float> floats(1);
  Layout<float> f(floats.v, 1, floats.count, W, 1);
  for (int i = 0; i + W <= f.n; i += W) {
    const VI b = bit_cast_i32(VF::loadu(f.x[0] + i));
    const VF back = bit_cast_f32(b);
    for (int k = 0; k < W; ++k) {
      CHECK(static_cast<uint32_t>(b.lane(k)) == bits_of(f.x[0][i + k]) && same_bits(back.lane(k), f.x[0][i + k]),
            "bit casts of %s", show(f.x[0][i + k]).s);
    }
  }
}

// The floating-point environment the layer assumes (the default one: round to nearest even,
// subnormal results kept, subnormal operands used): the relative checks above would pass under
// FTZ/DAZ too, so these are absolute.
template <typename T> void subnormals_of() {
  volatile T hidden_min = std::numeric_limits<T>::min(), hidden_tiny = std::numeric_limits<T>::denorm_min();
  const V<T> min(hidden_min), tiny(hidden_tiny);
  CHECK(same_bits((min * V<T>(T(0.5))).lane(0), std::numeric_limits<T>::min() / 2), "a subnormal product is kept");
  CHECK(same_bits((tiny + tiny).lane(W - 1), std::numeric_limits<T>::denorm_min() * 2), "subnormal operands count");
  CHECK(stax_rt::any(tiny > V<T>(T(0))) && same_bits(stax_rt::sqrt(tiny * tiny).lane(0), T(0)), "tiny > 0, tiny^2 = 0");
  CHECK(same_bits(stax_rt::round(V<T>(T(2.5)) + V<T>(hidden_tiny)).lane(0), T(2)), "round: 2.5 + tiny rounds to 2.5, then to even");
}

}  // namespace

void check_arithmetic() {
  elementwise_of<float>();
  elementwise_of<double>();
  elementwise_of<int32_t>();
  elementwise_of<int64_t>();
  division_of<int32_t>();
  division_of<int64_t>();
  division_of<float>();
  division_of<double>();
  subnormals_of<float>();
  subnormals_of<double>();
  if constexpr (stax_rt::is_simd<Isa>) shifts_and_bit_casts<Isa>();
}

void check_compare_select() {
  run(kCompare<float>);
  run(kCompare<double>);
  run(kCompare<int32_t>);
  run(kCompare<int64_t>);
  run(kPredicate<float>);
  run(kPredicate<double>);
  run(kPredicate<int32_t>);
  run(kPredicate<int64_t>);
}

}  // namespace vec_checks
