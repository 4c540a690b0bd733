// The runtime prelude of generated code: scalar helpers with PyTorch 2.x eager semantics, the
// C API types, and the small pieces every wrapper shares. This file is real code: it is compiled
// and unit-tested on its own (test/codegen/prelude_test.cpp) and embedded into staxc at build time
// (lib/codegen/CMakeLists.txt), which copies into each generated file only the sections the model
// uses.
//
// Layout rules, relied on by the code generator (lib/codegen/prelude.cpp):
//   - The file is a list of sections. A section starts with a line
//       // @section NAME [requires DEP...]
//     and runs to the next such line or to the line `// @end-sections`. Text before the first
//     section (this comment) is never emitted.
//   - Every section but `includes` and `capi` has its own include guard, so several generated
//     files can be #included into one translation unit, each bringing the sections it needs.
//   - Everything except the C API types lives in `namespace { namespace stax_rt { ... } }`:
//     internal linkage, so the files of two models link into one program without a clash.
//     Functions are `inline` (or templates) so that unused ones draw no warning.
//   - C++17, standard library + <sleef.h> only; warning-free with -Wall -Wextra.
//
// Integer arithmetic never overflows in C++ terms: add, sub, mul, neg and abs wrap through the
// unsigned type, as PyTorch's results do in practice. Integer division and remainder by zero,
// and an index out of range, set a bit of a kernel's error flag `err` (1: a zero divisor, 2: an
// index; the bits of all threads are OR-ed), and the wrapper returns STAX_ERR_DIV_BY_ZERO or
// STAX_ERR_INDEX_OUT_OF_RANGE (kernel_error), as eager PyTorch raises (§8.3).

// @section includes
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <new>
#include <type_traits>
#include <utility>

#include <stddef.h>
#include <stdint.h>

#include <sleef.h>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>  // every instruction set's intrinsics (GCC declares them whatever the flags)
#endif
#if defined(__aarch64__)
#include <arm_neon.h>
#endif

#if defined(__unix__) || defined(__APPLE__)
#include <unistd.h>  // sysconf: the GEMM reads the cache sizes
#endif

#ifdef _OPENMP
#include <omp.h>  // omp_get_max_threads in the kernels' `if` clauses (Algorithm 8.1, line 4)
#endif

// @section capi
// C API types shared by every generated model (C-compatible; also emitted into the header).
#ifndef STAX_C_API_TYPES
#define STAX_C_API_TYPES
/* Element type codes (metadata functions and stax_layout.dtype). */
#define STAX_FLOAT32 0
#define STAX_FLOAT64 1
#define STAX_INT32 2
#define STAX_INT64 3
#define STAX_BOOL 4
/* Return codes of NAME_run and NAME_run_checked; NAME_strerror spells them out. */
#define STAX_OK 0
#define STAX_ERR_DIV_BY_ZERO 1
#define STAX_ERR_OUT_OF_MEMORY 2
#define STAX_ERR_INVALID_ARGUMENT 3
#define STAX_ERR_INDEX_OUT_OF_RANGE 4
/* What a caller passes to NAME_run_checked for each tensor: element type, rank, sizes and
   strides in elements (strides may be NULL for dense row-major). */
typedef struct stax_layout {
  int dtype;
  int ndim;
  const int64_t* shape;
  const int64_t* strides;
} stax_layout;
#endif /* STAX_C_API_TYPES */

// @section core
#ifndef STAX_RT_CORE
#define STAX_RT_CORE
namespace {
namespace stax_rt {

// Algorithm 8.1's line 4 at run time: a parallel region pays only when there is more than one
// thread and each of them gets at least `min_chunk` of the `work` iterations. Below that the
// wrapper calls the kernels without entering a region (their `omp for` then runs on the calling
// thread), which saves the region's fixed cost (§8.4's o) on small calls.
inline bool run_parallel(int64_t work, int64_t min_chunk) {
#ifdef _OPENMP
  const int64_t p = omp_get_max_threads();
  return p > 1 && work >= min_chunk * p;
#else
  (void)work;
  (void)min_chunk;
  return false;
#endif
}

template <typename T> inline constexpr T inf() { return std::numeric_limits<T>::infinity(); }
template <typename T> inline constexpr T nan() { return std::numeric_limits<T>::quiet_NaN(); }

template <typename T> inline bool isnan(T x) {
  if constexpr (std::is_floating_point_v<T>) return x != x;
  else return false;
}
template <typename T> inline bool isinf(T x) {
  if constexpr (std::is_floating_point_v<T>) return x == inf<T>() || x == -inf<T>();
  else return false;
}
template <typename T> inline bool isfinite(T x) {
  if constexpr (std::is_floating_point_v<T>) return !isnan(x) && !isinf(x);
  else return true;
}

// Wrapping integer arithmetic (two's complement, never UB); plain arithmetic for floats.
// bool add/mul are PyTorch's logical or/and.
template <typename T> inline T add(T a, T b) {
  if constexpr (std::is_same_v<T, bool>) return a || b;
  else if constexpr (std::is_integral_v<T>)
    return static_cast<T>(static_cast<std::make_unsigned_t<T>>(a) + static_cast<std::make_unsigned_t<T>>(b));
  else return a + b;
}
template <typename T> inline T sub(T a, T b) {
  if constexpr (std::is_same_v<T, bool>) return a != b;
  else if constexpr (std::is_integral_v<T>)
    return static_cast<T>(static_cast<std::make_unsigned_t<T>>(a) - static_cast<std::make_unsigned_t<T>>(b));
  else return a - b;
}
template <typename T> inline T mul(T a, T b) {
  if constexpr (std::is_same_v<T, bool>) return a && b;
  else if constexpr (std::is_integral_v<T>)
    return static_cast<T>(static_cast<uint64_t>(static_cast<std::make_unsigned_t<T>>(a)) *
                          static_cast<uint64_t>(static_cast<std::make_unsigned_t<T>>(b)));
  else return a * b;
}
// & | ^ of integers as calls: a comparison of their result with a literal (`(x | 7) != 6`) is
// then not folded by the C++ front end into an always-true -Wtautological-compare warning.
template <typename T> inline T bit_and(T a, T b) { return static_cast<T>(a & b); }
template <typename T> inline T bit_or(T a, T b) { return static_cast<T>(a | b); }
template <typename T> inline T bit_xor(T a, T b) { return static_cast<T>(a ^ b); }
template <typename T> inline T neg(T a) {
  if constexpr (std::is_same_v<T, bool>) return a;
  else if constexpr (std::is_integral_v<T>) return sub(T(0), a);
  else return -a;
}
// abs(INT_MIN) is INT_MIN, as in PyTorch.
template <typename T> inline T abs(T a) {
  if constexpr (std::is_same_v<T, bool>) return a;
  else if constexpr (std::is_integral_v<T>) return a < 0 ? neg(a) : a;
  else return std::fabs(a);
}
// 0 for 0 and NaN (PyTorch computes (0 < x) - (x < 0)).
template <typename T> inline T sign(T a) {
  return static_cast<T>(static_cast<int>(T(0) < a) - static_cast<int>(a < T(0)));
}

// NaN-propagating maximum/minimum (torch.maximum/minimum, amax/amin).
template <typename T> inline T maximum(T a, T b) {
  if (isnan(a)) return a;
  if (isnan(b)) return b;
  return a < b ? b : a;
}
template <typename T> inline T minimum(T a, T b) {
  if (isnan(a)) return a;
  if (isnan(b)) return b;
  return b < a ? b : a;
}
// clamp(x, lo, hi) = min(max(x, lo), hi): NaN stays NaN; lo > hi gives hi.
template <typename T> inline T clamp_min(T x, T lo) { return (isnan(x) || !(x < lo)) ? x : lo; }
template <typename T> inline T clamp_max(T x, T hi) { return (isnan(x) || !(hi < x)) ? x : hi; }
template <typename T> inline T clamp(T x, T lo, T hi) { return clamp_max(clamp_min(x, lo), hi); }
template <typename T> inline T relu(T x) { return clamp_min(x, T(0)); }

// Rounding; integers are already integral.
template <typename T> inline T floor(T x) {
  if constexpr (std::is_floating_point_v<T>) return std::floor(x);
  else return x;
}
template <typename T> inline T ceil(T x) {
  if constexpr (std::is_floating_point_v<T>) return std::ceil(x);
  else return x;
}
template <typename T> inline T trunc(T x) {
  if constexpr (std::is_floating_point_v<T>) return std::trunc(x);
  else return x;
}
// Half to even (std::nearbyint in the default rounding mode), as torch.round.
template <typename T> inline T round(T x) {
  if constexpr (std::is_floating_point_v<T>) return std::nearbyint(x);
  else return x;
}

// Comparisons as functions, for an operand compared with itself (x == x of an int would draw
// -Wtautological-compare; NaN makes it meaningful for floats).
template <typename T> inline bool eq(T a, T b) { return a == b; }
template <typename T> inline bool ne(T a, T b) { return a != b; }
template <typename T> inline bool lt(T a, T b) { return a < b; }
template <typename T> inline bool le(T a, T b) { return a <= b; }
template <typename T> inline bool gt(T a, T b) { return a > b; }
template <typename T> inline bool ge(T a, T b) { return a >= b; }

template <typename T> inline T bitwise_not(T x) {
  if constexpr (std::is_same_v<T, bool>) return !x;
  else return static_cast<T>(~x);
}
template <typename T> inline bool truthy(T x) { return x != T(0); }

// Conversion with PyTorch's meaning and no UB: to bool is `!= 0` (NaN is true); from bool is
// 0/1; int to narrower int wraps; float to int truncates toward zero, and where PyTorch leaves
// the value unspecified (NaN, infinities, out of range) it saturates and NaN gives 0 (the
// reference interpreter's choice, so the two agree).
template <typename To, typename From> inline To cast(From x) {
  if constexpr (std::is_same_v<To, From>) {
    return x;
  } else if constexpr (std::is_same_v<To, bool>) {
    return x != From(0);
  } else if constexpr (std::is_same_v<From, bool>) {
    return static_cast<To>(x ? 1 : 0);
  } else if constexpr (std::is_integral_v<To> && std::is_floating_point_v<From>) {
    // Both bounds are powers of two, exact in float and double.
    constexpr double lo = -static_cast<double>(std::numeric_limits<To>::max()) - 1.0;
    constexpr double hi = static_cast<double>(std::numeric_limits<To>::max()) + 1.0;
    const double d = static_cast<double>(x);
    if (d != d) return 0;
    if (d < lo) return std::numeric_limits<To>::lowest();
    if (d >= hi) return std::numeric_limits<To>::max();
    return static_cast<To>(x);
  } else if constexpr (std::is_integral_v<To> && std::is_integral_v<From>) {
    return static_cast<To>(static_cast<std::make_unsigned_t<To>>(x));
  } else {
    return static_cast<To>(x);
  }
}

}  // namespace stax_rt
}  // namespace
#endif  // STAX_RT_CORE

// @section intdiv requires core
#ifndef STAX_RT_INTDIV
#define STAX_RT_INTDIV
namespace {
namespace stax_rt {

// Division with rounding and Python-style remainder. Float versions (two arguments) follow IEEE
// (a zero divisor gives inf or nan) and PyTorch's c10 formulas. Integer versions take the error
// flag: a zero divisor sets bit 1 of `err` and gives 0; INT_MIN / -1 wraps to INT_MIN (never
// traps).
template <typename T> inline T div_trunc(T a, T b) {
  static_assert(std::is_floating_point_v<T>, "integer division takes the error flag");
  return std::trunc(a / b);
}

template <typename T> inline T div_floor(T a, T b) {
  static_assert(std::is_floating_point_v<T>, "integer division takes the error flag");
  if (b == 0) return a / b;
  const T mod = std::fmod(a, b);
  T div = (a - mod) / b;
  if (mod != 0 && ((b < 0) != (mod < 0))) div -= T(1);
  if (div == 0) return std::copysign(T(0), a / b);
  T floordiv = std::floor(div);
  if (div - floordiv > T(0.5)) floordiv += T(1);
  return floordiv;
}

// torch.remainder: the result has the sign of the divisor.
template <typename T> inline T remainder(T a, T b) {
  static_assert(std::is_floating_point_v<T>, "integer remainder takes the error flag");
  T mod = std::fmod(a, b);
  if (mod != 0 && ((b < 0) != (mod < 0))) mod += b;
  return mod;
}

template <typename T> inline T div_trunc(T a, T b, int& err) {
  if constexpr (std::is_floating_point_v<T>) {
    (void)err;
    return div_trunc(a, b);
  } else {
    if (b == 0) {
      err |= 1;
      return 0;
    }
    if (b == T(-1)) return neg(a);
    return static_cast<T>(a / b);
  }
}

template <typename T> inline T div_floor(T a, T b, int& err) {
  if constexpr (std::is_floating_point_v<T>) {
    (void)err;
    return div_floor(a, b);
  } else {
    if (b == 0) {
      err |= 1;
      return 0;
    }
    if (b == T(-1)) return neg(a);
    T q = static_cast<T>(a / b);
    const T r = static_cast<T>(a % b);
    if (r != 0 && ((r < 0) != (b < 0))) --q;
    return q;
  }
}

template <typename T> inline T remainder(T a, T b, int& err) {
  if constexpr (std::is_floating_point_v<T>) {
    (void)err;
    return remainder(a, b);
  } else {
    if (b == 0) {
      err |= 1;
      return 0;
    }
    if (b == T(-1)) return 0;
    T r = static_cast<T>(a % b);
    if (r != 0 && ((r < 0) != (b < 0))) r = static_cast<T>(r + b);
    return r;
  }
}

}  // namespace stax_rt
}  // namespace
#endif  // STAX_RT_INTDIV

// @section index requires core
#ifndef STAX_RT_INDEX
#define STAX_RT_INDEX
namespace {
namespace stax_rt {

// A position of embedding, index_select or gather (graph-format.md "Indices"): `i` itself when
// 0 <= i < size; else bit 2 of `err` is set and 0 is returned, a position inside the data, so
// an index out of range never reads outside it.
template <typename T> inline int64_t checked_index(T i, int64_t size, int& err) {
  static_assert(std::is_integral_v<T>, "positions are integers");
  if (i >= 0 && static_cast<int64_t>(i) < size) return static_cast<int64_t>(i);
  err |= 2;
  return 0;
}

}  // namespace stax_rt
}  // namespace
#endif  // STAX_RT_INDEX

// @section math requires core
#ifndef STAX_RT_MATH
#define STAX_RT_MATH
namespace {
namespace stax_rt {

// Transcendentals from SLEEF's scalar functions (1.0-ULP class; erfc 1.5 ULP).
inline float exp(float x) { return Sleef_expf_u10(x); }
inline double exp(double x) { return Sleef_exp_u10(x); }
inline float exp2(float x) { return Sleef_exp2f_u10(x); }
inline double exp2(double x) { return Sleef_exp2_u10(x); }
inline float expm1(float x) { return Sleef_expm1f_u10(x); }
inline double expm1(double x) { return Sleef_expm1_u10(x); }
inline float log(float x) { return Sleef_logf_u10(x); }
inline double log(double x) { return Sleef_log_u10(x); }
inline float log2(float x) { return Sleef_log2f_u10(x); }
inline double log2(double x) { return Sleef_log2_u10(x); }
inline float log10(float x) { return Sleef_log10f_u10(x); }
inline double log10(double x) { return Sleef_log10_u10(x); }
// SLEEF 3.5's log1p returns inf above about 1e38 (float) and 1e307 (double); there log1p(x)
// and log(x) agree far below an ULP, so those inputs take log (as the vector layer's log1p).
inline float log1p(float x) { return x > 1e30f ? Sleef_logf_u10(x) : Sleef_log1pf_u10(x); }
inline double log1p(double x) { return x > 1e300 ? Sleef_log_u10(x) : Sleef_log1p_u10(x); }
inline float sin(float x) { return Sleef_sinf_u10(x); }
inline double sin(double x) { return Sleef_sin_u10(x); }
inline float cos(float x) { return Sleef_cosf_u10(x); }
inline double cos(double x) { return Sleef_cos_u10(x); }
inline float tan(float x) { return Sleef_tanf_u10(x); }
inline double tan(double x) { return Sleef_tan_u10(x); }
inline float asin(float x) { return Sleef_asinf_u10(x); }
inline double asin(double x) { return Sleef_asin_u10(x); }
inline float acos(float x) { return Sleef_acosf_u10(x); }
inline double acos(double x) { return Sleef_acos_u10(x); }
inline float atan(float x) { return Sleef_atanf_u10(x); }
inline double atan(double x) { return Sleef_atan_u10(x); }
inline float sinh(float x) { return Sleef_sinhf_u10(x); }
inline double sinh(double x) { return Sleef_sinh_u10(x); }
inline float cosh(float x) { return Sleef_coshf_u10(x); }
inline double cosh(double x) { return Sleef_cosh_u10(x); }
inline float tanh(float x) { return Sleef_tanhf_u10(x); }
inline double tanh(double x) { return Sleef_tanh_u10(x); }
inline float erf(float x) { return Sleef_erff_u10(x); }
inline double erf(double x) { return Sleef_erf_u10(x); }
inline float erfc(float x) { return Sleef_erfcf_u15(x); }
inline double erfc(double x) { return Sleef_erfc_u15(x); }
inline float atan2(float y, float x) { return Sleef_atan2f_u10(y, x); }
inline double atan2(double y, double x) { return Sleef_atan2_u10(y, x); }
// Square roots are correctly rounded by the hardware.
inline float sqrt(float x) { return std::sqrt(x); }
inline double sqrt(double x) { return std::sqrt(x); }
inline float rsqrt(float x) { return 1.0f / std::sqrt(x); }
inline double rsqrt(double x) { return 1.0 / std::sqrt(x); }
inline float reciprocal(float x) { return 1.0f / x; }
inline double reciprocal(double x) { return 1.0 / x; }

// torch.pow. Floats: C's pow (through SLEEF). Integers: exact with wrapping; a negative exponent
// gives 0 unless the base is 1 or -1 (PyTorch's powi). bool: a ** b is a || !b.
inline float pow(float a, float b) { return Sleef_powf_u10(a, b); }
inline double pow(double a, double b) { return Sleef_pow_u10(a, b); }
inline bool pow(bool a, bool b) { return a || !b; }
template <typename T, typename = std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>>>
inline T pow(T base, T exp) {
  if (exp < 0) {
    if (base == 1) return 1;
    if (base == -1) return (exp & 1) ? T(-1) : T(1);
    return 0;
  }
  using U = std::make_unsigned_t<T>;
  U result = 1, b = static_cast<U>(base);
  while (exp != 0) {
    if (exp & 1) result = static_cast<U>(result * b);
    b = static_cast<U>(b * b);
    exp = static_cast<T>(exp >> 1);
  }
  return static_cast<T>(result);
}

}  // namespace stax_rt
}  // namespace
#endif  // STAX_RT_MATH

// @section activation requires math
#ifndef STAX_RT_ACTIVATION
#define STAX_RT_ACTIVATION
namespace {
namespace stax_rt {

// The formulas of PyTorch's CPU kernels, computed in the value's own type.
template <typename T> inline T sigmoid(T x) { return T(1) / (T(1) + exp(-x)); }
template <typename T> inline T silu(T x) { return x / (T(1) + exp(-x)); }
template <typename T> inline T leaky_relu(T x, T slope) { return x > T(0) ? x : x * slope; }
// gelu(approximate="none"): x/2 * (1 + erf(x / sqrt(2))).
template <typename T> inline T gelu(T x) {
  const T kAlpha = T(0.70710678118654752440);  // 1/sqrt(2)
  return x * T(0.5) * (T(1) + erf(x * kAlpha));
}
// gelu(approximate="tanh"): x/2 * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x^3))).
template <typename T> inline T gelu_tanh(T x) {
  const T kBeta = T(0.79788456080286535588);  // sqrt(2/pi)
  const T kKappa = T(0.044715);
  const T inner = kBeta * (x + kKappa * x * x * x);
  return T(0.5) * x * (T(1) + tanh(inner));
}

}  // namespace stax_rt
}  // namespace
#endif  // STAX_RT_ACTIVATION

// @section reduce requires core
#ifndef STAX_RT_REDUCE
#define STAX_RT_REDUCE
namespace {
namespace stax_rt {

// argmax/argmin accumulator. PyTorch's rule: NaN wins over any number (the first NaN is the
// answer); among equal values the lowest index wins. `index < 0` means empty.
template <typename T> struct ArgAcc {
  T value;
  int64_t index;
};
template <typename T> inline ArgAcc<T> arg_init() { return ArgAcc<T>{T(0), -1}; }

template <typename T> inline bool arg_beats(T a, int64_t ia, T b, int64_t ib, bool want_max) {
  if (isnan(a)) return !isnan(b) || ia < ib;
  if (isnan(b)) return false;
  if (a == b) return ia < ib;
  return want_max ? b < a : a < b;
}
template <typename T> inline void argmax_update(ArgAcc<T>& acc, T v, int64_t i) {
  if (acc.index < 0 || arg_beats(v, i, acc.value, acc.index, true)) acc = ArgAcc<T>{v, i};
}
template <typename T> inline void argmin_update(ArgAcc<T>& acc, T v, int64_t i) {
  if (acc.index < 0 || arg_beats(v, i, acc.value, acc.index, false)) acc = ArgAcc<T>{v, i};
}
// Combining partial accumulators (a parallel or blocked reduction).
template <typename T> inline void argmax_combine(ArgAcc<T>& acc, const ArgAcc<T>& other) {
  if (other.index >= 0) argmax_update(acc, other.value, other.index);
}
template <typename T> inline void argmin_combine(ArgAcc<T>& acc, const ArgAcc<T>& other) {
  if (other.index >= 0) argmin_update(acc, other.value, other.index);
}

// Welford's running mean and M2 (sum of squared deviations), in double.
struct Welford {
  double mean = 0.0;
  double m2 = 0.0;
  int64_t n = 0;
};
inline void welford_update(Welford& w, double x) {
  w.n += 1;
  const double delta = x - w.mean;
  w.mean += delta / static_cast<double>(w.n);
  w.m2 += delta * (x - w.mean);
}
// Chan et al.'s parallel combination.
inline void welford_combine(Welford& a, const Welford& b) {
  if (b.n == 0) return;
  if (a.n == 0) {
    a = b;
    return;
  }
  const double n = static_cast<double>(a.n + b.n);
  const double delta = b.mean - a.mean;
  a.mean += delta * static_cast<double>(b.n) / n;
  a.m2 += b.m2 + delta * delta * static_cast<double>(a.n) * static_cast<double>(b.n) / n;
  a.n += b.n;
}
// m2 / max(n - correction, 0): a non-positive divisor gives inf or nan, as PyTorch.
inline double welford_var(const Welford& w, double correction) {
  const double dof = static_cast<double>(w.n) - correction;
  return w.m2 / (dof > 0.0 ? dof : 0.0);
}

}  // namespace stax_rt
}  // namespace
#endif  // STAX_RT_REDUCE

// @section dispatch requires core
#ifndef STAX_RT_DISPATCH
#define STAX_RT_DISPATCH
namespace {
namespace stax_rt {

// Run-time choice of an instruction set (the --isa dispatch file, which holds every kernel once
// per set of the ISA table). What a set needs: CPUID bits (leaf below 0x80000000, subleaf 0;
// register 0-3 for EAX-EDX; bit) and the XCR0 bits of the register state the OS saves on a
// context switch (a CPU with AVX-512 under an OS that does not save ZMM state must fall back).
struct CpuidBit {
  unsigned leaf;
  int reg;
  unsigned bit;
};
struct IsaNeeds {
  const char* name;
  const CpuidBit* bits;
  int count;
  unsigned long long xcr0;
};

#if defined(__x86_64__) || defined(__i386__)
inline void cpuid(unsigned leaf, unsigned r[4]) {
  __asm__ __volatile__("cpuid" : "=a"(r[0]), "=b"(r[1]), "=c"(r[2]), "=d"(r[3]) : "a"(leaf), "c"(0u));
}
// XCR0, read only when CPUID says the OS has enabled XSAVE (leaf 1, ECX bit 27: OSXSAVE);
// XGETBV faults otherwise.
inline unsigned long long xcr0() {
  unsigned r[4];
  cpuid(1, r);
  if (((r[2] >> 27) & 1u) == 0) return 0;
  unsigned lo = 0, hi = 0;
  __asm__ __volatile__("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0u));
  return (static_cast<unsigned long long>(hi) << 32) | lo;
}
inline bool cpu_supports(const IsaNeeds& n) {
  unsigned top[4];
  cpuid(0, top);
  for (int i = 0; i < n.count; ++i) {
    unsigned r[4] = {0, 0, 0, 0};
    if (n.bits[i].leaf > top[0]) return false;
    cpuid(n.bits[i].leaf, r);
    if (((r[n.bits[i].reg] >> n.bits[i].bit) & 1u) == 0) return false;
  }
  return n.xcr0 == 0 || (xcr0() & n.xcr0) == n.xcr0;
}
#else
inline bool cpu_supports(const IsaNeeds& n) { return n.count == 0 && n.xcr0 == 0; }
#endif

// The set of `isas` (widest first; the last needs nothing) this process runs: the one the
// environment variable STAX_ISA names, when the CPU and OS support it (tests force each set in
// turn), else the first they support.
inline int choose_isa(const IsaNeeds* isas, int count) {
  const char* forced = std::getenv("STAX_ISA");
  if (forced != nullptr)
    for (int i = 0; i < count; ++i)
      if (std::strcmp(forced, isas[i].name) == 0 && cpu_supports(isas[i])) return i;
  for (int i = 0; i < count; ++i)
    if (cpu_supports(isas[i])) return i;
  return count - 1;
}

}  // namespace stax_rt
}  // namespace
#endif  // STAX_RT_DISPATCH

// @section wrapper requires core capi
#ifndef STAX_RT_WRAPPER
#define STAX_RT_WRAPPER
namespace {
namespace stax_rt {

// Alignment of the workspace and of every buffer in it.
constexpr std::size_t kAlign = 64;

// The call's scratch memory: the caller's buffer, or one allocated here and freed on return.
class Workspace {
 public:
  Workspace(void* caller, std::size_t size) : base_(static_cast<unsigned char*>(caller)) {
    if (base_ != nullptr || size == 0) return;
    base_ = static_cast<unsigned char*>(::operator new(size, std::align_val_t(kAlign), std::nothrow));
    owned_ = base_ != nullptr;
    failed_ = base_ == nullptr;
  }
  ~Workspace() {
    if (owned_) ::operator delete(base_, std::align_val_t(kAlign));
  }
  Workspace(const Workspace&) = delete;
  Workspace& operator=(const Workspace&) = delete;
  bool failed() const { return failed_; }
  template <typename T> T* at(std::size_t offset) const { return reinterpret_cast<T*>(base_ + offset); }

 private:
  unsigned char* base_;
  bool owned_ = false;
  bool failed_ = false;
};

inline const char* strerror(int code) {
  switch (code) {
    case STAX_OK: return "success";
    case STAX_ERR_DIV_BY_ZERO: return "integer division or remainder by zero";
    case STAX_ERR_OUT_OF_MEMORY: return "cannot allocate the workspace";
    case STAX_ERR_INVALID_ARGUMENT: return "invalid argument";
    case STAX_ERR_INDEX_OUT_OF_RANGE: return "index out of range (embedding, index_select or gather)";
  }
  return "unknown error code";
}

inline const char* dtype_name(int dtype) {
  switch (dtype) {
    case STAX_FLOAT32: return "float32";
    case STAX_FLOAT64: return "float64";
    case STAX_INT32: return "int32";
    case STAX_INT64: return "int64";
    case STAX_BOOL: return "bool";
  }
  return "unknown dtype";
}

// What the compiled code expects of one tensor.
struct TensorSpec {
  const char* name;
  int dtype;
  int ndim;
  const int64_t* shape;
};

inline void format_shape(char* out, std::size_t size, int ndim, const int64_t* shape) {
  std::size_t used = 0;
  used += static_cast<std::size_t>(std::snprintf(out, size, "["));
  for (int d = 0; d < ndim && used < size; ++d)
    used += static_cast<std::size_t>(std::snprintf(out + used, size - used, d ? ", %lld" : "%lld",
                                                   static_cast<long long>(shape[d])));
  if (used < size) std::snprintf(out + used, size - used, "]");
}

// Writes a one-line message into the caller's buffer (if any) and returns the error code.
// (A copy, not snprintf: cut to the buffer on purpose, which g++ warns of when it sees both sizes.)
inline int reject(char* message, std::size_t message_size, const char* text) {
  if (message != nullptr && message_size > 0) {
    const std::size_t length = std::strlen(text), n = length < message_size ? length : message_size - 1;
    std::memcpy(message, text, n);
    message[n] = '\0';
  }
  return STAX_ERR_INVALID_ARGUMENT;
}

// The chapter's assert_size_stride (§8.5): the caller's tensor must have exactly the dtype and
// shape the code was compiled for, and dense row-major strides (the stride of a size-1
// dimension is free). Returns STAX_OK or rejects with a message naming the tensor.
inline int check_layout(const char* role, int index, const TensorSpec& spec, const void* data,
                        const stax_layout& got, char* message, std::size_t message_size) {
  char text[512], want[160], have[160];
  if (data == nullptr) {
    std::snprintf(text, sizeof text, "%s %d ('%s'): data pointer is NULL", role, index, spec.name);
    return reject(message, message_size, text);
  }
  if (got.dtype != spec.dtype) {
    std::snprintf(text, sizeof text, "%s %d ('%s'): expected dtype %s, got %s", role, index,
                  spec.name, dtype_name(spec.dtype), dtype_name(got.dtype));
    return reject(message, message_size, text);
  }
  bool same_shape = got.ndim == spec.ndim && (got.ndim == 0 || got.shape != nullptr);
  for (int d = 0; same_shape && d < spec.ndim; ++d) same_shape = got.shape[d] == spec.shape[d];
  if (!same_shape) {
    format_shape(want, sizeof want, spec.ndim, spec.shape);
    if (got.ndim < 0 || (got.ndim > 0 && got.shape == nullptr))
      std::snprintf(have, sizeof have, "an invalid shape");
    else
      format_shape(have, sizeof have, got.ndim, got.shape);
    std::snprintf(text, sizeof text, "%s %d ('%s'): expected shape %s, got %s", role, index,
                  spec.name, want, have);
    return reject(message, message_size, text);
  }
  if (got.strides == nullptr) return STAX_OK;
  int64_t expected = 1;
  for (int d = spec.ndim - 1; d >= 0; --d) {
    if (spec.shape[d] != 1 && got.strides[d] != expected) {
      std::snprintf(text, sizeof text,
                    "%s %d ('%s'): stride %lld of dimension %d, expected %lld (dense row-major)",
                    role, index, spec.name, static_cast<long long>(got.strides[d]), d,
                    static_cast<long long>(expected));
      return reject(message, message_size, text);
    }
    expected *= spec.shape[d];
  }
  return STAX_OK;
}

inline std::size_t dtype_size(int dtype) {
  switch (dtype) {
    case STAX_FLOAT32: return 4;
    case STAX_FLOAT64: return 8;
    case STAX_INT32: return 4;
    case STAX_INT64: return 8;
    case STAX_BOOL: return 1;
  }
  return 0;
}

inline std::size_t spec_bytes(const TensorSpec& spec) {
  std::size_t n = dtype_size(spec.dtype);
  for (int d = 0; d < spec.ndim; ++d) n *= static_cast<std::size_t>(spec.shape[d]);
  return n;
}

// Metadata accessors of the C API: NULL or -1 for an index out of range.
inline const TensorSpec* spec_at(const TensorSpec* specs, int count, int i) {
  return (specs != nullptr && i >= 0 && i < count) ? &specs[i] : nullptr;
}
inline const char* spec_name(const TensorSpec* specs, int count, int i) {
  const TensorSpec* s = spec_at(specs, count, i);
  return s ? s->name : nullptr;
}
inline int spec_dtype(const TensorSpec* specs, int count, int i) {
  const TensorSpec* s = spec_at(specs, count, i);
  return s ? s->dtype : -1;
}
inline int spec_ndim(const TensorSpec* specs, int count, int i) {
  const TensorSpec* s = spec_at(specs, count, i);
  return s ? s->ndim : -1;
}
inline const int64_t* spec_shape(const TensorSpec* specs, int count, int i) {
  const TensorSpec* s = spec_at(specs, count, i);
  return s ? s->shape : nullptr;
}

inline bool overlap(const void* a, std::size_t a_size, const void* b, std::size_t b_size) {
  const auto pa = reinterpret_cast<uintptr_t>(a), pb = reinterpret_cast<uintptr_t>(b);
  return pa < pb + b_size && pb < pa + a_size;
}

// Everything NAME_run_checked verifies before it runs: the counts, every tensor's layout
// (check_layout), that no output overlaps an input or another output, and the workspace's
// alignment. STAX_OK, or STAX_ERR_INVALID_ARGUMENT with a message.
inline int check_call(const TensorSpec* in_specs, int n_in, const TensorSpec* out_specs, int n_out,
                      int num_inputs, const void* const* inputs, const stax_layout* input_layouts,
                      int num_outputs, void* const* outputs, const stax_layout* output_layouts,
                      const void* workspace, char* message, std::size_t message_size) {
  if (message != nullptr && message_size > 0) message[0] = '\0';
  char text[256];
  if (num_inputs != n_in || num_outputs != n_out) {
    std::snprintf(text, sizeof text, "expected %d inputs and %d outputs, got %d and %d", n_in,
                  n_out, num_inputs, num_outputs);
    return reject(message, message_size, text);
  }
  if (n_in > 0 && (inputs == nullptr || input_layouts == nullptr))
    return reject(message, message_size, "inputs or input_layouts is NULL");
  if (outputs == nullptr || output_layouts == nullptr)
    return reject(message, message_size, "outputs or output_layouts is NULL");
  for (int i = 0; i < n_in; ++i) {
    const int rc = check_layout("input", i, in_specs[i], inputs[i], input_layouts[i], message, message_size);
    if (rc != STAX_OK) return rc;
  }
  for (int o = 0; o < n_out; ++o) {
    const int rc = check_layout("output", o, out_specs[o], outputs[o], output_layouts[o], message, message_size);
    if (rc != STAX_OK) return rc;
  }
  for (int o = 0; o < n_out; ++o) {
    const std::size_t size = spec_bytes(out_specs[o]);
    for (int i = 0; i < n_in; ++i) {
      if (!overlap(outputs[o], size, inputs[i], spec_bytes(in_specs[i]))) continue;
      std::snprintf(text, sizeof text, "output %d ('%s') overlaps input %d ('%s')", o,
                    out_specs[o].name, i, in_specs[i].name);
      return reject(message, message_size, text);
    }
    for (int p = 0; p < o; ++p) {
      if (!overlap(outputs[o], size, outputs[p], spec_bytes(out_specs[p]))) continue;
      std::snprintf(text, sizeof text, "output %d ('%s') overlaps output %d ('%s')", o,
                    out_specs[o].name, p, out_specs[p].name);
      return reject(message, message_size, text);
    }
  }
  if (workspace != nullptr && reinterpret_cast<uintptr_t>(workspace) % kAlign != 0)
    return reject(message, message_size, "workspace is not 64-byte aligned");
  return STAX_OK;
}

// The message of a failed run (the code's description); the code is returned unchanged.
// The return code of a kernel that failed, from its error flag: an index out of range when its
// bit is set (whatever else happened), else an integer division by zero.
inline int kernel_error(int flags) {
  return (flags & 2) != 0 ? STAX_ERR_INDEX_OUT_OF_RANGE : STAX_ERR_DIV_BY_ZERO;
}

inline int finish_call(int code, char* message, std::size_t message_size) {
  if (code != STAX_OK && message != nullptr && message_size > 0)
    std::snprintf(message, message_size, "%s", strerror(code));
  return code;
}

}  // namespace stax_rt
}  // namespace
#endif  // STAX_RT_WRAPPER
// @end-sections
