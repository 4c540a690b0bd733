// The vector layer of generated code (design.md, "CPU code"; §8.1 of the design chapter):
// Vec<T, Isa> for T in {float, double, int32_t, int64_t} and Mask<Isa>, over the instruction sets
// of the ISA table (include/stax/support/isa.def): the primary templates in stax_vec_base.h, one
// file per set under isa/ (its tag type and specializations), and, here, what is written once
// over all of them. Like stax_prelude.h this is real code, compiled and unit-tested on its own
// (test/codegen/vec_checks_*.cpp, built once per instruction set) and embedded into staxc at
// build time; a generated file carries only the sections it asks for (same marker rules as the
// prelude; these sections come after the prelude's and require some of them).
//
// Instruction sets are tag types: IsaAvx512 (needs -mavx512f -mavx512dq), IsaAvx2 (needs -mavx2
// -mfma), IsaNeon (any AArch64 compiler), IsaScalar (always). Vec<T, I> exists only when the compiler targets I (each isa/ file
// defines its STAX_VEC_HAS_<SET> macro, and stax_rt::isa_available<I>). IsaNative is the widest
// one the compiler targets (so -march=native takes the widest the machine has), unless the
// translation unit defines one STAX_ISA_<SET> macro first (STAX_ISA_AVX512, STAX_ISA_AVX2,
// STAX_ISA_NEON, STAX_ISA_SCALAR, ...): then IsaNative is that one (an #error when the compiler does not target
// it). A generated model that is pinned to a set names its tag directly (several models with
// different sets can share one translation unit) and checks
// `static_assert(stax_rt::isa_available<stax_rt::IsaAvx2>, "...")`.
//
// Lanes: every Vec<T, I> and Mask<I> of one instruction set has the same lane count
// I::width (16 for AVX-512, 8 for AVX2, 4 for NEON, 1 for scalar), whatever the element size: a float64
// vector of AVX2 is two registers. Conversions and masks therefore never change the lane count,
// and a kernel mixing dtypes steps by one width. A bool value is a Mask (bool tensors are bytes in
// memory: Mask::loadu/storeu convert).
//
// Semantics are the prelude's scalar ones (PyTorch 2.x eager), lane by lane, so a vectorized
// kernel and its scalar tail agree: integer arithmetic wraps; maximum/minimum propagate NaN and
// otherwise equal `a < b ? b : a` / `b < a ? b : a` bit for bit (signed zeros included); float to
// int conversion truncates, saturates and sends NaN to 0 (stax_rt::cast); comparisons are
// IEEE (NaN compares false except `!=`). Accuracy per function is stated where it is defined.
// NaN payloads: the operations that move or select bits (loads, stores, where, neg, abs,
// maximum, minimum, clamp, relu) keep them, signalling NaNs included; the others give a NaN
// where the scalar path does, which one being left open as in C++. The default floating-point
// environment is assumed (round to nearest even, subnormal operands and results kept) and never
// changed. Each isa/ file states how its instructions meet these rules at the edges; the checks
// (test/codegen/vec_checks_*.cpp) compare every operation of each set with the scalar path on
// a table of edge values per dtype, in every lane.
//
// Memory: load/store/stream need `p` aligned to one register (64 bytes for AVX-512, 32 for
// AVX2, the element's alignment for NEON and scalar); loadu/storeu do not. loadu(p, n) and storeu(p, n)
// touch only the first n lanes (0 <= n <= width) and never fault beyond them: the tails of
// loops. stream(p) is a non-temporal store (written around the cache); call stream_fence()
// once after the streaming loop, before the data is read by another thread.
//
// Example (one row of a softmax, float32, length n):
//   using V = stax_rt::Vec<float, stax_rt::IsaNative>;
//   V m(-stax_rt::inf<float>());
//   for (i = 0; i + V::size <= n; i += V::size) m = stax_rt::maximum(m, V::loadu(x + i));
//   m = stax_rt::maximum(m, V::loadu(x + i, n - i, -stax_rt::inf<float>()));
//   const float row_max = stax_rt::reduce_max(m);
#include "stax_prelude.h"     // (not emitted) the sections these require, so this header compiles alone
#include "stax_vec_base.h"    // (not emitted)
#include "isa/scalar.h"       // (not emitted)
#include "isa/neon.h"         // (not emitted)
#include "isa/avx2.h"         // (not emitted)
#include "isa/avx512.h"       // (not emitted)

// @section vec requires vec_config vec_scalar
#ifndef STAX_RT_VEC
#define STAX_RT_VEC
namespace {
namespace stax_rt {

// The widest instruction set the compiler targets, or the one the translation unit pins with a
// STAX_ISA_* macro (each isa/ file updates STAX_VEC_NATIVE and checks its own pin).
#if defined(STAX_VEC_PINNED)
using IsaNative = STAX_VEC_PINNED;
#else
using IsaNative = STAX_VEC_NATIVE;
#endif

// What every instruction set shares, written once over Vec<T, I> and Mask<I>. Together with the
// per-set sections above, the operations and their accuracy:
//   + - * and unary -        exact IEEE (floats) / wrapping (ints); / floats only, correctly rounded
//   fma(a, b, c)             a*b + c rounded once (AVX2, AVX-512, NEON; scalar level: once with
//                            -mfma or on AArch64, else twice)
//   abs floor ceil trunc     exact; round is half to even (torch.round); NaN stays NaN
//   sqrt                     correctly rounded; rsqrt = 1/sqrt(x), reciprocal = 1/x (both exact
//                            divisions, never the approximate instructions)
//   maximum minimum          NaN-propagating (torch.maximum/minimum), bit-exact with the prelude
//   clamp clamp_min clamp_max relu   the prelude's rules (NaN stays NaN)
//   == != < <= > >=          IEEE: NaN compares false except != ; result is a Mask (of Masks too:
//                            false < true)
//   where(m, a, b)           lane-wise select (a where m)
//   isnan isinf isfinite     Masks; false/false/true for ints
//   exp exp2 expm1 log log2 log10 log1p sin cos tan asin acos atan sinh cosh tanh erf atan2 pow
//                            SLEEF u10: at most 1.0 ULP from the exact result (erfc: u15, 1.5 ULP);
//                            float32 exp, erf and tanh on AVX2, AVX-512 and NEON are inline
//                            (below): at most 0.90, 0.79 and 0.93 ULP;
//                            NaN in, NaN out; special values as C99 Annex F (pow(x, 0) = 1,
//                            pow(1, y) = 1 even for NaN, as std::pow and torch.pow)
//   sigmoid silu gelu gelu_tanh   the prelude's formulas (activation section) over the above
//   cast<To>(v)              stax_rt::cast per lane: float->int truncates, saturates, NaN -> 0;
//                            to bool is != 0 (a Mask), from bool is 0/1
//   div_trunc div_floor remainder   the prelude's intdiv rules; ints lane by lane with `err`
//   load_masked(p, m)        lanes where m is false are 0 and never read (for any T and bool)
//   load_even(p), load_even(p, n), load_even_masked(p, m)   p[0], p[2], ...: the same rules
//   lanes_at_least<I>(a, s, c, strict)   the lanes l where a + s * l >= c (> c), as a range
//   from_lanes<T, I>(f, i)   f(i + l) in lane l, lane by lane
//   V::iota(start)           start + l in lane l, in T (ints wrap; lane 0 is start + 0: +0 for -0)
//   shift_left, shift_right_arith (int32 lanes; AVX2, AVX-512)   x << n (wrapping) and x >> n
//                            (arithmetic) for 0 <= n < 32; any other count, negative or not,
//                            gives 0, and the sign in every bit (the x86 instructions' rule)
//   reduce_sum               halving order on every set: lane i + W/2 added to lane i, then
//                            i + W/4, ..., i + 1 (deterministic); ints wrap
//   reduce_prod/max/min      lanes folded in order 0..W-1 with the scalar operation; max/min
//                            propagate NaN (the first NaN lane's), and a zero extreme is the
//                            first zero lane's (AVX2 and AVX-512 floats take a tree of the
//                            instruction instead when no lane is NaN and the extreme is not
//                            zero: the same bits)
//   any all                  of a Mask
//   ArgLanes, argmax/argmin_update/combine   the best number and position, and the first
//                            NaN's position, per lane: exact (see the block at the end)

template <typename T, typename I> inline Vec<T, I>& operator+=(Vec<T, I>& a, Vec<T, I> b) { return a = a + b; }
template <typename T, typename I> inline Vec<T, I>& operator-=(Vec<T, I>& a, Vec<T, I> b) { return a = a - b; }
template <typename T, typename I> inline Vec<T, I>& operator*=(Vec<T, I>& a, Vec<T, I> b) { return a = a * b; }
template <typename T, typename I> inline Vec<T, I>& operator/=(Vec<T, I>& a, Vec<T, I> b) { return a = a / b; }
template <typename I> inline Mask<I>& operator&=(Mask<I>& a, Mask<I> b) { return a = a & b; }
template <typename I> inline Mask<I>& operator|=(Mask<I>& a, Mask<I> b) { return a = a | b; }

// Bool values: equality of masks, select between masks, logical not.
template <typename I> inline Mask<I> operator==(Mask<I> a, Mask<I> b) { return ~(a ^ b); }
template <typename I> inline Mask<I> operator!=(Mask<I> a, Mask<I> b) { return a ^ b; }
template <typename I> inline Mask<I> where(Mask<I> m, Mask<I> a, Mask<I> b) { return (m & a) | (~m & b); }
// false < true, for comparisons of bool values.
template <typename I> inline Mask<I> operator<(Mask<I> a, Mask<I> b) { return ~a & b; }
template <typename I> inline Mask<I> operator<=(Mask<I> a, Mask<I> b) { return ~a | b; }
template <typename I> inline Mask<I> operator>(Mask<I> a, Mask<I> b) { return a & ~b; }
template <typename I> inline Mask<I> operator>=(Mask<I> a, Mask<I> b) { return a | ~b; }
template <typename I> inline Mask<I> bitwise_not(Mask<I> m) { return ~m; }

// The prelude's names for the operators, so one emitter text serves scalars and vectors.
template <typename T, typename I> inline Vec<T, I> add(Vec<T, I> a, Vec<T, I> b) { return a + b; }
template <typename T, typename I> inline Vec<T, I> sub(Vec<T, I> a, Vec<T, I> b) { return a - b; }
template <typename T, typename I> inline Vec<T, I> mul(Vec<T, I> a, Vec<T, I> b) { return a * b; }
template <typename T, typename I> inline Vec<T, I> neg(Vec<T, I> a) { return -a; }
template <typename T, typename I> inline Vec<T, I> bitwise_not(Vec<T, I> a) { return ~a; }
template <typename T, typename I> inline Mask<I> truthy(Vec<T, I> a) { return a != Vec<T, I>(T(0)); }

template <typename T, typename I, std::enable_if_t<std::is_integral_v<T>, int> = 0>
inline Mask<I> isnan(Vec<T, I>) {
  return Mask<I>(false);
}
template <typename T, typename I> inline Mask<I> isinf(Vec<T, I> a) {
  if constexpr (std::is_floating_point_v<T>) return abs(a) == Vec<T, I>(inf<T>());
  else return Mask<I>(false);
}
template <typename T, typename I> inline Mask<I> isfinite(Vec<T, I> a) {
  if constexpr (std::is_floating_point_v<T>) return abs(a) < Vec<T, I>(inf<T>());
  else return Mask<I>(true);
}

// (0 < x) - (x < 0): 0 for 0 and NaN.
template <typename T, typename I> inline Vec<T, I> sign(Vec<T, I> x) {
  const Vec<T, I> zero(T(0));
  return where(x > zero, Vec<T, I>(T(1)), where(x < zero, Vec<T, I>(T(-1)), zero));
}
template <typename T, typename I> inline Vec<T, I> clamp_min(Vec<T, I> x, Vec<T, I> lo) { return where(x < lo, lo, x); }
template <typename T, typename I> inline Vec<T, I> clamp_max(Vec<T, I> x, Vec<T, I> hi) { return where(hi < x, hi, x); }
template <typename T, typename I> inline Vec<T, I> clamp(Vec<T, I> x, Vec<T, I> lo, Vec<T, I> hi) {
  return clamp_max(clamp_min(x, lo), hi);
}
template <typename T, typename I> inline Vec<T, I> relu(Vec<T, I> x) { return clamp_min(x, Vec<T, I>(T(0))); }
template <typename T, typename I> inline Vec<T, I> leaky_relu(Vec<T, I> x, Vec<T, I> slope) {
  return where(x > Vec<T, I>(T(0)), x, x * slope);
}
template <typename T, typename I> inline Vec<T, I> rsqrt(Vec<T, I> x) { return Vec<T, I>(T(1)) / sqrt(x); }
template <typename T, typename I> inline Vec<T, I> reciprocal(Vec<T, I> x) { return Vec<T, I>(T(1)) / x; }

// SLEEF 3.5's log1p returns inf above about 1e38 (float) and 1e307 (double); there log1p(x)
// and log(x) agree far below an ULP, so those lanes take log (a branch that is rarely taken).
template <typename T, typename I> inline Vec<T, I> log1p(Vec<T, I> x) {
  static_assert(std::is_floating_point_v<T>, "log1p of floats");
  const Vec<T, I> bound(std::is_same_v<T, float> ? T(1e30) : T(1e300));
  const Vec<T, I> r = sleef_log1p(x);
  const Mask<I> huge = x > bound;
  return any(huge) ? where(huge, log(x), r) : r;
}

// ---- float32 exp, erf and tanh, inline for every SIMD set (the scalar set keeps the prelude's) ----
// Written once over the Vec operations and the per-set bit casts and shifts. Every lane runs the
// same instructions, special lanes are fixed by clamping and selects; exp alone branches, once
// per vector, to a shorter path when no lane is special.
template <typename I> inline constexpr bool is_simd = !std::is_same_v<I, IsaScalar>;

// c0 + x (c1 + x (c2 + ...)) by Horner's rule, one fma a step, the constant term first.
template <typename I, typename... C> inline Vec<float, I> horner(Vec<float, I> x, float c0, C... rest) {
  if constexpr (sizeof...(rest) == 0) return Vec<float, I>(c0);
  else return fma(horner(x, rest...), x, Vec<float, I>(c0));
}

// e^x = p * 2^n for |x| < 2^22 (NaN gives a NaN p), by Cody-Waite reduction x = n ln2 + r:
// n = round(x / ln2), taken from the low mantissa bits of x / ln2 + 1.5 * 2^23; ln2 = kLn2Hi +
// kLn2Lo with kLn2Hi = ln2 rounded to float. Where n != 0, |x| > 0.34, so x and n * kLn2Hi are
// multiples of 2^-25 and x - n * kLn2Hi (below 0.5) is exact in one fma; r then carries one
// rounding. |r| <= ln2/2 + |x| 2^-24 (the float x / ln2 may round n the other way near a half),
// and p = e^r by a degree-6 polynomial, minimax for the relative error on |r| <= 0.3467 with the
// first two coefficients 1 (approximation error 3.1e-9, 0.05 ULP).
template <typename I> struct ExpSplitF32 {
  Vec<float, I> p;
  Vec<int32_t, I> n;
};
template <typename I> inline ExpSplitF32<I> exp_split_f32(Vec<float, I> x) {
  using VF = Vec<float, I>;
  const VF shifter(12582912.0f);  // 1.5 * 2^23
  const VF k = fma(x, VF(1.44269502f), shifter);
  const VF n = k - shifter;
  VF r = fma(n, VF(-0.693147182f), x);  // -kLn2Hi
  r = fma(n, VF(1.90465421e-09f), r);   // -kLn2Lo
  const VF p = horner(r, 1.0f, 1.0f, 0.49999994f, 0.166665211f, 0.041668389f, 0.00836873055f,
                      0.00138145708f);
  return {p, bit_cast_i32(k) - bit_cast_i32(shifter)};
}

// e^x. Below -103.98 the result rounds to 0 and above 89 it overflows, so x is taken to [-103.98,
// 89] (NaN stays NaN through the selects) and n to [-150, 129]; 2^n is applied as 2^(n>>1)
// times 2^(n - (n>>1)), both normal, so p * 2^(n>>1) is exact and the last product rounds once,
// also to a subnormal or inf. exp(-inf) = 0, exp(inf) = inf, NaN in NaN out.
// Accuracy: at most 0.90 ULP (0.894 at x = 5.2019), measured over every float32 input against
// double std::exp, in ULPs of the float binade of the reference (subnormal ULP below FLT_MIN);
// about 0.5 of it is the last rounding, the rest the roundings of r and of Horner's next-to-last
// step, each scaled by |r| <= 0.35.
// Lanes below -103.98, where e^x < 2^-150 rounds to 0 (-inf among them: a mask), are worked out
// on x = 0 and replaced by 0 at the end: their product would underflow, and a result that
// underflows costs a microcode assist of over a hundred cycles on some processors (a masked
// softmax, half its lanes -inf, ran at half speed).
// When every lane has |x| < 86 (the common case), n is in [-125, 125] and p in [0.7, 1.42], so
// p * 2^n is normal and is formed exactly by adding n to p's exponent field: the same bits as the
// general path in a third fewer instructions (exp over the float32 numbers of |x| < 86 checked
// bit for bit against it). The same holds when the other lanes round to 0 (a masked softmax's
// -inf). A NaN lane fails both tests and takes the general path.
template <typename I> inline Vec<float, I> exp_normal_f32(Vec<float, I> x) {  // (every |x| < 86)
  const ExpSplitF32<I> s = exp_split_f32(x);
  return bit_cast_f32(bit_cast_i32(s.p) + shift_left(s.n, 23));
}
template <typename I, std::enable_if_t<is_simd<I>, int> = 0> inline Vec<float, I> exp(Vec<float, I> x) {
  using VF = Vec<float, I>;
  using VI = Vec<int32_t, I>;
  if (all(abs(x) < VF(86.0f))) return exp_normal_f32(x);
  const Mask<I> zero = x < VF(-103.98f);
  if (all(zero)) return VF(0.0f);  // (the masked lanes of an attention mask come in runs)
  const VF xz = where(zero, VF(0.0f), x);
  // (or are scattered among lanes of the fast path)
  if (all(abs(xz) < VF(86.0f))) return where(zero, VF(0.0f), exp_normal_f32(xz));
  const ExpSplitF32<I> s = exp_split_f32(clamp_max(xz, VF(89.0f)));
  // The biased exponents (n>>1) + 127 and n - (n>>1) + 127, from m = n + 254.
  const VI m = s.n + VI(254), e1 = shift_right_arith(m, 1);
  return where(zero, VF(0.0f), s.p * bit_cast_f32(shift_left(e1, 23)) * bit_cast_f32(shift_left(m - e1, 23)));
}

// erf(x), odd, in three pieces of |x| chosen so that each keeps its rounding errors small:
//   |x| < 0.75:        x + x g(x^2) with g(t) = erf(sqrt t)/sqrt t - 1 of degree 5 (writing
//                      x + x g keeps 2/sqrt(pi) out of a rounded coefficient; t < 0.57 keeps
//                      Horner's partial sums small);
//   0.75 <= |x| < 1.5: erf(1.125) + u m(u) with u = |x| - 1.125 (exact), m of degree 7 and
//                      erf(1.125) as a sum of two floats;
//   |x| >= 1.5:        1 - c(v) with c(v) ~ erfc(|x|) of degree 13 in v = |x| - 2.75 (exact) on
//                      [1.5, 4]: erfc is below 0.034 there, so c needs only a small absolute
//                      error, not a relative one; erfc(4) < 2^-25, so |x| is clamped to 4 and
//                      erf rounds to +-1 beyond. c is summed as its even and odd halves in v^2,
//                      two chains of six steps instead of one of thirteen, so that more of the
//                      next lanes' work overlaps (this piece once was 1 - e^q(|x|), a third
//                      slower).
// Each polynomial is fitted to the error of erf (at most 0.03 ULP before rounding). erf(+-0) =
// +-0, erf(+-inf) = +-1, NaN in NaN out (the last piece's clamp keeps it).
// Accuracy: at most 0.79 ULP (0.788 at x = 0.74898, the top of the first piece), measured over
// every float32 input against double std::erf, as for exp.
template <typename I, std::enable_if_t<is_simd<I>, int> = 0> inline Vec<float, I> erf(Vec<float, I> x) {
  using VF = Vec<float, I>;
  const VF a = abs(x), t = x * x;
  const VF g = horner(t, 0.128379166f, -0.3761262f, 0.112833768f, -0.0268346239f, 0.00511434581f,
                      -0.000674951356f);
  const VF small = fma(x, g, x);
  const VF u = a - VF(1.125f);
  const VF m = horner(u, 0.318273962f, -0.358058244f, 0.162451893f, 0.0279763918f, -0.0613114871f,
                      0.0154793207f, 0.00948712882f, -0.00560010271f);
  const VF mid = fma(u, m, VF(1.52061936e-08f)) + VF(0.888388216f);
  const VF b = clamp_max(a, VF(4.0f));  // (lanes below 1.5 take another piece)
  const VF v = b - VF(2.75f);
  const VF v2 = v * v;
  const VF ce = horner(v2, 0.000100622783f, 0.00161220529f, 0.00325873587f, 0.00165476126f,
                       9.41468461e-05f, -6.04765119e-05f, 4.2263091e-06f);
  const VF co = horner(v2, -0.000586272916f, -0.00276048412f, -0.00275520026f, -0.000647738576f,
                       7.3619216e-05f, 1.41063847e-05f, -2.13694398e-06f);
  const VF c = fma(co, v, ce);
  const VF large = VF(1.0f) - c;
  // The outer pieces are positive: x's sign bit goes onto them.
  const VF outer = where(a < VF(1.5f), mid, large);
  const Vec<int32_t, I> sign = bit_cast_i32(x) & Vec<int32_t, I>(INT32_MIN);
  return where(a < VF(0.75f), small, bit_cast_f32(bit_cast_i32(outer) ^ sign));
}

// tanh(x), odd, in three pieces of |x| = a, like erf's:
//   a < 0.625:         a + a t g(t) with t = x^2 and g(t) t = tanh(sqrt t)/sqrt t - 1 of degree 7;
//   0.625 <= a < 1.5:  tanh(1.0625) + u m(u) with u = a - 1.0625 (exact), m of degree 9 and
//                      tanh(1.0625) as a sum of two floats;
//   a >= 1.5:          1 - 2 / (e^(2a) + 1), the exp above: 2 / (e^(2a) + 1) is below 0.1 there,
//                      so its rounding errors shrink in the difference; a is clamped to 9.5,
//                      beyond which tanh rounds to +-1.
// tanh(+-0) = +-0, tanh(+-inf) = +-1, NaN in NaN out (the clamp keeps it).
// Accuracy: at most 0.93 ULP (0.928 at x = 0.63508, the bottom of the middle piece), measured
// over every float32 input against double std::tanh (bench/vec_ulp.cpp); SLEEF's tanhf, which it
// replaces, took twice the time.
template <typename I, std::enable_if_t<is_simd<I>, int> = 0> inline Vec<float, I> tanh(Vec<float, I> x) {
  using VF = Vec<float, I>;
  const VF a = abs(x), t = x * x;
  const VF g = horner(t, -0.333333343f, 0.133334294f, -0.053987965f, 0.0220307969f, -0.0094742896f,
                      0.00461049657f, -0.00182057777f);
  const VF small = fma(a, g * t, a);  // (from |x|: x + x g t would make tanh(-0) = +0)
  const VF u = a - VF(1.0625f);
  const VF m = horner(u, 0.381230831f, -0.299883336f, 0.108817182f, 0.0143625177f, -0.0391057841f,
                      0.0193235688f, -0.000467623031f, -0.00519714085f, 0.00278294971f);
  const VF mid = fma(u, m, VF(-1.66648011e-08f)) + VF(0.786618829f);
  const VF b = clamp_max(a, VF(9.5f));  // (lanes below 1.5 take another piece)
  const VF large = VF(1.0f) - VF(2.0f) / (exp(b + b) + VF(1.0f));
  // Every piece is tanh(|x|) >= 0: x's sign bit goes onto it.
  const VF magnitude = where(a < VF(0.625f), small, where(a < VF(1.5f), mid, large));
  const Vec<int32_t, I> sign = bit_cast_i32(x) & Vec<int32_t, I>(INT32_MIN);
  return bit_cast_f32(bit_cast_i32(magnitude) ^ sign);
}

// cast<To>(v): see the table above. From a Vec to bool gives a Mask; from a Mask, 0/1.
template <typename To, typename From, typename I> inline auto cast(Vec<From, I> x) {
  if constexpr (std::is_same_v<To, From>) return x;
  else if constexpr (std::is_same_v<To, bool>) return x != Vec<From, I>(From(0));
  else return convert(x, VecTag<To>());
}
template <typename To, typename I> inline auto cast(Mask<I> m) {
  if constexpr (std::is_same_v<To, bool>) return m;
  else return where(m, Vec<To, I>(To(1)), Vec<To, I>(To(0)));
}

// Lane-by-lane application of a scalar function to the first n lanes; the other lanes keep x's
// (or a's) values, so a tail never calls f on padding (an integer division by the zero of a
// padding lane must not raise the error flag).
template <typename F, typename T, typename I> inline Vec<T, I> map(F f, Vec<T, I> x, int n = I::width) {
  T a[I::width];
  x.storeu(a);
  for (int i = 0; i < n; ++i) a[i] = f(a[i]);
  return Vec<T, I>::loadu(a);
}
template <typename F, typename T, typename I> inline Vec<T, I> map2(F f, Vec<T, I> x, Vec<T, I> y, int n = I::width) {
  T a[I::width], b[I::width];
  x.storeu(a);
  y.storeu(b);
  for (int i = 0; i < n; ++i) a[i] = f(a[i], b[i]);
  return Vec<T, I>::loadu(a);
}

// Integer pow (PyTorch's powi, wrapping) lane by lane.
template <typename I> inline Vec<int32_t, I> pow(Vec<int32_t, I> a, Vec<int32_t, I> b) {
  return map2([](int32_t x, int32_t y) { return pow(x, y); }, a, b);
}
template <typename I> inline Vec<int64_t, I> pow(Vec<int64_t, I> a, Vec<int64_t, I> b) {
  return map2([](int64_t x, int64_t y) { return pow(x, y); }, a, b);
}

// Division with rounding and remainder (the prelude's intdiv rules). Floats: div_trunc is
// trunc(a / b) in vector form, div_floor and remainder go lane by lane through the prelude's
// formulas. Integers go lane by lane on the first n lanes: a zero divisor sets `err`.
template <typename T, typename I> inline Vec<T, I> div_trunc(Vec<T, I> a, Vec<T, I> b, int& err, int n = I::width) {
  if constexpr (std::is_floating_point_v<T>) {
    (void)err, (void)n;
    return trunc(a / b);
  } else {
    return map2([&err](T x, T y) { return div_trunc(x, y, err); }, a, b, n);
  }
}
template <typename T, typename I> inline Vec<T, I> div_floor(Vec<T, I> a, Vec<T, I> b, int& err, int n = I::width) {
  return map2([&err](T x, T y) { return div_floor(x, y, err); }, a, b, n);
}
template <typename T, typename I> inline Vec<T, I> remainder(Vec<T, I> a, Vec<T, I> b, int& err, int n = I::width) {
  return map2([&err](T x, T y) { return remainder(x, y, err); }, a, b, n);
}
// The float forms without the flag (floats never set it), as the prelude's two-argument ones.
template <typename T, typename I> inline Vec<T, I> div_trunc(Vec<T, I> a, Vec<T, I> b) {
  static_assert(std::is_floating_point_v<T>, "integer division takes the error flag");
  return trunc(a / b);
}
template <typename T, typename I> inline Vec<T, I> div_floor(Vec<T, I> a, Vec<T, I> b) {
  static_assert(std::is_floating_point_v<T>, "integer division takes the error flag");
  return map2([](T x, T y) { return div_floor(x, y); }, a, b);
}
template <typename T, typename I> inline Vec<T, I> remainder(Vec<T, I> a, Vec<T, I> b) {
  static_assert(std::is_floating_point_v<T>, "integer remainder takes the error flag");
  return map2([](T x, T y) { return remainder(x, y); }, a, b);
}

// f(i), f(i + 1), ..., f(i + W - 1) for an integer loop variable i: a function of the loop
// variable that vector arithmetic does not give (an index with // or %), lane by lane.
template <typename T, typename I, typename F> inline Vec<T, I> from_lanes(F f, int64_t i) {
  T a[I::width];
  for (int l = 0; l < I::width; ++l) a[l] = f(i + l);
  return Vec<T, I>::loadu(a);
}

// Bool memory under a mask: bytes are read only where m holds (the numeric types have
// load_masked per instruction set).
template <typename I> inline Mask<I> load_masked(const bool* p, Mask<I> m) {
  bool b[I::width];
  for (int l = 0; l < I::width; ++l) b[l] = m.lane(l) && p[l];
  return Mask<I>::loadu(b);
}

// W elements p[0], p[stride], ..., lane by lane (the first n; the rest 0): a strided or
// broadcast read in a vectorized loop.
template <typename I, typename T> inline Vec<T, I> load_strided(const T* p, int64_t stride, int n = I::width) {
  T a[I::width] = {};
  for (int i = 0; i < n; ++i) a[i] = p[static_cast<int64_t>(i) * stride];
  return Vec<T, I>::loadu(a);
}

// The lanes l in which a + s * l >= c (or > c when `strict`), s != 0: a comparison of an index
// that steps by s along the vector loop with a bound, the edge of a pooling window or a pad.
// They are a range, [k, W) for s > 0 and [0, k) for s < 0, found from lane 0's index (the
// difference in 128 bits, so nothing overflows; divided in 64 once it is known to be small).
template <typename I> inline Mask<I> lanes_at_least(int64_t a, int64_t s, int64_t c, bool strict) {
  const __int128 d = static_cast<__int128>(c) + (strict ? 1 : 0) - a;  // s * l >= d
  const int64_t span = (s > 0 ? s : -s) * (I::width - 1);            // |s| * the last lane
  if (s > 0) {  // l >= ceil(d / s)
    if (d <= 0) return Mask<I>(true);
    if (d > span) return Mask<I>(false);
    return ~Mask<I>::first(static_cast<int>((static_cast<int64_t>(d) + s - 1) / s));
  }
  if (d > 0) return Mask<I>(false);  // l <= floor(-d / -s)
  if (-d >= span) return Mask<I>(true);
  return Mask<I>::first(static_cast<int>(static_cast<int64_t>(-d) / -s + 1));
}

// A read with stride 2 along the vector loop: W lanes p[0], p[2], ... (EvenLoad; nothing past
// p[2 * W - 2] is read); the first n of them (a tail; the rest 0); under a mask, lanes where m
// is false 0 and never read (the two loads when every lane is on).
template <typename I, typename T> inline Vec<T, I> load_even(const T* p) { return EvenLoad<T, I>::load(p); }
template <typename T, typename I> inline Vec<T, I> load_even_masked(const T* p, Mask<I> m) {
  return all(m) ? EvenLoad<T, I>::load(p) : EvenLoad<T, I>::masked(p, m);
}
template <typename I, typename T> inline Vec<T, I> load_even(const T* p, int n) {
  return n >= I::width ? EvenLoad<T, I>::load(p) : EvenLoad<T, I>::masked(p, Mask<I>::first(n));
}

// Orders a weakly ordered non-temporal store before later stores (call once after a loop of
// stream()).
inline void stream_fence() {
#if defined(__SSE2__)
  _mm_sfence();
#endif
}

// Elements of T from p to the next 64-byte boundary, at most n (n when p can never get there:
// T misaligned), so that a loop can store its first elements plainly and stream the rest.
template <typename T> inline int64_t aligned_start(const T* p, int64_t n) {
  const std::size_t off = static_cast<std::size_t>(reinterpret_cast<std::uintptr_t>(p) % 64);
  if (off % sizeof(T) != 0) return n;
  const int64_t k = off == 0 ? 0 : static_cast<int64_t>((64 - off) / sizeof(T));
  return k < n ? k : n;
}

// ---- horizontal reductions (the combination step of Proposition 8.1 (2)) ----
template <typename T, typename I> inline T reduce_sum(Vec<T, I> a) {
  static_assert(std::is_integral_v<T>, "float sums have per-set overloads");
  T r = a.lane(0);
  for (int i = 1; i < I::width; ++i) r = add(r, a.lane(i));
  return r;
}
template <typename T, typename I> inline T reduce_prod(Vec<T, I> a) {
  T r = a.lane(0);
  for (int i = 1; i < I::width; ++i) r = mul(r, a.lane(i));
  return r;
}
template <typename T, typename I> inline T reduce_max(Vec<T, I> a) {
  T r = a.lane(0);
  for (int i = 1; i < I::width; ++i) r = maximum(r, a.lane(i));
  return r;
}
template <typename T, typename I> inline T reduce_min(Vec<T, I> a) {
  T r = a.lane(0);
  for (int i = 1; i < I::width; ++i) r = minimum(r, a.lane(i));
  return r;
}

// ---- argmax/argmin lane accumulators of generated reductions (Proposition 8.1) ----
// By the prelude's rule (arg_beats) a NaN beats every number and the first NaN wins; among
// numbers the greater (argmax) wins, and the lower position among equal ones. So lane l keeps,
// of the elements it has seen, the best number with its position and, apart, the first NaN's
// position: its answer is that NaN if it has seen one, else the number. Both are extremes of a
// total order (on (number, position) pairs; on positions), so the lanes may see any elements in
// any order and combine with each other and with a scalar remainder in any order: the result is
// the scalar loop's, bit for bit. (Keeping NaN apart leaves each accumulator one compare and one
// select per vector on its dependency chain.) A lane that has seen no number holds `identity`
// (-inf or INT_MIN for argmax, +inf or INT_MAX for argmin) at position no_position<Ix>, which
// every number beats (one equal to it by its lower position). Positions are Ix: int32_t when
// every position of the reduction and no_position fit (one register per vector on every set,
// whatever T), else int64_t.
template <typename Ix> inline constexpr Ix no_position = std::numeric_limits<Ix>::max();

// A column reduction's accumulators for N columns (kept in L1; ArgLanes loads W of them).
template <typename T, typename Ix, int64_t N> struct ArgColumns {
  alignas(64) T value[N];
  alignas(64) Ix index[N];
  alignas(64) Ix nan[N];  // floats only
  void clear(int64_t c, T identity) {
    value[c] = identity;
    index[c] = no_position<Ix>;
    nan[c] = no_position<Ix>;
  }
  int64_t position(int64_t c) const { return nan[c] != no_position<Ix> ? nan[c] : index[c]; }
};

template <typename T, typename Ix, typename I> struct ArgLanes {
  Vec<T, I> value;
  Vec<Ix, I> index;
  Vec<Ix, I> nan;  // floats only
  explicit ArgLanes(T identity) : value(identity), index(no_position<Ix>), nan(no_position<Ix>) {}
  // Columns [c, c + W) of a column reduction's accumulators.
  template <int64_t N> static ArgLanes loadu(const ArgColumns<T, Ix, N>& cols, int64_t c) {
    ArgLanes a(T(0));
    a.value = Vec<T, I>::loadu(cols.value + c);
    a.index = Vec<Ix, I>::loadu(cols.index + c);
    if constexpr (std::is_floating_point_v<T>) a.nan = Vec<Ix, I>::loadu(cols.nan + c);
    return a;
  }
  template <int64_t N> void storeu(ArgColumns<T, Ix, N>& cols, int64_t c) const {
    value.storeu(cols.value + c);
    index.storeu(cols.index + c);
    if constexpr (std::is_floating_point_v<T>) nan.storeu(cols.nan + c);
  }
};

template <typename T, typename Ix, typename I>
inline void arg_update(ArgLanes<T, Ix, I>& acc, Vec<T, I> v, Vec<Ix, I> at, bool want_max) {
  const Mask<I> above = want_max ? acc.value < v : v < acc.value;  // false for NaN
  const Mask<I> take = above | ((v == acc.value) & (at < acc.index));
  acc.index = where(take, at, acc.index);
  acc.value = where(above, v, acc.value);
  if constexpr (std::is_floating_point_v<T>) acc.nan = where(isnan(v) & (at < acc.nan), at, acc.nan);
}
template <typename T, typename Ix, typename I> inline void argmax_update(ArgLanes<T, Ix, I>& acc, Vec<T, I> v, Vec<Ix, I> at) {
  arg_update(acc, v, at, true);
}
template <typename T, typename Ix, typename I> inline void argmin_update(ArgLanes<T, Ix, I>& acc, Vec<T, I> v, Vec<Ix, I> at) {
  arg_update(acc, v, at, false);
}

// Column c alone (the columns of a block that fill no vector).
template <typename T, typename Ix, int64_t N>
inline void arg_update(ArgColumns<T, Ix, N>& cols, int64_t c, T v, int64_t at, bool want_max) {
  if (isnan(v)) {
    if (at < cols.nan[c]) cols.nan[c] = static_cast<Ix>(at);
  } else if (arg_beats(v, at, cols.value[c], static_cast<int64_t>(cols.index[c]), want_max)) {
    cols.value[c] = v;
    cols.index[c] = static_cast<Ix>(at);
  }
}
template <typename T, typename Ix, int64_t N> inline void argmax_update(ArgColumns<T, Ix, N>& cols, int64_t c, T v, int64_t at) {
  arg_update(cols, c, v, at, true);
}
template <typename T, typename Ix, int64_t N> inline void argmin_update(ArgColumns<T, Ix, N>& cols, int64_t c, T v, int64_t at) {
  arg_update(cols, c, v, at, false);
}

// The lanes folded into a scalar accumulator (which may hold a remainder's elements already).
template <typename T, typename Ix, typename I> inline void arg_combine(ArgAcc<T>& acc, const ArgLanes<T, Ix, I>& lanes, bool want_max) {
  T value[I::width];
  Ix at[I::width], nan_at[I::width];
  lanes.value.storeu(value);
  lanes.index.storeu(at);
  lanes.nan.storeu(nan_at);
  for (int l = 0; l < I::width; ++l) {
    ArgAcc<T> best{value[l], at[l]};
    if (nan_at[l] != no_position<Ix>) best = ArgAcc<T>{stax_rt::nan<T>(), nan_at[l]};
    else if (at[l] == no_position<Ix>) continue;
    if (acc.index < 0 || arg_beats(best.value, best.index, acc.value, acc.index, want_max)) acc = best;
  }
}
template <typename T, typename Ix, typename I> inline void argmax_combine(ArgAcc<T>& acc, const ArgLanes<T, Ix, I>& lanes) {
  arg_combine(acc, lanes, true);
}
template <typename T, typename Ix, typename I> inline void argmin_combine(ArgAcc<T>& acc, const ArgLanes<T, Ix, I>& lanes) {
  arg_combine(acc, lanes, false);
}

}  // namespace stax_rt
}  // namespace
#endif  // STAX_RT_VEC

// @section vec_transpose requires vec
#ifndef STAX_RT_VEC_TRANSPOSE
#define STAX_RT_VEC_TRANSPOSE
namespace {
namespace stax_rt {

// ---- tile transposes (the 2-D tiled form of §8.2) ----
// A kernel reading an operand transposed stages each tile of it through a local array:
// transpose_tile reads the operand's rows contiguously and writes the tile's rows, so that the
// kernel then reads the tile contiguously along its vector loop. The transposition is done in
// registers, TransposeBlock<T, I>::size x size elements at a time: 8 x 8 for 4-byte elements
// (float, int32_t) and 4 x 4 for 8-byte ones (double, int64_t) in 256-bit registers, for AVX2
// and AVX-512 alike (staging is bound by memory, not by shuffles), 4 x 4 of both for NEON; one
// element for the scalar set and for bool. The shuffles move bits: NaN payloads and signed zeros come through.

// dst[c * dst_stride + r] = src[r * src_stride + c] for r < rows, c < cols: whole blocks along
// each group of `size` source rows (each row read contiguously), the columns and rows left over
// one element at a time. Nothing else of dst is written.
template <typename I, typename T>
inline void transpose_tile(const T* src, int64_t src_stride, int64_t rows, int64_t cols, T* dst, int64_t dst_stride) {
  using Block = TransposeBlock<T, I>;
  constexpr int64_t b = Block::size;
  // Bounds computed, not carried from one loop into the next (which draws false
  // -Waggressive-loop-optimizations warnings when the sizes are constants).
  const int64_t block_rows = rows / b * b, block_cols = cols / b * b;
  for (int64_t r = 0; r < block_rows; r += b) {
    for (int64_t c = 0; c < block_cols; c += b)
      Block::run(src + r * src_stride + c, src_stride, dst + c * dst_stride + r, dst_stride);
    for (int64_t c = block_cols; c < cols; ++c)
      for (int64_t i = r; i < r + b; ++i) dst[c * dst_stride + i] = src[i * src_stride + c];
  }
  for (int64_t r = block_rows; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) dst[c * dst_stride + r] = src[r * src_stride + c];
}

// Asks for the cache lines of p[0, n) ahead of their use: the rows of the next tile, which the
// hardware prefetchers cannot guess (short runs far apart). A hint: it never faults and changes
// no value. Always inlined: GCC takes a function that only prefetches for a const one and drops
// its calls, whose results nothing uses.
template <typename T> __attribute__((always_inline)) inline void prefetch_span(const T* p, int64_t n) {
  const char* bytes = reinterpret_cast<const char*>(p);
  const int64_t size = n * static_cast<int64_t>(sizeof(T));
  for (int64_t i = 0; i < size; i += 64) __builtin_prefetch(bytes + i);
  if (size > 0) __builtin_prefetch(bytes + size - 1);
}

}  // namespace stax_rt
}  // namespace
#endif  // STAX_RT_VEC_TRANSPOSE
// @end-sections
