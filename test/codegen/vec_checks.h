// Shared pieces of the vector-layer checks (vec_checks_*.cpp). Those files are compiled once per
// instruction set (test/codegen/CMakeLists.txt) with the set's flags and STAX_ISA_<SET> defined,
// so `V<T>` below is the pinned set's vector. They use no test framework and no standard
// container: the AVX-512 build must not run a single instruction (not even a static
// initializer or an inline template shared with the main program) before vec_test_main.cpp has
// checked that the CPU has AVX-512.
#pragma once

#include "stax_vec.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <type_traits>
#include <utility>

namespace vec_checks {

using Isa = stax_rt::IsaNative;
template <typename T> using V = stax_rt::Vec<T, Isa>;
using M = stax_rt::Mask<Isa>;
constexpr int W = Isa::width;
static_assert(W >= 1 && W <= 16, "the checks' buffers hold at most 16 lanes");

// Counters (defined in vec_test_main.cpp).
extern "C" int stax_vec_checks_run;
extern "C" int stax_vec_checks_failed;

inline bool report(bool ok, const char* file, int line, const char* what) {
  ++stax_vec_checks_run;
  if (ok) return true;
  ++stax_vec_checks_failed;
  if (stax_vec_checks_failed <= 60) std::printf("%s:%d: check failed: %s\n", file, line, what);
  return false;
}

// CHECK(cond, fmt, ...): on failure prints the condition and the formatted context.
#define CHECK(cond, ...)                                                \
  do {                                                                  \
    if (!::vec_checks::report((cond), __FILE__, __LINE__, #cond) &&     \
        ::vec_checks::stax_vec_checks_failed <= 60) {                   \
      std::printf("    ");                                              \
      std::printf(__VA_ARGS__);                                         \
      std::printf("\n");                                                \
    }                                                                   \
  } while (0)

// Bit-exact equality (NaN payloads and signed zeros included).
template <typename T> inline bool same_bits(T a, T b) { return std::memcmp(&a, &b, sizeof(T)) == 0; }

// Equal values, or both NaN.
template <typename T> inline bool same_value(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    if (a != a) return b != b;
  }
  return a == b && (!std::is_floating_point_v<T> || std::signbit(a) == std::signbit(b));
}

inline double as_double(double x) { return x; }

// ---- edge values: one table per dtype, which every elementwise check runs through ----
// Signed zeros, integral and half-integral values (rounding ties, the last fractions below 2^23 /
// 2^52), the extremes, subnormals, infinities, NaNs (quiet and signalling, both signs, with
// payloads), and the bounds of every conversion: the last values inside and the first outside
// int32 and int64, and for double the float rounding and overflow boundaries.
constexpr int kMaxEdges = 72;

template <typename T> using Bits = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;
template <typename T> inline Bits<T> bits_of(T x) {
  Bits<T> b;
  std::memcpy(&b, &x, sizeof b);
  return b;
}
template <typename T> inline T of_bits(Bits<T> b) {
  T x;
  std::memcpy(&x, &b, sizeof x);
  return x;
}

// (constexpr, so that a check can also hand them to the compiler as constants: see
// vec_checks_convert.cpp. No code runs to initialize them.)
using FloatLimits = std::numeric_limits<float>;
using DoubleLimits = std::numeric_limits<double>;
using Int32Limits = std::numeric_limits<int32_t>;
using Int64Limits = std::numeric_limits<int64_t>;

inline constexpr float kFloatEdges[] = {
    0.0f, -0.0f, 1.0f, -1.0f, 0.5f, -0.5f, 1.5f, -1.5f, 2.5f, -2.5f, 3.75f, -7.0f, 0.1f,
    0x1.fffffep-2f, -0x1.fffffep-2f,  // the float below 1/2 (round gives 0, not 1)
    0x1.000002p0f, 0x1.fffffep-1f,    // 1 + ulp, 1 - ulp/2
    8388607.5f, -8388607.5f, 8388608.0f, 16777216.0f,  // the last half-integer, 2^23, 2^24
    1e30f, -1e30f, FloatLimits::max(), FloatLimits::lowest(), FloatLimits::min(), -FloatLimits::min(),
    FloatLimits::denorm_min(), -FloatLimits::denorm_min(), 0x0.fffffep-126f, -0x0.fffffep-126f,  // the largest subnormal
    FloatLimits::infinity(), -FloatLimits::infinity(), FloatLimits::quiet_NaN(), -FloatLimits::quiet_NaN(),
    __builtin_nanf("0x12345"), __builtin_nansf("0x12345"), -__builtin_nansf("1"),  // a payload; signalling
    2147483520.0f, 2147483648.0f, -2147483648.0f, -2147483904.0f,  // around int32: last in, first out
    4294967296.0f, 0x1.fffffep62f, 0x1p63f, -0x1p63f, -0x1.000002p63f,  // around int64
};

inline constexpr double kDoubleEdges[] = {
    0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 3.75, -7.0, 0.1,
    0x1.fffffffffffffp-2, -0x1.fffffffffffffp-2, 0x1.0000000000001p0, 0x1.fffffffffffffp-1,
    4503599627370495.5, -4503599627370495.5, 4503599627370496.0, 9007199254740992.0,
    1e300, -1e300, DoubleLimits::max(), DoubleLimits::lowest(), DoubleLimits::min(), -DoubleLimits::min(),
    DoubleLimits::denorm_min(), -DoubleLimits::denorm_min(), 0x0.fffffffffffffp-1022, -0x0.fffffffffffffp-1022,
    DoubleLimits::infinity(), -DoubleLimits::infinity(), DoubleLimits::quiet_NaN(), -DoubleLimits::quiet_NaN(),
    __builtin_nan("0x12345678"), __builtin_nans("1"), -__builtin_nans("0x4000000000000"),
    2147483647.0, 2147483647.5, 2147483648.0, -2147483648.0, -2147483648.5, -2147483649.0, 4294967296.0,
    0x1.fffffffffffffp62, 0x1p63, -0x1p63, -0x1.0000000000001p63, 1e19, -1e19,
    // double -> float: FLT_MAX, the last double that rounds to it and the tie that rounds to
    // inf; float's smallest subnormal, the tie below it (rounds to 0) and one just above that;
    // ties of float rounding at 1 (to even: 1) and just above (up).
    0x1.fffffep127, 0x1.fffffefffffffp127, 0x1.ffffffp127, 0x1p-149, 0x1p-150, 0x1.0000000000001p-150,
    0x1.8p-149, 0x1.000001p0, 0x1.0000010000001p0, -0x1.000001p0,
};

inline constexpr int32_t kInt32Edges[] = {
    0, 1, -1, 2, -2, 3, -3, 7, -7, 31, 32, 33, -32, 100, 65535, 65536, -65536,
    46341, -46341,                  // squares overflow
    16777217, -16777217,            // not exact in float (a tie: rounds to even)
    2147483520, 2147483584,         // the last int exact in float below 2^31; a tie that rounds up to 2^31
    Int32Limits::max(), Int32Limits::min(), Int32Limits::max() - 1, Int32Limits::min() + 1,
    0x55555555, static_cast<int32_t>(0xaaaaaaaau), 123456789, -987654321,
};

inline constexpr int64_t kInt64Edges[] = {
    0, 1, -1, 2, -2, 3, -3, 7, -7, 63, 64, 65, -64, 4294967296LL, -4294967296LL, 4294967295LL,
    3037000500LL, -3037000500LL,    // squares overflow
    Int64Limits::max(), Int64Limits::min(), Int64Limits::max() - 1, Int64Limits::min() + 1,
    Int32Limits::max(), Int32Limits::min(), int64_t(Int32Limits::max()) + 1, int64_t(Int32Limits::min()) - 1,
    (int64_t(1) << 24) + 1, (int64_t(1) << 53) + 1, (int64_t(1) << 53) + 3, -(int64_t(1) << 53) - 1,  // ties in float, double
    Int64Limits::max() - 511, Int64Limits::max() - 512, Int64Limits::max() - 1023,  // the tie below 2^63 in double, around it
    0x5555555555555555LL, static_cast<int64_t>(0xaaaaaaaaaaaaaaaaULL), -(int64_t(1) << 62) - 3,
};

template <typename T> constexpr const auto& edge_table() {
  if constexpr (std::is_same_v<T, float>) return kFloatEdges;
  else if constexpr (std::is_same_v<T, double>) return kDoubleEdges;
  else if constexpr (std::is_same_v<T, int32_t>) return kInt32Edges;
  else return kInt64Edges;
}
template <typename T> constexpr int edge_count = static_cast<int>(sizeof edge_table<T>() / sizeof(T));
static_assert(edge_count<float> <= kMaxEdges && edge_count<double> <= kMaxEdges && edge_count<int32_t> <= kMaxEdges &&
                  edge_count<int64_t> <= kMaxEdges,
              "kMaxEdges");

template <typename T> inline int edge_values(T* out) {
  for (int i = 0; i < edge_count<T>; ++i) out[i] = edge_table<T>()[i];
  return edge_count<T>;
}

// Ordinary values to put between the edge values: small, of both signs, with fractions for floats.
template <typename T> inline T ordinary(int64_t i) {
  const int64_t k = (i * 37) % 101 - 50;
  if constexpr (std::is_floating_point_v<T>) return static_cast<T>(k) * T(0.375);
  else return static_cast<T>(k * 20 + i % 7);
}

// Operand arrays in which each of `count` items (item k is items[j][k] for operand j < arity)
// sits in every lane position, among ordinary values: `shifts` segments (W for every position,
// 1 for one), segment s starting on a vector boundary with s ordinary values, then every item
// followed by `gap` ordinary values. Every segment but the last is padded to whole vectors; the
// last ends in a tail.
template <typename T> struct Layout {
  T* x[3] = {nullptr, nullptr, nullptr};
  int n = 0;
  Layout(const T* const* items, int arity, int count, int shifts, int gap) {
    const int cap = shifts * (2 * W + count * (gap + 1));
    for (int j = 0; j < arity; ++j) x[j] = new T[static_cast<std::size_t>(cap)];
    for (int s = 0; s < shifts; ++s) {
      const int start = n;
      auto fill = [&](int upto) {
        for (; n < upto; ++n)
          for (int j = 0; j < arity; ++j) x[j][n] = ordinary<T>(3 * n + j);
      };
      fill(n + s);
      for (int k = 0; k < count; ++k) {
        for (int j = 0; j < arity; ++j) x[j][n] = items[j][k];
        ++n;
        fill(n + gap);
      }
      if (s + 1 < shifts) fill(start + (n - start + W - 1) / W * W);
    }
  }
  ~Layout() {
    for (T* p : x) delete[] p;
  }
  Layout(const Layout&) = delete;
  Layout& operator=(const Layout&) = delete;
};

// The items of an elementwise check: every edge value, every ordered pair, every ordered triple.
template <typename T> struct Items {
  T* v[3] = {nullptr, nullptr, nullptr};
  int count = 0;
  explicit Items(int arity) {
    T e[kMaxEdges];
    const int n = edge_values(e);
    count = arity == 1 ? n : arity == 2 ? n * n : n * n * n;
    for (int j = 0; j < arity; ++j) v[j] = new T[static_cast<std::size_t>(count)];
    for (int k = 0; k < count; ++k) {
      int r = k;
      for (int j = arity - 1; j >= 0; --j) v[j][k] = e[r % n], r /= n;
    }
  }
  ~Items() {
    for (T* p : v) delete[] p;
  }
  Items(const Items&) = delete;
  Items& operator=(const Items&) = delete;
};

// How a vector result must agree with the scalar one:
//   kBits   bit for bit, NaN payloads and signs included: operations that move or select bits
//           (neg, abs, maximum/minimum, where, clamp, loads and stores, integers);
//   kValue  bit for bit except that a NaN needs only be a NaN: operations that compute a float
//           (arithmetic, rounding, sqrt, float conversions), whose NaN payload C++ leaves open
//           (a compiler may swap the operands of a commutative scalar operation, and the two
//           NaN operands then give either payload);
//   k > 0   NaN exactly where the scalar result is NaN, zeros of the same sign, else at most k
//           representable values apart (infinity next to the largest finite): the
//           transcendentals, whose vector and scalar SLEEF functions each round differently.
constexpr int kBits = -1, kValue = 0;

// Position of x among the floats in order (+0 and -0 both 0).
template <typename T> inline int64_t float_rank(T x) {
  const Bits<T> b = bits_of(x), sign = Bits<T>(1) << (8 * sizeof(T) - 1);
  const int64_t m = static_cast<int64_t>(b & ~sign);
  return (b & sign) ? -m : m;
}

template <typename T> inline bool agree(T got, T want, int tol) {
  if (tol == kBits || !std::is_floating_point_v<T>) return same_bits(got, want);
  if (want != want) return got != got;
  if (got != got) return false;
  if (got == 0 && want == 0) return std::signbit(got) == std::signbit(want);
  if (tol == kValue) return same_bits(got, want);
  const int64_t d = float_rank(got) - float_rank(want);
  return (d < 0 ? -d : d) <= tol;
}

// A value for a message: its decimal and hexadecimal forms, its bits (see CHECK's arguments).
struct Shown {
  char s[96];
};
template <typename T> inline Shown show(T x) {
  Shown r;
  if constexpr (std::is_floating_point_v<T>)
    std::snprintf(r.s, sizeof r.s, "%.17g [%a, 0x%llx]", double(x), double(x), static_cast<unsigned long long>(bits_of(x)));
  else
    std::snprintf(r.s, sizeof r.s, "%lld", static_cast<long long>(x));
  return r;
}
inline Shown show(bool b) {
  Shown r;
  std::snprintf(r.s, sizeof r.s, "%s", b ? "true" : "false");
  return r;
}

// A small deterministic generator (no <random>: see the top of this file).
struct Lcg {
  uint64_t s;
  explicit Lcg(uint64_t seed) : s(seed * 6364136223846793005ULL + 1442695040888963407ULL) {}
  uint64_t next() {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    return s >> 11;
  }
  double uniform(double lo, double hi) { return lo + (hi - lo) * static_cast<double>(next()) / 9007199254740992.0; }
};

// Calls f(V) over in[0, n) in steps of W, the last step a tail through loadu(p, k)/storeu(p, k).
template <typename T, typename F> inline void apply1(F f, const T* in, T* out, int n) {
  int i = 0;
  for (; i + W <= n; i += W) f(V<T>::loadu(in + i)).storeu(out + i);
  if (i < n) f(V<T>::loadu(in + i, n - i)).storeu(out + i, n - i);
}
template <typename T, typename F> inline void apply2(F f, const T* a, const T* b, T* out, int n) {
  int i = 0;
  for (; i + W <= n; i += W) f(V<T>::loadu(a + i), V<T>::loadu(b + i)).storeu(out + i);
  if (i < n) f(V<T>::loadu(a + i, n - i), V<T>::loadu(b + i, n - i)).storeu(out + i, n - i);
}
template <typename T, typename F> inline void apply3(F f, const T* a, const T* b, const T* c, T* out, int n) {
  int i = 0;
  for (; i + W <= n; i += W) f(V<T>::loadu(a + i), V<T>::loadu(b + i), V<T>::loadu(c + i)).storeu(out + i);
  if (i < n) f(V<T>::loadu(a + i, n - i), V<T>::loadu(b + i, n - i), V<T>::loadu(c + i, n - i)).storeu(out + i, n - i);
}

// ---- tables of operations: the vector form, the scalar path's, how they must agree ----
template <typename T> struct Unary {
  const char* name;
  V<T> (*vf)(V<T>);
  T (*sf)(T);
  int tol;
};
template <typename T> struct Binary {
  const char* name;
  V<T> (*vf)(V<T>, V<T>);
  T (*sf)(T, T);
  int tol;
};
template <typename T> struct Ternary {
  const char* name;
  V<T> (*vf)(V<T>, V<T>, V<T>);
  T (*sf)(T, T, T);
  int tol;
};
template <typename T> struct Compare {
  const char* name;
  M (*vf)(V<T>, V<T>);
  bool (*sf)(T, T);
};
template <typename T> struct Predicate {
  const char* name;
  M (*vf)(V<T>);
  bool (*sf)(T);
};

template <typename T, std::size_t N> inline void run(const Unary<T> (&cases)[N]) {
  Items<T> items(1);
  for (int gap = 0; gap <= 1; ++gap) {  // edge values side by side, and among ordinary values
    Layout<T> in(items.v, 1, items.count, W, gap);
    T* r = new T[static_cast<std::size_t>(in.n)];
    for (const Unary<T>& c : cases) {
      apply1(c.vf, in.x[0], r, in.n);
      for (int i = 0; i < in.n; ++i) {
        const T x = in.x[0][i], want = c.sf(x);
        CHECK(agree(r[i], want, c.tol), "%s(%s) = %s, want %s (lane %d)", c.name, show(x).s, show(r[i]).s,
              show(want).s, i % W);
      }
    }
    delete[] r;
  }
}

template <typename T, std::size_t N> inline void run(const Binary<T> (&cases)[N]) {
  Items<T> items(2);
  Layout<T> in(items.v, 2, items.count, W, 1);
  T* r = new T[static_cast<std::size_t>(in.n)];
  for (const Binary<T>& c : cases) {
    apply2(c.vf, in.x[0], in.x[1], r, in.n);
    for (int i = 0; i < in.n; ++i) {
      const T x = in.x[0][i], y = in.x[1][i], want = c.sf(x, y);
      CHECK(agree(r[i], want, c.tol), "%s(%s, %s) = %s, want %s (lane %d)", c.name, show(x).s, show(y).s,
            show(r[i]).s, show(want).s, i % W);
    }
  }
  delete[] r;
}

// ---- the same operations on constants ----
// GCC folds an intrinsic whose operands it knows with its own model of the instruction, which may
// differ from the CPU at the edges (it folds vcvttps2dq as a saturating conversion; the CPU gives
// INT_MIN), and may then reuse one for the other. So an operation is also checked with its
// operand a constant the compiler sees (the edge value, always inlined) and read at run time,
// both against the scalar path on the run-time value.
template <typename F, std::size_t... I> inline void each_index(F f, std::index_sequence<I...>) {
  (f(std::integral_constant<int, static_cast<int>(I)>()), ...);
}
// f(std::integral_constant<int, i>) for i in [0, N).
template <int N, typename F> inline void each_index(F f) {
  each_index(f, std::make_index_sequence<static_cast<std::size_t>(N)>());
}
// f(at) for every edge value of T: each_constant<T>([](auto at) STAX_CHECK_ALWAYS_INLINE {
// constexpr T x = edge_table<T>()[at]; ... }).
template <typename T, typename F> inline void each_constant(F f) { each_index<edge_count<T>>(f); }
#define STAX_CHECK_ALWAYS_INLINE __attribute__((always_inline))

// vf(V<From>(x)) as a constant (lane W - 1) and at run time (lane 0) against sf(x), vf and sf
// function pointers (constants where this is inlined). Only the operation on the constant is
// inlined; the rest is shared (check_folded).
template <typename From, typename VF, typename SF>
__attribute__((noinline)) void check_folded(const char* what, From x, decltype(std::declval<SF>()(x)) folded, VF vf, SF sf,
                                            int tol) {
  volatile From hidden = x;
  const From y = hidden;
  const auto want = sf(y);
  const decltype(want) run = vf(V<From>(y)).lane(0);
  CHECK(agree(folded, want, tol) && agree(run, want, tol), "%s(%s): %s as a constant, %s at run time, want %s", what,
        show(y).s, show(folded).s, show(run).s, show(want).s);
}
template <typename From, typename VF, typename SF>
STAX_CHECK_ALWAYS_INLINE inline void constant_and_run(const char* what, From x, VF vf, SF sf, int tol) {
  static_assert(std::is_pointer_v<VF> && std::is_pointer_v<SF>, "function pointers (one check_folded per type)");
  check_folded(what, x, vf(V<From>(x)).lane(W - 1), vf, sf, tol);
}

// Distance in units in the last place of T between `got` and the exact value `ref` (computed
// in long double). Results beyond T's range compare with the correctly rounded value.
template <typename T> inline double ulp_error(T got, long double ref) {
  if (ref != ref) return got != got ? 0.0 : 1e30;
  if (got != got) return 1e30;
  const T rounded = static_cast<T>(ref);
  if (std::isinf(rounded) || std::isinf(got)) return got == rounded ? 0.0 : 1e30;
  int e = 0;
  std::frexp(ref, &e);
  if (e < std::numeric_limits<T>::min_exponent) e = std::numeric_limits<T>::min_exponent;
  const long double ulp = std::ldexp(1.0L, e - std::numeric_limits<T>::digits);
  return static_cast<double>(std::fabs(static_cast<long double>(got) - ref) / ulp);
}

// The check families, one function each (vec_checks_*.cpp).
void check_memory();
void check_masks();
void check_arithmetic();
void check_compare_select();
void check_conversions();
void check_reductions();
void check_transcendentals();
void check_activations();
void check_long_sums();
void check_arg_reductions();
void check_division_and_maps();

}  // namespace vec_checks
