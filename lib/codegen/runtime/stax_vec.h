// The vector layer of generated code (design.md, "CPU code"; §8.1 of the design chapter):
// Vec<T, Isa> for T in {float, double, int32_t, int64_t} and Mask<Isa>, over AVX-512, AVX2 and
// plain scalars. Like stax_prelude.h this is real code, compiled and unit-tested on its own
// (test/codegen/vec_checks_*.cpp, built once per instruction set) and embedded into staxc at
// build time; a generated file carries only the sections it asks for (same marker rules as the
// prelude; these sections come after the prelude's and require some of them).
//
// Instruction sets are tag types: IsaAvx512 (needs -mavx512f -mavx512dq), IsaAvx2 (needs -mavx2
// -mfma), IsaScalar (always). Vec<T, I> exists only when the compiler targets I (the macros
// STAX_VEC_HAS_AVX512 / STAX_VEC_HAS_AVX2 say which). IsaNative is the widest one the compiler
// targets (so -march=native takes the widest the machine has), unless the translation unit
// defines one of STAX_ISA_AVX512, STAX_ISA_AVX2, STAX_ISA_SCALAR first: then IsaNative is that
// one (an #error when the compiler does not target it). A generated model that is pinned to a
// level names its tag directly (several models with different levels can share one translation
// unit) and checks `static_assert(stax_rt::isa_available<stax_rt::IsaAvx2>, "...")`.
//
// Lanes: every Vec<T, I> and Mask<I> of one instruction set has the same lane count
// I::width (16 for AVX-512, 8 for AVX2, 1 for scalar), whatever the element size: a float64
// vector of AVX2 is two registers. Conversions and masks therefore never change the lane count,
// and a kernel mixing dtypes steps by one width. A bool value is a Mask (bool tensors are bytes in
// memory: Mask::loadu/storeu convert).
//
// Semantics are the prelude's scalar ones (PyTorch 2.x eager), lane by lane, so a vectorized
// kernel and its scalar tail agree: integer arithmetic wraps; maximum/minimum propagate NaN and
// otherwise equal `a < b ? b : a` / `b < a ? b : a` bit for bit (signed zeros included); float to
// int conversion truncates, saturates and sends NaN to 0 (stax_rt::cast); comparisons are
// IEEE (NaN compares false except `!=`). Accuracy per function is stated where it is defined.
//
// Memory: load/store/stream need `p` aligned to one register (64 bytes for AVX-512, 32 for
// AVX2, the element's alignment for scalar); loadu/storeu do not. loadu(p, n) and storeu(p, n)
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
#include "stax_prelude.h"  // (not emitted) the sections these require, so this header compiles alone

// @section vec_config requires core math activation reduce intdiv
#ifndef STAX_RT_VEC_CONFIG
#define STAX_RT_VEC_CONFIG
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

#if defined(__AVX512F__) && defined(__AVX512DQ__)
#define STAX_VEC_HAS_AVX512 1
#else
#define STAX_VEC_HAS_AVX512 0
#endif
#if defined(__AVX2__) && defined(__FMA__)
#define STAX_VEC_HAS_AVX2 1
#else
#define STAX_VEC_HAS_AVX2 0
#endif

#if defined(STAX_ISA_AVX512) + defined(STAX_ISA_AVX2) + defined(STAX_ISA_SCALAR) > 1
#error "define at most one of STAX_ISA_AVX512, STAX_ISA_AVX2 and STAX_ISA_SCALAR"
#endif
#if defined(STAX_ISA_AVX512) && !STAX_VEC_HAS_AVX512
#error "STAX_ISA_AVX512 needs a compiler targeting AVX-512F and DQ (-mavx512f -mavx512dq, or -march=native on such a CPU)"
#endif
#if defined(STAX_ISA_AVX2) && !STAX_VEC_HAS_AVX2
#error "STAX_ISA_AVX2 needs a compiler targeting AVX2 and FMA (-mavx2 -mfma, or -march=native on such a CPU)"
#endif

namespace {
namespace stax_rt {

struct IsaScalar {
  static constexpr int width = 1;
  static constexpr const char* name = "scalar";
};
struct IsaAvx2 {
  static constexpr int width = 8;
  static constexpr const char* name = "avx2";
};
struct IsaAvx512 {
  static constexpr int width = 16;
  static constexpr const char* name = "avx512";
};

template <typename I> inline constexpr bool isa_available = std::is_same_v<I, IsaScalar>;
template <> inline constexpr bool isa_available<IsaAvx2> = STAX_VEC_HAS_AVX2 != 0;
template <> inline constexpr bool isa_available<IsaAvx512> = STAX_VEC_HAS_AVX512 != 0;

#if defined(STAX_ISA_SCALAR)
using IsaNative = IsaScalar;
#elif defined(STAX_ISA_AVX2)
using IsaNative = IsaAvx2;
#elif defined(STAX_ISA_AVX512) || STAX_VEC_HAS_AVX512
using IsaNative = IsaAvx512;
#elif STAX_VEC_HAS_AVX2
using IsaNative = IsaAvx2;
#else
using IsaNative = IsaScalar;
#endif

// I::width lanes of T (float, double, int32_t, int64_t), and I::width booleans.
template <typename T, typename I> struct Vec;
template <typename I> struct Mask;

// Selects a conversion overload: convert(Vec<From, I>, VecTag<To>) (see cast below).
template <typename T> struct VecTag {};

// A conversion done lane by lane with the prelude's scalar cast (where no instruction does it).
template <typename To, typename From, typename I> inline Vec<To, I> convert_lanes(Vec<From, I> x) {
  From a[I::width];
  To b[I::width];
  x.storeu(a);
  for (int i = 0; i < I::width; ++i) b[i] = cast<To>(a[i]);
  return Vec<To, I>::loadu(b);
}

}  // namespace stax_rt
}  // namespace
#endif  // STAX_RT_VEC_CONFIG

// @section vec_avx512 requires vec_config
#ifndef STAX_RT_VEC_AVX512
#define STAX_RT_VEC_AVX512
#if STAX_VEC_HAS_AVX512
namespace {
namespace stax_rt {

// All-lanes masks for the zero-masked forms of intrinsics that GCC 12 builds on
// _mm512_undefined_*() (even the 512-to-256-bit casts), which draws false -Wuninitialized
// warnings into every user; the unmasked and the all-ones zero-masked forms are the same
// instruction.
constexpr __mmask16 kAll16 = 0xFFFF;
constexpr __mmask8 kAll8 = 0xFF;

// 16 lanes: float and int32 in one zmm register, double and int64 in two (lanes 0-7, 8-15),
// a mask in one k register (bit i = lane i).
template <> struct Mask<IsaAvx512> {
  static constexpr int size = 16;
  __mmask16 k;
  Mask() = default;
  explicit Mask(__mmask16 bits) : k(bits) {}
  explicit Mask(bool b) : k(static_cast<__mmask16>(b ? 0xFFFF : 0)) {}
  // Lanes [0, n) true.
  static Mask first(int n) { return Mask(static_cast<__mmask16>(n >= 16 ? 0xFFFF : (1u << n) - 1u)); }
  static Mask loadu(const bool* p) {
    const __m512i w = _mm512_maskz_cvtepu8_epi32(kAll16, _mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
    return Mask(_mm512_test_epi32_mask(w, w));
  }
  static Mask loadu(const bool* p, int n) {
    unsigned char b[16] = {};
    std::memcpy(b, p, static_cast<std::size_t>(n));
    return loadu(reinterpret_cast<const bool*>(b));
  }
  void storeu(bool* p) const {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(p), _mm512_maskz_cvtepi32_epi8(kAll16, _mm512_maskz_set1_epi32(k, 1)));
  }
  void storeu(bool* p, int n) const {
    unsigned char b[16];
    storeu(reinterpret_cast<bool*>(b));
    std::memcpy(p, b, static_cast<std::size_t>(n));
  }
  bool lane(int i) const { return ((k >> i) & 1) != 0; }
  __mmask8 lo8() const { return static_cast<__mmask8>(k & 0xFF); }
  __mmask8 hi8() const { return static_cast<__mmask8>(k >> 8); }
  static Mask join8(__mmask8 lo, __mmask8 hi) { return Mask(static_cast<__mmask16>(lo | (hi << 8))); }
};

template <> struct Vec<float, IsaAvx512> {
  using value_type = float;
  using isa = IsaAvx512;
  static constexpr int size = 16;
  __m512 v;
  Vec() = default;
  explicit Vec(__m512 x) : v(x) {}
  explicit Vec(float x) : v(_mm512_set1_ps(x)) {}
  static Vec load(const float* p) { return Vec(_mm512_load_ps(p)); }
  static Vec loadu(const float* p) { return Vec(_mm512_loadu_ps(p)); }
  static Vec loadu(const float* p, int n) { return Vec(_mm512_maskz_loadu_ps(Mask<IsaAvx512>::first(n).k, p)); }
  static Vec loadu(const float* p, int n, float fill) {
    return Vec(_mm512_mask_loadu_ps(_mm512_set1_ps(fill), Mask<IsaAvx512>::first(n).k, p));
  }
  static Vec iota(float start) {
    return Vec(_mm512_add_ps(_mm512_set1_ps(start), _mm512_setr_ps(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15)));
  }
  void store(float* p) const { _mm512_store_ps(p, v); }
  void storeu(float* p) const { _mm512_storeu_ps(p, v); }
  void storeu(float* p, int n) const { _mm512_mask_storeu_ps(p, Mask<IsaAvx512>::first(n).k, v); }
  void stream(float* p) const { _mm512_stream_ps(p, v); }
  float lane(int i) const {
    float a[16];
    storeu(a);
    return a[i];
  }
};

template <> struct Vec<double, IsaAvx512> {
  using value_type = double;
  using isa = IsaAvx512;
  static constexpr int size = 16;
  __m512d lo, hi;
  Vec() = default;
  Vec(__m512d l, __m512d h) : lo(l), hi(h) {}
  explicit Vec(double x) : lo(_mm512_set1_pd(x)), hi(lo) {}
  static Vec load(const double* p) { return Vec(_mm512_load_pd(p), _mm512_load_pd(p + 8)); }
  static Vec loadu(const double* p) { return Vec(_mm512_loadu_pd(p), _mm512_loadu_pd(p + 8)); }
  static Vec loadu(const double* p, int n) {
    const Mask<IsaAvx512> m = Mask<IsaAvx512>::first(n);
    return Vec(_mm512_maskz_loadu_pd(m.lo8(), p), n > 8 ? _mm512_maskz_loadu_pd(m.hi8(), p + 8) : _mm512_setzero_pd());
  }
  static Vec loadu(const double* p, int n, double fill) {
    const Mask<IsaAvx512> m = Mask<IsaAvx512>::first(n);
    const __m512d f = _mm512_set1_pd(fill);
    return Vec(_mm512_mask_loadu_pd(f, m.lo8(), p), n > 8 ? _mm512_mask_loadu_pd(f, m.hi8(), p + 8) : f);
  }
  static Vec iota(double start) {
    const __m512d s = _mm512_set1_pd(start);
    return Vec(_mm512_add_pd(s, _mm512_setr_pd(0, 1, 2, 3, 4, 5, 6, 7)),
               _mm512_add_pd(s, _mm512_setr_pd(8, 9, 10, 11, 12, 13, 14, 15)));
  }
  void store(double* p) const {
    _mm512_store_pd(p, lo);
    _mm512_store_pd(p + 8, hi);
  }
  void storeu(double* p) const {
    _mm512_storeu_pd(p, lo);
    _mm512_storeu_pd(p + 8, hi);
  }
  void storeu(double* p, int n) const {
    const Mask<IsaAvx512> m = Mask<IsaAvx512>::first(n);
    _mm512_mask_storeu_pd(p, m.lo8(), lo);
    if (n > 8) _mm512_mask_storeu_pd(p + 8, m.hi8(), hi);
  }
  void stream(double* p) const {
    _mm512_stream_pd(p, lo);
    _mm512_stream_pd(p + 8, hi);
  }
  double lane(int i) const {
    double a[16];
    storeu(a);
    return a[i];
  }
};

template <> struct Vec<int32_t, IsaAvx512> {
  using value_type = int32_t;
  using isa = IsaAvx512;
  static constexpr int size = 16;
  __m512i v;
  Vec() = default;
  explicit Vec(__m512i x) : v(x) {}
  explicit Vec(int32_t x) : v(_mm512_set1_epi32(x)) {}
  static Vec load(const int32_t* p) { return Vec(_mm512_load_si512(p)); }
  static Vec loadu(const int32_t* p) { return Vec(_mm512_loadu_si512(p)); }
  static Vec loadu(const int32_t* p, int n) { return Vec(_mm512_maskz_loadu_epi32(Mask<IsaAvx512>::first(n).k, p)); }
  static Vec loadu(const int32_t* p, int n, int32_t fill) {
    return Vec(_mm512_mask_loadu_epi32(_mm512_set1_epi32(fill), Mask<IsaAvx512>::first(n).k, p));
  }
  static Vec iota(int32_t start) {
    return Vec(_mm512_add_epi32(_mm512_set1_epi32(start), _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15)));
  }
  void store(int32_t* p) const { _mm512_store_si512(p, v); }
  void storeu(int32_t* p) const { _mm512_storeu_si512(p, v); }
  void storeu(int32_t* p, int n) const { _mm512_mask_storeu_epi32(p, Mask<IsaAvx512>::first(n).k, v); }
  void stream(int32_t* p) const { _mm512_stream_si512(reinterpret_cast<__m512i*>(p), v); }
  int32_t lane(int i) const {
    int32_t a[16];
    storeu(a);
    return a[i];
  }
};

template <> struct Vec<int64_t, IsaAvx512> {
  using value_type = int64_t;
  using isa = IsaAvx512;
  static constexpr int size = 16;
  __m512i lo, hi;
  Vec() = default;
  Vec(__m512i l, __m512i h) : lo(l), hi(h) {}
  explicit Vec(int64_t x) : lo(_mm512_set1_epi64(x)), hi(lo) {}
  static Vec load(const int64_t* p) { return Vec(_mm512_load_si512(p), _mm512_load_si512(p + 8)); }
  static Vec loadu(const int64_t* p) { return Vec(_mm512_loadu_si512(p), _mm512_loadu_si512(p + 8)); }
  static Vec loadu(const int64_t* p, int n) {
    const Mask<IsaAvx512> m = Mask<IsaAvx512>::first(n);
    return Vec(_mm512_maskz_loadu_epi64(m.lo8(), p),
               n > 8 ? _mm512_maskz_loadu_epi64(m.hi8(), p + 8) : _mm512_setzero_si512());
  }
  static Vec loadu(const int64_t* p, int n, int64_t fill) {
    const Mask<IsaAvx512> m = Mask<IsaAvx512>::first(n);
    const __m512i f = _mm512_set1_epi64(fill);
    return Vec(_mm512_mask_loadu_epi64(f, m.lo8(), p), n > 8 ? _mm512_mask_loadu_epi64(f, m.hi8(), p + 8) : f);
  }
  static Vec iota(int64_t start) {
    const __m512i s = _mm512_set1_epi64(start);
    return Vec(_mm512_add_epi64(s, _mm512_setr_epi64(0, 1, 2, 3, 4, 5, 6, 7)),
               _mm512_add_epi64(s, _mm512_setr_epi64(8, 9, 10, 11, 12, 13, 14, 15)));
  }
  void store(int64_t* p) const {
    _mm512_store_si512(p, lo);
    _mm512_store_si512(p + 8, hi);
  }
  void storeu(int64_t* p) const {
    _mm512_storeu_si512(p, lo);
    _mm512_storeu_si512(p + 8, hi);
  }
  void storeu(int64_t* p, int n) const {
    const Mask<IsaAvx512> m = Mask<IsaAvx512>::first(n);
    _mm512_mask_storeu_epi64(p, m.lo8(), lo);
    if (n > 8) _mm512_mask_storeu_epi64(p + 8, m.hi8(), hi);
  }
  void stream(int64_t* p) const {
    _mm512_stream_si512(reinterpret_cast<__m512i*>(p), lo);
    _mm512_stream_si512(reinterpret_cast<__m512i*>(p + 8), hi);
  }
  int64_t lane(int i) const {
    int64_t a[16];
    storeu(a);
    return a[i];
  }
};

using Avx512M = Mask<IsaAvx512>;
using Avx512F = Vec<float, IsaAvx512>;
using Avx512D = Vec<double, IsaAvx512>;
using Avx512I = Vec<int32_t, IsaAvx512>;
using Avx512L = Vec<int64_t, IsaAvx512>;

// ---- masks ----
inline Avx512M operator&(Avx512M a, Avx512M b) { return Avx512M(static_cast<__mmask16>(a.k & b.k)); }
inline Avx512M operator|(Avx512M a, Avx512M b) { return Avx512M(static_cast<__mmask16>(a.k | b.k)); }
inline Avx512M operator^(Avx512M a, Avx512M b) { return Avx512M(static_cast<__mmask16>(a.k ^ b.k)); }
inline Avx512M operator~(Avx512M a) { return Avx512M(static_cast<__mmask16>(~a.k)); }
inline bool any(Avx512M m) { return m.k != 0; }
inline bool all(Avx512M m) { return m.k == 0xFFFF; }

// ---- float32 ----
inline Avx512F operator+(Avx512F a, Avx512F b) { return Avx512F(_mm512_add_ps(a.v, b.v)); }
inline Avx512F operator-(Avx512F a, Avx512F b) { return Avx512F(_mm512_sub_ps(a.v, b.v)); }
inline Avx512F operator*(Avx512F a, Avx512F b) { return Avx512F(_mm512_mul_ps(a.v, b.v)); }
inline Avx512F operator/(Avx512F a, Avx512F b) { return Avx512F(_mm512_div_ps(a.v, b.v)); }
inline Avx512F operator-(Avx512F a) { return Avx512F(_mm512_xor_ps(a.v, _mm512_set1_ps(-0.0f))); }
inline Avx512F fma(Avx512F a, Avx512F b, Avx512F c) { return Avx512F(_mm512_fmadd_ps(a.v, b.v, c.v)); }
inline Avx512F abs(Avx512F a) { return Avx512F(_mm512_abs_ps(a.v)); }
inline Avx512F sqrt(Avx512F a) { return Avx512F(_mm512_maskz_sqrt_ps(kAll16, a.v)); }
inline Avx512F floor(Avx512F a) { return Avx512F(_mm512_maskz_roundscale_ps(kAll16, a.v, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC)); }
inline Avx512F ceil(Avx512F a) { return Avx512F(_mm512_maskz_roundscale_ps(kAll16, a.v, _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC)); }
inline Avx512F trunc(Avx512F a) { return Avx512F(_mm512_maskz_roundscale_ps(kAll16, a.v, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC)); }
inline Avx512F round(Avx512F a) { return Avx512F(_mm512_maskz_roundscale_ps(kAll16, a.v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)); }
inline Avx512M operator==(Avx512F a, Avx512F b) { return Avx512M(_mm512_cmp_ps_mask(a.v, b.v, _CMP_EQ_OQ)); }
inline Avx512M operator!=(Avx512F a, Avx512F b) { return Avx512M(_mm512_cmp_ps_mask(a.v, b.v, _CMP_NEQ_UQ)); }
inline Avx512M operator<(Avx512F a, Avx512F b) { return Avx512M(_mm512_cmp_ps_mask(a.v, b.v, _CMP_LT_OQ)); }
inline Avx512M operator<=(Avx512F a, Avx512F b) { return Avx512M(_mm512_cmp_ps_mask(a.v, b.v, _CMP_LE_OQ)); }
inline Avx512M operator>(Avx512F a, Avx512F b) { return Avx512M(_mm512_cmp_ps_mask(a.v, b.v, _CMP_GT_OQ)); }
inline Avx512M operator>=(Avx512F a, Avx512F b) { return Avx512M(_mm512_cmp_ps_mask(a.v, b.v, _CMP_GE_OQ)); }
inline Avx512M isnan(Avx512F a) { return Avx512M(_mm512_cmp_ps_mask(a.v, a.v, _CMP_UNORD_Q)); }
inline Avx512F where(Avx512M m, Avx512F a, Avx512F b) { return Avx512F(_mm512_mask_blend_ps(m.k, b.v, a.v)); }
// vmaxps(b, a) is `b > a ? b : a` and gives a when either is NaN; b is then patched in where b
// alone is NaN.
inline Avx512F maximum(Avx512F a, Avx512F b) {
  const __mmask16 b_only = static_cast<__mmask16>(isnan(b).k & ~isnan(a).k);
  return Avx512F(_mm512_mask_mov_ps(_mm512_maskz_max_ps(kAll16, b.v, a.v), b_only, b.v));
}
inline Avx512F minimum(Avx512F a, Avx512F b) {
  const __mmask16 b_only = static_cast<__mmask16>(isnan(b).k & ~isnan(a).k);
  return Avx512F(_mm512_mask_mov_ps(_mm512_maskz_min_ps(kAll16, b.v, a.v), b_only, b.v));
}
// Pairwise, halves first (GCC's _mm512_reduce_add_* would draw the warnings above).
inline float reduce_sum(Avx512F a) {
  const __m256 t = _mm256_add_ps(_mm512_extractf32x8_ps(a.v, 0), _mm512_extractf32x8_ps(a.v, 1));
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(t), _mm256_extractf128_ps(t, 1));
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  s = _mm_add_ss(s, _mm_shuffle_ps(s, s, 1));
  return _mm_cvtss_f32(s);
}

// ---- float64 ----
inline Avx512D operator+(Avx512D a, Avx512D b) { return Avx512D(_mm512_add_pd(a.lo, b.lo), _mm512_add_pd(a.hi, b.hi)); }
inline Avx512D operator-(Avx512D a, Avx512D b) { return Avx512D(_mm512_sub_pd(a.lo, b.lo), _mm512_sub_pd(a.hi, b.hi)); }
inline Avx512D operator*(Avx512D a, Avx512D b) { return Avx512D(_mm512_mul_pd(a.lo, b.lo), _mm512_mul_pd(a.hi, b.hi)); }
inline Avx512D operator/(Avx512D a, Avx512D b) { return Avx512D(_mm512_div_pd(a.lo, b.lo), _mm512_div_pd(a.hi, b.hi)); }
inline Avx512D operator-(Avx512D a) {
  const __m512d s = _mm512_set1_pd(-0.0);
  return Avx512D(_mm512_xor_pd(a.lo, s), _mm512_xor_pd(a.hi, s));
}
inline Avx512D fma(Avx512D a, Avx512D b, Avx512D c) {
  return Avx512D(_mm512_fmadd_pd(a.lo, b.lo, c.lo), _mm512_fmadd_pd(a.hi, b.hi, c.hi));
}
inline Avx512D abs(Avx512D a) { return Avx512D(_mm512_abs_pd(a.lo), _mm512_abs_pd(a.hi)); }
inline Avx512D sqrt(Avx512D a) { return Avx512D(_mm512_maskz_sqrt_pd(kAll8, a.lo), _mm512_maskz_sqrt_pd(kAll8, a.hi)); }
#define STAX_VEC_ROUND_PD(NAME, MODE)                                                  \
  inline Avx512D NAME(Avx512D a) {                                                     \
    return Avx512D(_mm512_maskz_roundscale_pd(kAll8, a.lo, MODE | _MM_FROUND_NO_EXC),               \
                   _mm512_maskz_roundscale_pd(kAll8, a.hi, MODE | _MM_FROUND_NO_EXC));              \
  }
STAX_VEC_ROUND_PD(floor, _MM_FROUND_TO_NEG_INF)
STAX_VEC_ROUND_PD(ceil, _MM_FROUND_TO_POS_INF)
STAX_VEC_ROUND_PD(trunc, _MM_FROUND_TO_ZERO)
STAX_VEC_ROUND_PD(round, _MM_FROUND_TO_NEAREST_INT)
#undef STAX_VEC_ROUND_PD
#define STAX_VEC_CMP_PD(OP, PRED)                                                              \
  inline Avx512M operator OP(Avx512D a, Avx512D b) {                                           \
    return Avx512M::join8(_mm512_cmp_pd_mask(a.lo, b.lo, PRED), _mm512_cmp_pd_mask(a.hi, b.hi, PRED)); \
  }
STAX_VEC_CMP_PD(==, _CMP_EQ_OQ)
STAX_VEC_CMP_PD(!=, _CMP_NEQ_UQ)
STAX_VEC_CMP_PD(<, _CMP_LT_OQ)
STAX_VEC_CMP_PD(<=, _CMP_LE_OQ)
STAX_VEC_CMP_PD(>, _CMP_GT_OQ)
STAX_VEC_CMP_PD(>=, _CMP_GE_OQ)
#undef STAX_VEC_CMP_PD
inline Avx512M isnan(Avx512D a) {
  return Avx512M::join8(_mm512_cmp_pd_mask(a.lo, a.lo, _CMP_UNORD_Q), _mm512_cmp_pd_mask(a.hi, a.hi, _CMP_UNORD_Q));
}
inline Avx512D where(Avx512M m, Avx512D a, Avx512D b) {
  return Avx512D(_mm512_mask_blend_pd(m.lo8(), b.lo, a.lo), _mm512_mask_blend_pd(m.hi8(), b.hi, a.hi));
}
inline Avx512D maximum(Avx512D a, Avx512D b) {
  const Avx512M b_only = isnan(b) & ~isnan(a);
  return Avx512D(_mm512_mask_mov_pd(_mm512_maskz_max_pd(kAll8, b.lo, a.lo), b_only.lo8(), b.lo),
                 _mm512_mask_mov_pd(_mm512_maskz_max_pd(kAll8, b.hi, a.hi), b_only.hi8(), b.hi));
}
inline Avx512D minimum(Avx512D a, Avx512D b) {
  const Avx512M b_only = isnan(b) & ~isnan(a);
  return Avx512D(_mm512_mask_mov_pd(_mm512_maskz_min_pd(kAll8, b.lo, a.lo), b_only.lo8(), b.lo),
                 _mm512_mask_mov_pd(_mm512_maskz_min_pd(kAll8, b.hi, a.hi), b_only.hi8(), b.hi));
}
inline double reduce_sum(Avx512D a) {
  const __m512d t = _mm512_add_pd(a.lo, a.hi);
  const __m256d u = _mm256_add_pd(_mm512_maskz_extractf64x4_pd(kAll8, t, 0), _mm512_maskz_extractf64x4_pd(kAll8, t, 1));
  __m128d s = _mm_add_pd(_mm256_castpd256_pd128(u), _mm256_extractf128_pd(u, 1));
  s = _mm_add_sd(s, _mm_unpackhi_pd(s, s));
  return _mm_cvtsd_f64(s);
}

// ---- int32 (wrapping) ----
inline Avx512I operator+(Avx512I a, Avx512I b) { return Avx512I(_mm512_add_epi32(a.v, b.v)); }
inline Avx512I operator-(Avx512I a, Avx512I b) { return Avx512I(_mm512_sub_epi32(a.v, b.v)); }
inline Avx512I operator*(Avx512I a, Avx512I b) { return Avx512I(_mm512_mullo_epi32(a.v, b.v)); }
inline Avx512I operator-(Avx512I a) { return Avx512I(_mm512_sub_epi32(_mm512_setzero_si512(), a.v)); }
inline Avx512I operator&(Avx512I a, Avx512I b) { return Avx512I(_mm512_and_si512(a.v, b.v)); }
inline Avx512I operator|(Avx512I a, Avx512I b) { return Avx512I(_mm512_or_si512(a.v, b.v)); }
inline Avx512I operator^(Avx512I a, Avx512I b) { return Avx512I(_mm512_xor_si512(a.v, b.v)); }
inline Avx512I operator~(Avx512I a) { return Avx512I(_mm512_xor_si512(a.v, _mm512_set1_epi32(-1))); }
inline Avx512I abs(Avx512I a) { return Avx512I(_mm512_maskz_abs_epi32(kAll16, a.v)); }
inline Avx512I maximum(Avx512I a, Avx512I b) { return Avx512I(_mm512_maskz_max_epi32(kAll16, a.v, b.v)); }
inline Avx512I minimum(Avx512I a, Avx512I b) { return Avx512I(_mm512_maskz_min_epi32(kAll16, a.v, b.v)); }
inline Avx512M operator==(Avx512I a, Avx512I b) { return Avx512M(_mm512_cmpeq_epi32_mask(a.v, b.v)); }
inline Avx512M operator!=(Avx512I a, Avx512I b) { return Avx512M(_mm512_cmpneq_epi32_mask(a.v, b.v)); }
inline Avx512M operator<(Avx512I a, Avx512I b) { return Avx512M(_mm512_cmplt_epi32_mask(a.v, b.v)); }
inline Avx512M operator<=(Avx512I a, Avx512I b) { return Avx512M(_mm512_cmple_epi32_mask(a.v, b.v)); }
inline Avx512M operator>(Avx512I a, Avx512I b) { return Avx512M(_mm512_cmpgt_epi32_mask(a.v, b.v)); }
inline Avx512M operator>=(Avx512I a, Avx512I b) { return Avx512M(_mm512_cmpge_epi32_mask(a.v, b.v)); }
inline Avx512I where(Avx512M m, Avx512I a, Avx512I b) { return Avx512I(_mm512_mask_blend_epi32(m.k, b.v, a.v)); }

// ---- int64 (wrapping) ----
#define STAX_VEC_L_BINARY(OP, INTRIN) \
  inline Avx512L operator OP(Avx512L a, Avx512L b) { return Avx512L(INTRIN(a.lo, b.lo), INTRIN(a.hi, b.hi)); }
STAX_VEC_L_BINARY(+, _mm512_add_epi64)
STAX_VEC_L_BINARY(-, _mm512_sub_epi64)
STAX_VEC_L_BINARY(*, _mm512_mullo_epi64)
STAX_VEC_L_BINARY(&, _mm512_and_si512)
STAX_VEC_L_BINARY(|, _mm512_or_si512)
STAX_VEC_L_BINARY(^, _mm512_xor_si512)
#undef STAX_VEC_L_BINARY
inline Avx512L operator-(Avx512L a) { return Avx512L(int64_t(0)) - a; }
inline Avx512L operator~(Avx512L a) { return a ^ Avx512L(int64_t(-1)); }
inline Avx512L abs(Avx512L a) { return Avx512L(_mm512_maskz_abs_epi64(kAll8, a.lo), _mm512_maskz_abs_epi64(kAll8, a.hi)); }
inline Avx512L maximum(Avx512L a, Avx512L b) { return Avx512L(_mm512_maskz_max_epi64(kAll8, a.lo, b.lo), _mm512_maskz_max_epi64(kAll8, a.hi, b.hi)); }
inline Avx512L minimum(Avx512L a, Avx512L b) { return Avx512L(_mm512_maskz_min_epi64(kAll8, a.lo, b.lo), _mm512_maskz_min_epi64(kAll8, a.hi, b.hi)); }
#define STAX_VEC_L_CMP(OP, INTRIN) \
  inline Avx512M operator OP(Avx512L a, Avx512L b) { return Avx512M::join8(INTRIN(a.lo, b.lo), INTRIN(a.hi, b.hi)); }
STAX_VEC_L_CMP(==, _mm512_cmpeq_epi64_mask)
STAX_VEC_L_CMP(!=, _mm512_cmpneq_epi64_mask)
STAX_VEC_L_CMP(<, _mm512_cmplt_epi64_mask)
STAX_VEC_L_CMP(<=, _mm512_cmple_epi64_mask)
STAX_VEC_L_CMP(>, _mm512_cmpgt_epi64_mask)
STAX_VEC_L_CMP(>=, _mm512_cmpge_epi64_mask)
#undef STAX_VEC_L_CMP
inline Avx512L where(Avx512M m, Avx512L a, Avx512L b) {
  return Avx512L(_mm512_mask_blend_epi64(m.lo8(), b.lo, a.lo), _mm512_mask_blend_epi64(m.hi8(), b.hi, a.hi));
}

// ---- masked loads (the `masked` bodies of cat and pad): lanes where m is false are 0 and
// their addresses are never read, so they may lie outside the buffer ----
inline Avx512F load_masked(const float* p, Avx512M m) { return Avx512F(_mm512_maskz_loadu_ps(m.k, p)); }
inline Avx512D load_masked(const double* p, Avx512M m) {
  return Avx512D(_mm512_maskz_loadu_pd(m.lo8(), p), _mm512_maskz_loadu_pd(m.hi8(), p + 8));
}
inline Avx512I load_masked(const int32_t* p, Avx512M m) { return Avx512I(_mm512_maskz_loadu_epi32(m.k, p)); }
inline Avx512L load_masked(const int64_t* p, Avx512M m) {
  return Avx512L(_mm512_maskz_loadu_epi64(m.lo8(), p), _mm512_maskz_loadu_epi64(m.hi8(), p + 8));
}

// ---- conversions (cast<To>(v) picks these; semantics of stax_rt::cast) ----
inline __m256 avx512_lo_ps(__m512 v) { return _mm512_extractf32x8_ps(v, 0); }
inline __m256 avx512_hi_ps(__m512 v) { return _mm512_extractf32x8_ps(v, 1); }
inline __m256i avx512_lo_si(__m512i v) { return _mm512_maskz_extracti64x4_epi64(kAll8, v, 0); }
inline __m256i avx512_hi_si(__m512i v) { return _mm512_maskz_extracti64x4_epi64(kAll8, v, 1); }
inline __m512 avx512_join_ps(__m256 lo, __m256 hi) { return _mm512_insertf32x8(_mm512_castps256_ps512(lo), hi, 1); }
inline __m512i avx512_join_si(__m256i lo, __m256i hi) { return _mm512_maskz_inserti64x4(kAll8, _mm512_castsi256_si512(lo), hi, 1); }

inline Avx512D convert(Avx512F x, VecTag<double>) {
  return Avx512D(_mm512_maskz_cvtps_pd(kAll8, avx512_lo_ps(x.v)), _mm512_maskz_cvtps_pd(kAll8, avx512_hi_ps(x.v)));
}
inline Avx512F convert(Avx512D x, VecTag<float>) {
  return Avx512F(avx512_join_ps(_mm512_maskz_cvtpd_ps(kAll8, x.lo), _mm512_maskz_cvtpd_ps(kAll8, x.hi)));
}
inline Avx512F convert(Avx512I x, VecTag<float>) { return Avx512F(_mm512_maskz_cvtepi32_ps(kAll16, x.v)); }
inline Avx512D convert(Avx512I x, VecTag<double>) {
  return Avx512D(_mm512_maskz_cvtepi32_pd(kAll8, avx512_lo_si(x.v)), _mm512_maskz_cvtepi32_pd(kAll8, avx512_hi_si(x.v)));
}
inline Avx512L convert(Avx512I x, VecTag<int64_t>) {
  return Avx512L(_mm512_maskz_cvtepi32_epi64(kAll8, avx512_lo_si(x.v)), _mm512_maskz_cvtepi32_epi64(kAll8, avx512_hi_si(x.v)));
}
inline Avx512I convert(Avx512L x, VecTag<int32_t>) {
  return Avx512I(avx512_join_si(_mm512_maskz_cvtepi64_epi32(kAll8, x.lo), _mm512_maskz_cvtepi64_epi32(kAll8, x.hi)));
}
inline Avx512F convert(Avx512L x, VecTag<float>) {
  return Avx512F(avx512_join_ps(_mm512_cvtepi64_ps(x.lo), _mm512_cvtepi64_ps(x.hi)));
}
inline Avx512D convert(Avx512L x, VecTag<double>) { return Avx512D(_mm512_cvtepi64_pd(x.lo), _mm512_cvtepi64_pd(x.hi)); }
// Float to int: the instructions truncate and give INT_MIN for NaN and out-of-range values, which
// is already the saturated value below the range; lanes at or above 2^31 (2^63) become INT_MAX
// and NaN lanes 0.
inline Avx512I convert(Avx512F x, VecTag<int32_t>) {
  __m512i r = _mm512_maskz_cvttps_epi32(kAll16, x.v);
  r = _mm512_mask_mov_epi32(r, (x >= Avx512F(2147483648.0f)).k, _mm512_set1_epi32(std::numeric_limits<int32_t>::max()));
  return Avx512I(_mm512_maskz_mov_epi32((~isnan(x)).k, r));
}
inline Avx512I convert(Avx512D x, VecTag<int32_t>) {
  __m512i r = avx512_join_si(_mm512_maskz_cvttpd_epi32(kAll8, x.lo), _mm512_maskz_cvttpd_epi32(kAll8, x.hi));
  r = _mm512_mask_mov_epi32(r, (x >= Avx512D(2147483648.0)).k, _mm512_set1_epi32(std::numeric_limits<int32_t>::max()));
  return Avx512I(_mm512_maskz_mov_epi32((~isnan(x)).k, r));
}
inline Avx512L convert(Avx512D x, VecTag<int64_t>) {
  const Avx512M big = x >= Avx512D(9223372036854775808.0), keep = ~isnan(x);
  const __m512i max = _mm512_set1_epi64(std::numeric_limits<int64_t>::max());
  const __m512i lo = _mm512_mask_mov_epi64(_mm512_cvttpd_epi64(x.lo), big.lo8(), max);
  const __m512i hi = _mm512_mask_mov_epi64(_mm512_cvttpd_epi64(x.hi), big.hi8(), max);
  return Avx512L(_mm512_maskz_mov_epi64(keep.lo8(), lo), _mm512_maskz_mov_epi64(keep.hi8(), hi));
}
inline Avx512L convert(Avx512F x, VecTag<int64_t>) { return convert(convert(x, VecTag<double>()), VecTag<int64_t>()); }

// ---- bits of float32 lanes (the inline float32 exp and erf of the `vec` section) ----
inline Avx512I bit_cast_i32(Avx512F x) { return Avx512I(_mm512_castps_si512(x.v)); }
inline Avx512F bit_cast_f32(Avx512I x) { return Avx512F(_mm512_castsi512_ps(x.v)); }
inline Avx512I shift_left(Avx512I x, int n) { return Avx512I(_mm512_maskz_slli_epi32(kAll16, x.v, static_cast<unsigned>(n))); }
inline Avx512I shift_right_arith(Avx512I x, int n) { return Avx512I(_mm512_maskz_srai_epi32(kAll16, x.v, static_cast<unsigned>(n))); }

// ---- transcendentals: SLEEF 3.5's AVX-512F functions, called directly (no dispatch); float32
// exp and erf are the `vec` section's inline ones ----
#define STAX_VEC_SLEEF1_D(NAME, FN_D) \
  inline Avx512D NAME(Avx512D x) { return Avx512D(FN_D(x.lo), FN_D(x.hi)); }
#define STAX_VEC_SLEEF1(NAME, FN_F, FN_D)                                                   \
  inline Avx512F NAME(Avx512F x) { return Avx512F(FN_F(x.v)); }                             \
  STAX_VEC_SLEEF1_D(NAME, FN_D)
#define STAX_VEC_SLEEF2(NAME, FN_F, FN_D)                                                   \
  inline Avx512F NAME(Avx512F x, Avx512F y) { return Avx512F(FN_F(x.v, y.v)); }             \
  inline Avx512D NAME(Avx512D x, Avx512D y) { return Avx512D(FN_D(x.lo, y.lo), FN_D(x.hi, y.hi)); }
STAX_VEC_SLEEF1_D(exp, Sleef_expd8_u10avx512f)
STAX_VEC_SLEEF1(exp2, Sleef_exp2f16_u10avx512f, Sleef_exp2d8_u10avx512f)
STAX_VEC_SLEEF1(expm1, Sleef_expm1f16_u10avx512f, Sleef_expm1d8_u10avx512f)
STAX_VEC_SLEEF1(log, Sleef_logf16_u10avx512f, Sleef_logd8_u10avx512f)
STAX_VEC_SLEEF1(log2, Sleef_log2f16_u10avx512f, Sleef_log2d8_u10avx512f)
STAX_VEC_SLEEF1(log10, Sleef_log10f16_u10avx512f, Sleef_log10d8_u10avx512f)
STAX_VEC_SLEEF1(sleef_log1p, Sleef_log1pf16_u10avx512f, Sleef_log1pd8_u10avx512f)
STAX_VEC_SLEEF1(sin, Sleef_sinf16_u10avx512f, Sleef_sind8_u10avx512f)
STAX_VEC_SLEEF1(cos, Sleef_cosf16_u10avx512f, Sleef_cosd8_u10avx512f)
STAX_VEC_SLEEF1(tan, Sleef_tanf16_u10avx512f, Sleef_tand8_u10avx512f)
STAX_VEC_SLEEF1(asin, Sleef_asinf16_u10avx512f, Sleef_asind8_u10avx512f)
STAX_VEC_SLEEF1(acos, Sleef_acosf16_u10avx512f, Sleef_acosd8_u10avx512f)
STAX_VEC_SLEEF1(atan, Sleef_atanf16_u10avx512f, Sleef_atand8_u10avx512f)
STAX_VEC_SLEEF1(sinh, Sleef_sinhf16_u10avx512f, Sleef_sinhd8_u10avx512f)
STAX_VEC_SLEEF1(cosh, Sleef_coshf16_u10avx512f, Sleef_coshd8_u10avx512f)
STAX_VEC_SLEEF1_D(tanh, Sleef_tanhd8_u10avx512f)
STAX_VEC_SLEEF1_D(erf, Sleef_erfd8_u10avx512f)
STAX_VEC_SLEEF1(erfc, Sleef_erfcf16_u15avx512f, Sleef_erfcd8_u15avx512f)
STAX_VEC_SLEEF2(atan2, Sleef_atan2f16_u10avx512f, Sleef_atan2d8_u10avx512f)
STAX_VEC_SLEEF2(pow, Sleef_powf16_u10avx512f, Sleef_powd8_u10avx512f)
#undef STAX_VEC_SLEEF1
#undef STAX_VEC_SLEEF1_D
#undef STAX_VEC_SLEEF2

}  // namespace stax_rt
}  // namespace
#endif  // STAX_VEC_HAS_AVX512
#endif  // STAX_RT_VEC_AVX512

// @section vec_avx2 requires vec_config
#ifndef STAX_RT_VEC_AVX2
#define STAX_RT_VEC_AVX2
#if STAX_VEC_HAS_AVX2
namespace {
namespace stax_rt {

// 8 lanes: float and int32 in one ymm register, double and int64 in two (lanes 0-3, 4-7), a
// mask in one ymm register of 8 x 32-bit lanes (all ones or zero).
inline __m256i avx2_iota32() { return _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7); }
// Lanes [0, n) all ones.
inline __m256i avx2_first32(int n) { return _mm256_cmpgt_epi32(_mm256_set1_epi32(n), avx2_iota32()); }
// The 32-bit lanes 0-3 (4-7) of a mask widened to 64-bit lanes.
inline __m256i avx2_lo64(__m256i m) { return _mm256_cvtepi32_epi64(_mm256_castsi256_si128(m)); }
inline __m256i avx2_hi64(__m256i m) { return _mm256_cvtepi32_epi64(_mm256_extracti128_si256(m, 1)); }
// Two vectors of 4 x 64-bit lanes -> 8 x 32-bit lanes, keeping the low half of each lane (masks
// stay masks, int64 wraps to int32).
inline __m256i avx2_narrow64(__m256i lo, __m256i hi) {
  const __m256i idx = _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7);
  return _mm256_permute2x128_si256(_mm256_permutevar8x32_epi32(lo, idx), _mm256_permutevar8x32_epi32(hi, idx), 0x20);
}

template <> struct Mask<IsaAvx2> {
  static constexpr int size = 8;
  __m256i m;
  Mask() = default;
  explicit Mask(__m256i bits) : m(bits) {}
  explicit Mask(bool b) : m(_mm256_set1_epi32(b ? -1 : 0)) {}
  static Mask first(int n) { return Mask(avx2_first32(n)); }
  static Mask loadu(const bool* p) {
    const __m256i w = _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p)));
    return Mask(_mm256_cmpgt_epi32(w, _mm256_setzero_si256()));
  }
  static Mask loadu(const bool* p, int n) {
    unsigned char b[8] = {};
    std::memcpy(b, p, static_cast<std::size_t>(n));
    return loadu(reinterpret_cast<const bool*>(b));
  }
  void storeu(bool* p) const {
    const __m256i one = _mm256_and_si256(m, _mm256_set1_epi32(1));
    const __m128i w16 = _mm_packs_epi32(_mm256_castsi256_si128(one), _mm256_extracti128_si256(one, 1));
    _mm_storel_epi64(reinterpret_cast<__m128i*>(p), _mm_packs_epi16(w16, w16));
  }
  void storeu(bool* p, int n) const {
    unsigned char b[8];
    storeu(reinterpret_cast<bool*>(b));
    std::memcpy(p, b, static_cast<std::size_t>(n));
  }
  bool lane(int i) const { return ((_mm256_movemask_ps(_mm256_castsi256_ps(m)) >> i) & 1) != 0; }
  __m256i lo64() const { return avx2_lo64(m); }
  __m256i hi64() const { return avx2_hi64(m); }
  static Mask join64(__m256i lo, __m256i hi) { return Mask(avx2_narrow64(lo, hi)); }
};

template <> struct Vec<float, IsaAvx2> {
  using value_type = float;
  using isa = IsaAvx2;
  static constexpr int size = 8;
  __m256 v;
  Vec() = default;
  explicit Vec(__m256 x) : v(x) {}
  explicit Vec(float x) : v(_mm256_set1_ps(x)) {}
  static Vec load(const float* p) { return Vec(_mm256_load_ps(p)); }
  static Vec loadu(const float* p) { return Vec(_mm256_loadu_ps(p)); }
  static Vec loadu(const float* p, int n) { return Vec(_mm256_maskload_ps(p, avx2_first32(n))); }
  static Vec loadu(const float* p, int n, float fill) {
    const __m256i m = avx2_first32(n);
    return Vec(_mm256_blendv_ps(_mm256_set1_ps(fill), _mm256_maskload_ps(p, m), _mm256_castsi256_ps(m)));
  }
  static Vec iota(float start) {
    return Vec(_mm256_add_ps(_mm256_set1_ps(start), _mm256_setr_ps(0, 1, 2, 3, 4, 5, 6, 7)));
  }
  void store(float* p) const { _mm256_store_ps(p, v); }
  void storeu(float* p) const { _mm256_storeu_ps(p, v); }
  void storeu(float* p, int n) const { _mm256_maskstore_ps(p, avx2_first32(n), v); }
  void stream(float* p) const { _mm256_stream_ps(p, v); }
  float lane(int i) const {
    float a[8];
    storeu(a);
    return a[i];
  }
};

template <> struct Vec<double, IsaAvx2> {
  using value_type = double;
  using isa = IsaAvx2;
  static constexpr int size = 8;
  __m256d lo, hi;
  Vec() = default;
  Vec(__m256d l, __m256d h) : lo(l), hi(h) {}
  explicit Vec(double x) : lo(_mm256_set1_pd(x)), hi(lo) {}
  static Vec load(const double* p) { return Vec(_mm256_load_pd(p), _mm256_load_pd(p + 4)); }
  static Vec loadu(const double* p) { return Vec(_mm256_loadu_pd(p), _mm256_loadu_pd(p + 4)); }
  static Vec loadu(const double* p, int n) {
    const __m256i m = avx2_first32(n);
    return Vec(_mm256_maskload_pd(p, avx2_lo64(m)), n > 4 ? _mm256_maskload_pd(p + 4, avx2_hi64(m)) : _mm256_setzero_pd());
  }
  static Vec loadu(const double* p, int n, double fill) {
    const __m256i m = avx2_first32(n);
    const __m256d f = _mm256_set1_pd(fill);
    const __m256i ml = avx2_lo64(m), mh = avx2_hi64(m);
    const __m256d l = _mm256_blendv_pd(f, _mm256_maskload_pd(p, ml), _mm256_castsi256_pd(ml));
    const __m256d h = n > 4 ? _mm256_blendv_pd(f, _mm256_maskload_pd(p + 4, mh), _mm256_castsi256_pd(mh)) : f;
    return Vec(l, h);
  }
  static Vec iota(double start) {
    const __m256d s = _mm256_set1_pd(start);
    return Vec(_mm256_add_pd(s, _mm256_setr_pd(0, 1, 2, 3)), _mm256_add_pd(s, _mm256_setr_pd(4, 5, 6, 7)));
  }
  void store(double* p) const {
    _mm256_store_pd(p, lo);
    _mm256_store_pd(p + 4, hi);
  }
  void storeu(double* p) const {
    _mm256_storeu_pd(p, lo);
    _mm256_storeu_pd(p + 4, hi);
  }
  void storeu(double* p, int n) const {
    const __m256i m = avx2_first32(n);
    _mm256_maskstore_pd(p, avx2_lo64(m), lo);
    if (n > 4) _mm256_maskstore_pd(p + 4, avx2_hi64(m), hi);
  }
  void stream(double* p) const {
    _mm256_stream_pd(p, lo);
    _mm256_stream_pd(p + 4, hi);
  }
  double lane(int i) const {
    double a[8];
    storeu(a);
    return a[i];
  }
};

template <> struct Vec<int32_t, IsaAvx2> {
  using value_type = int32_t;
  using isa = IsaAvx2;
  static constexpr int size = 8;
  __m256i v;
  Vec() = default;
  explicit Vec(__m256i x) : v(x) {}
  explicit Vec(int32_t x) : v(_mm256_set1_epi32(x)) {}
  static Vec load(const int32_t* p) { return Vec(_mm256_load_si256(reinterpret_cast<const __m256i*>(p))); }
  static Vec loadu(const int32_t* p) { return Vec(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p))); }
  static Vec loadu(const int32_t* p, int n) { return Vec(_mm256_maskload_epi32(reinterpret_cast<const int*>(p), avx2_first32(n))); }
  static Vec loadu(const int32_t* p, int n, int32_t fill) {
    const __m256i m = avx2_first32(n);
    return Vec(_mm256_blendv_epi8(_mm256_set1_epi32(fill), _mm256_maskload_epi32(reinterpret_cast<const int*>(p), m), m));
  }
  static Vec iota(int32_t start) { return Vec(_mm256_add_epi32(_mm256_set1_epi32(start), avx2_iota32())); }
  void store(int32_t* p) const { _mm256_store_si256(reinterpret_cast<__m256i*>(p), v); }
  void storeu(int32_t* p) const { _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), v); }
  void storeu(int32_t* p, int n) const { _mm256_maskstore_epi32(reinterpret_cast<int*>(p), avx2_first32(n), v); }
  void stream(int32_t* p) const { _mm256_stream_si256(reinterpret_cast<__m256i*>(p), v); }
  int32_t lane(int i) const {
    int32_t a[8];
    storeu(a);
    return a[i];
  }
};

template <> struct Vec<int64_t, IsaAvx2> {
  using value_type = int64_t;
  using isa = IsaAvx2;
  static constexpr int size = 8;
  __m256i lo, hi;
  Vec() = default;
  Vec(__m256i l, __m256i h) : lo(l), hi(h) {}
  explicit Vec(int64_t x) : lo(_mm256_set1_epi64x(x)), hi(lo) {}
  static const __m256i* cp(const int64_t* p) { return reinterpret_cast<const __m256i*>(p); }
  static __m256i* mp(int64_t* p) { return reinterpret_cast<__m256i*>(p); }
  static const long long* cq(const int64_t* p) { return reinterpret_cast<const long long*>(p); }
  static long long* mq(int64_t* p) { return reinterpret_cast<long long*>(p); }
  static Vec load(const int64_t* p) { return Vec(_mm256_load_si256(cp(p)), _mm256_load_si256(cp(p + 4))); }
  static Vec loadu(const int64_t* p) { return Vec(_mm256_loadu_si256(cp(p)), _mm256_loadu_si256(cp(p + 4))); }
  static Vec loadu(const int64_t* p, int n) {
    const __m256i m = avx2_first32(n);
    return Vec(_mm256_maskload_epi64(cq(p), avx2_lo64(m)),
               n > 4 ? _mm256_maskload_epi64(cq(p + 4), avx2_hi64(m)) : _mm256_setzero_si256());
  }
  static Vec loadu(const int64_t* p, int n, int64_t fill) {
    const __m256i m = avx2_first32(n), f = _mm256_set1_epi64x(fill);
    const __m256i ml = avx2_lo64(m), mh = avx2_hi64(m);
    const __m256i l = _mm256_blendv_epi8(f, _mm256_maskload_epi64(cq(p), ml), ml);
    const __m256i h = n > 4 ? _mm256_blendv_epi8(f, _mm256_maskload_epi64(cq(p + 4), mh), mh) : f;
    return Vec(l, h);
  }
  static Vec iota(int64_t start) {
    const __m256i s = _mm256_set1_epi64x(start);
    return Vec(_mm256_add_epi64(s, _mm256_setr_epi64x(0, 1, 2, 3)), _mm256_add_epi64(s, _mm256_setr_epi64x(4, 5, 6, 7)));
  }
  void store(int64_t* p) const {
    _mm256_store_si256(mp(p), lo);
    _mm256_store_si256(mp(p + 4), hi);
  }
  void storeu(int64_t* p) const {
    _mm256_storeu_si256(mp(p), lo);
    _mm256_storeu_si256(mp(p + 4), hi);
  }
  void storeu(int64_t* p, int n) const {
    const __m256i m = avx2_first32(n);
    _mm256_maskstore_epi64(mq(p), avx2_lo64(m), lo);
    if (n > 4) _mm256_maskstore_epi64(mq(p + 4), avx2_hi64(m), hi);
  }
  void stream(int64_t* p) const {
    _mm256_stream_si256(mp(p), lo);
    _mm256_stream_si256(mp(p + 4), hi);
  }
  int64_t lane(int i) const {
    int64_t a[8];
    storeu(a);
    return a[i];
  }
};

using Avx2M = Mask<IsaAvx2>;
using Avx2F = Vec<float, IsaAvx2>;
using Avx2D = Vec<double, IsaAvx2>;
using Avx2I = Vec<int32_t, IsaAvx2>;
using Avx2L = Vec<int64_t, IsaAvx2>;

// ---- masks ----
inline Avx2M operator&(Avx2M a, Avx2M b) { return Avx2M(_mm256_and_si256(a.m, b.m)); }
inline Avx2M operator|(Avx2M a, Avx2M b) { return Avx2M(_mm256_or_si256(a.m, b.m)); }
inline Avx2M operator^(Avx2M a, Avx2M b) { return Avx2M(_mm256_xor_si256(a.m, b.m)); }
inline Avx2M operator~(Avx2M a) { return Avx2M(_mm256_xor_si256(a.m, _mm256_set1_epi32(-1))); }
inline bool any(Avx2M m) { return !_mm256_testz_si256(m.m, m.m); }
inline bool all(Avx2M m) { return _mm256_movemask_epi8(m.m) == -1; }

// ---- float32 ----
inline Avx2F operator+(Avx2F a, Avx2F b) { return Avx2F(_mm256_add_ps(a.v, b.v)); }
inline Avx2F operator-(Avx2F a, Avx2F b) { return Avx2F(_mm256_sub_ps(a.v, b.v)); }
inline Avx2F operator*(Avx2F a, Avx2F b) { return Avx2F(_mm256_mul_ps(a.v, b.v)); }
inline Avx2F operator/(Avx2F a, Avx2F b) { return Avx2F(_mm256_div_ps(a.v, b.v)); }
inline Avx2F operator-(Avx2F a) { return Avx2F(_mm256_xor_ps(a.v, _mm256_set1_ps(-0.0f))); }
inline Avx2F fma(Avx2F a, Avx2F b, Avx2F c) { return Avx2F(_mm256_fmadd_ps(a.v, b.v, c.v)); }
inline Avx2F abs(Avx2F a) { return Avx2F(_mm256_andnot_ps(_mm256_set1_ps(-0.0f), a.v)); }
inline Avx2F sqrt(Avx2F a) { return Avx2F(_mm256_sqrt_ps(a.v)); }
inline Avx2F floor(Avx2F a) { return Avx2F(_mm256_round_ps(a.v, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC)); }
inline Avx2F ceil(Avx2F a) { return Avx2F(_mm256_round_ps(a.v, _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC)); }
inline Avx2F trunc(Avx2F a) { return Avx2F(_mm256_round_ps(a.v, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC)); }
inline Avx2F round(Avx2F a) { return Avx2F(_mm256_round_ps(a.v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)); }
#define STAX_VEC_CMP_PS(OP, PRED) \
  inline Avx2M operator OP(Avx2F a, Avx2F b) { return Avx2M(_mm256_castps_si256(_mm256_cmp_ps(a.v, b.v, PRED))); }
STAX_VEC_CMP_PS(==, _CMP_EQ_OQ)
STAX_VEC_CMP_PS(!=, _CMP_NEQ_UQ)
STAX_VEC_CMP_PS(<, _CMP_LT_OQ)
STAX_VEC_CMP_PS(<=, _CMP_LE_OQ)
STAX_VEC_CMP_PS(>, _CMP_GT_OQ)
STAX_VEC_CMP_PS(>=, _CMP_GE_OQ)
#undef STAX_VEC_CMP_PS
inline Avx2M isnan(Avx2F a) { return Avx2M(_mm256_castps_si256(_mm256_cmp_ps(a.v, a.v, _CMP_UNORD_Q))); }
inline Avx2F where(Avx2M m, Avx2F a, Avx2F b) { return Avx2F(_mm256_blendv_ps(b.v, a.v, _mm256_castsi256_ps(m.m))); }
// vmaxps(b, a) is `b > a ? b : a` and gives a when either is NaN; b is then blended in where b
// alone is NaN.
inline Avx2F maximum(Avx2F a, Avx2F b) {
  const __m256 b_only = _mm256_andnot_ps(_mm256_cmp_ps(a.v, a.v, _CMP_UNORD_Q), _mm256_cmp_ps(b.v, b.v, _CMP_UNORD_Q));
  return Avx2F(_mm256_blendv_ps(_mm256_max_ps(b.v, a.v), b.v, b_only));
}
inline Avx2F minimum(Avx2F a, Avx2F b) {
  const __m256 b_only = _mm256_andnot_ps(_mm256_cmp_ps(a.v, a.v, _CMP_UNORD_Q), _mm256_cmp_ps(b.v, b.v, _CMP_UNORD_Q));
  return Avx2F(_mm256_blendv_ps(_mm256_min_ps(b.v, a.v), b.v, b_only));
}
// Pairwise: ((l0+l4)+(l2+l6)) + ((l1+l5)+(l3+l7)).
inline float reduce_sum(Avx2F a) {
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(a.v), _mm256_extractf128_ps(a.v, 1));
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  s = _mm_add_ss(s, _mm_shuffle_ps(s, s, 1));
  return _mm_cvtss_f32(s);
}

// ---- float64 ----
#define STAX_VEC_D_BINARY(OP, INTRIN) \
  inline Avx2D operator OP(Avx2D a, Avx2D b) { return Avx2D(INTRIN(a.lo, b.lo), INTRIN(a.hi, b.hi)); }
STAX_VEC_D_BINARY(+, _mm256_add_pd)
STAX_VEC_D_BINARY(-, _mm256_sub_pd)
STAX_VEC_D_BINARY(*, _mm256_mul_pd)
STAX_VEC_D_BINARY(/, _mm256_div_pd)
#undef STAX_VEC_D_BINARY
inline Avx2D operator-(Avx2D a) {
  const __m256d s = _mm256_set1_pd(-0.0);
  return Avx2D(_mm256_xor_pd(a.lo, s), _mm256_xor_pd(a.hi, s));
}
inline Avx2D fma(Avx2D a, Avx2D b, Avx2D c) {
  return Avx2D(_mm256_fmadd_pd(a.lo, b.lo, c.lo), _mm256_fmadd_pd(a.hi, b.hi, c.hi));
}
inline Avx2D abs(Avx2D a) {
  const __m256d s = _mm256_set1_pd(-0.0);
  return Avx2D(_mm256_andnot_pd(s, a.lo), _mm256_andnot_pd(s, a.hi));
}
inline Avx2D sqrt(Avx2D a) { return Avx2D(_mm256_sqrt_pd(a.lo), _mm256_sqrt_pd(a.hi)); }
#define STAX_VEC_ROUND_PD(NAME, MODE)                                                                            \
  inline Avx2D NAME(Avx2D a) {                                                                                   \
    return Avx2D(_mm256_round_pd(a.lo, MODE | _MM_FROUND_NO_EXC), _mm256_round_pd(a.hi, MODE | _MM_FROUND_NO_EXC)); \
  }
STAX_VEC_ROUND_PD(floor, _MM_FROUND_TO_NEG_INF)
STAX_VEC_ROUND_PD(ceil, _MM_FROUND_TO_POS_INF)
STAX_VEC_ROUND_PD(trunc, _MM_FROUND_TO_ZERO)
STAX_VEC_ROUND_PD(round, _MM_FROUND_TO_NEAREST_INT)
#undef STAX_VEC_ROUND_PD
#define STAX_VEC_CMP_PD(OP, PRED)                                                            \
  inline Avx2M operator OP(Avx2D a, Avx2D b) {                                               \
    return Avx2M::join64(_mm256_castpd_si256(_mm256_cmp_pd(a.lo, b.lo, PRED)),               \
                         _mm256_castpd_si256(_mm256_cmp_pd(a.hi, b.hi, PRED)));              \
  }
STAX_VEC_CMP_PD(==, _CMP_EQ_OQ)
STAX_VEC_CMP_PD(!=, _CMP_NEQ_UQ)
STAX_VEC_CMP_PD(<, _CMP_LT_OQ)
STAX_VEC_CMP_PD(<=, _CMP_LE_OQ)
STAX_VEC_CMP_PD(>, _CMP_GT_OQ)
STAX_VEC_CMP_PD(>=, _CMP_GE_OQ)
#undef STAX_VEC_CMP_PD
inline Avx2M isnan(Avx2D a) { return a != a; }
inline Avx2D where(Avx2M m, Avx2D a, Avx2D b) {
  return Avx2D(_mm256_blendv_pd(b.lo, a.lo, _mm256_castsi256_pd(m.lo64())),
               _mm256_blendv_pd(b.hi, a.hi, _mm256_castsi256_pd(m.hi64())));
}
inline __m256d avx2_maximum_pd(__m256d a, __m256d b) {
  const __m256d b_only = _mm256_andnot_pd(_mm256_cmp_pd(a, a, _CMP_UNORD_Q), _mm256_cmp_pd(b, b, _CMP_UNORD_Q));
  return _mm256_blendv_pd(_mm256_max_pd(b, a), b, b_only);
}
inline __m256d avx2_minimum_pd(__m256d a, __m256d b) {
  const __m256d b_only = _mm256_andnot_pd(_mm256_cmp_pd(a, a, _CMP_UNORD_Q), _mm256_cmp_pd(b, b, _CMP_UNORD_Q));
  return _mm256_blendv_pd(_mm256_min_pd(b, a), b, b_only);
}
inline Avx2D maximum(Avx2D a, Avx2D b) { return Avx2D(avx2_maximum_pd(a.lo, b.lo), avx2_maximum_pd(a.hi, b.hi)); }
inline Avx2D minimum(Avx2D a, Avx2D b) { return Avx2D(avx2_minimum_pd(a.lo, b.lo), avx2_minimum_pd(a.hi, b.hi)); }
// ((l0+l4)+(l2+l6)) + ((l1+l5)+(l3+l7)).
inline double reduce_sum(Avx2D a) {
  const __m256d t = _mm256_add_pd(a.lo, a.hi);
  __m128d s = _mm_add_pd(_mm256_castpd256_pd128(t), _mm256_extractf128_pd(t, 1));
  s = _mm_add_sd(s, _mm_unpackhi_pd(s, s));
  return _mm_cvtsd_f64(s);
}

// ---- int32 (wrapping) ----
inline Avx2I operator+(Avx2I a, Avx2I b) { return Avx2I(_mm256_add_epi32(a.v, b.v)); }
inline Avx2I operator-(Avx2I a, Avx2I b) { return Avx2I(_mm256_sub_epi32(a.v, b.v)); }
inline Avx2I operator*(Avx2I a, Avx2I b) { return Avx2I(_mm256_mullo_epi32(a.v, b.v)); }
inline Avx2I operator-(Avx2I a) { return Avx2I(_mm256_sub_epi32(_mm256_setzero_si256(), a.v)); }
inline Avx2I operator&(Avx2I a, Avx2I b) { return Avx2I(_mm256_and_si256(a.v, b.v)); }
inline Avx2I operator|(Avx2I a, Avx2I b) { return Avx2I(_mm256_or_si256(a.v, b.v)); }
inline Avx2I operator^(Avx2I a, Avx2I b) { return Avx2I(_mm256_xor_si256(a.v, b.v)); }
inline Avx2I operator~(Avx2I a) { return Avx2I(_mm256_xor_si256(a.v, _mm256_set1_epi32(-1))); }
inline Avx2I abs(Avx2I a) { return Avx2I(_mm256_abs_epi32(a.v)); }
inline Avx2I maximum(Avx2I a, Avx2I b) { return Avx2I(_mm256_max_epi32(a.v, b.v)); }
inline Avx2I minimum(Avx2I a, Avx2I b) { return Avx2I(_mm256_min_epi32(a.v, b.v)); }
inline Avx2M operator==(Avx2I a, Avx2I b) { return Avx2M(_mm256_cmpeq_epi32(a.v, b.v)); }
inline Avx2M operator>(Avx2I a, Avx2I b) { return Avx2M(_mm256_cmpgt_epi32(a.v, b.v)); }
inline Avx2M operator!=(Avx2I a, Avx2I b) { return ~(a == b); }
inline Avx2M operator<(Avx2I a, Avx2I b) { return b > a; }
inline Avx2M operator<=(Avx2I a, Avx2I b) { return ~(a > b); }
inline Avx2M operator>=(Avx2I a, Avx2I b) { return ~(b > a); }
inline Avx2I where(Avx2M m, Avx2I a, Avx2I b) { return Avx2I(_mm256_blendv_epi8(b.v, a.v, m.m)); }

// ---- int64 (wrapping) ----
// The low 64 bits of a product: lo*lo + ((hi*lo + lo*hi) << 32), from 32x32->64 multiplies.
inline __m256i avx2_mullo_epi64(__m256i a, __m256i b) {
  const __m256i cross = _mm256_add_epi64(_mm256_mul_epu32(_mm256_srli_epi64(a, 32), b),
                                         _mm256_mul_epu32(a, _mm256_srli_epi64(b, 32)));
  return _mm256_add_epi64(_mm256_mul_epu32(a, b), _mm256_slli_epi64(cross, 32));
}
#define STAX_VEC_L_BINARY(OP, INTRIN) \
  inline Avx2L operator OP(Avx2L a, Avx2L b) { return Avx2L(INTRIN(a.lo, b.lo), INTRIN(a.hi, b.hi)); }
STAX_VEC_L_BINARY(+, _mm256_add_epi64)
STAX_VEC_L_BINARY(-, _mm256_sub_epi64)
STAX_VEC_L_BINARY(*, avx2_mullo_epi64)
STAX_VEC_L_BINARY(&, _mm256_and_si256)
STAX_VEC_L_BINARY(|, _mm256_or_si256)
STAX_VEC_L_BINARY(^, _mm256_xor_si256)
#undef STAX_VEC_L_BINARY
inline Avx2L operator-(Avx2L a) { return Avx2L(int64_t(0)) - a; }
inline Avx2L operator~(Avx2L a) { return a ^ Avx2L(int64_t(-1)); }
inline Avx2M operator==(Avx2L a, Avx2L b) { return Avx2M::join64(_mm256_cmpeq_epi64(a.lo, b.lo), _mm256_cmpeq_epi64(a.hi, b.hi)); }
inline Avx2M operator>(Avx2L a, Avx2L b) { return Avx2M::join64(_mm256_cmpgt_epi64(a.lo, b.lo), _mm256_cmpgt_epi64(a.hi, b.hi)); }
inline Avx2M operator!=(Avx2L a, Avx2L b) { return ~(a == b); }
inline Avx2M operator<(Avx2L a, Avx2L b) { return b > a; }
inline Avx2M operator<=(Avx2L a, Avx2L b) { return ~(a > b); }
inline Avx2M operator>=(Avx2L a, Avx2L b) { return ~(b > a); }
inline Avx2L where(Avx2M m, Avx2L a, Avx2L b) {
  return Avx2L(_mm256_blendv_epi8(b.lo, a.lo, m.lo64()), _mm256_blendv_epi8(b.hi, a.hi, m.hi64()));
}
inline Avx2L abs(Avx2L a) {
  const __m256i z = _mm256_setzero_si256();
  return Avx2L(_mm256_blendv_epi8(a.lo, _mm256_sub_epi64(z, a.lo), _mm256_cmpgt_epi64(z, a.lo)),
               _mm256_blendv_epi8(a.hi, _mm256_sub_epi64(z, a.hi), _mm256_cmpgt_epi64(z, a.hi)));
}
inline Avx2L maximum(Avx2L a, Avx2L b) {
  return Avx2L(_mm256_blendv_epi8(a.lo, b.lo, _mm256_cmpgt_epi64(b.lo, a.lo)),
               _mm256_blendv_epi8(a.hi, b.hi, _mm256_cmpgt_epi64(b.hi, a.hi)));
}
inline Avx2L minimum(Avx2L a, Avx2L b) {
  return Avx2L(_mm256_blendv_epi8(a.lo, b.lo, _mm256_cmpgt_epi64(a.lo, b.lo)),
               _mm256_blendv_epi8(a.hi, b.hi, _mm256_cmpgt_epi64(a.hi, b.hi)));
}

// ---- masked loads (the `masked` bodies of cat and pad): lanes where m is false are 0 and
// their addresses are never read (vmaskmov does not fault on them) ----
inline Avx2F load_masked(const float* p, Avx2M m) { return Avx2F(_mm256_maskload_ps(p, m.m)); }
inline Avx2D load_masked(const double* p, Avx2M m) {
  return Avx2D(_mm256_maskload_pd(p, m.lo64()), _mm256_maskload_pd(p + 4, m.hi64()));
}
inline Avx2I load_masked(const int32_t* p, Avx2M m) {
  return Avx2I(_mm256_maskload_epi32(reinterpret_cast<const int*>(p), m.m));
}
inline Avx2L load_masked(const int64_t* p, Avx2M m) {
  return Avx2L(_mm256_maskload_epi64(Avx2L::cq(p), m.lo64()), _mm256_maskload_epi64(Avx2L::cq(p + 4), m.hi64()));
}

// ---- conversions (cast<To>(v) picks these; semantics of stax_rt::cast) ----
inline Avx2D convert(Avx2F x, VecTag<double>) {
  return Avx2D(_mm256_cvtps_pd(_mm256_castps256_ps128(x.v)), _mm256_cvtps_pd(_mm256_extractf128_ps(x.v, 1)));
}
inline Avx2F convert(Avx2D x, VecTag<float>) { return Avx2F(_mm256_set_m128(_mm256_cvtpd_ps(x.hi), _mm256_cvtpd_ps(x.lo))); }
inline Avx2F convert(Avx2I x, VecTag<float>) { return Avx2F(_mm256_cvtepi32_ps(x.v)); }
inline Avx2D convert(Avx2I x, VecTag<double>) {
  return Avx2D(_mm256_cvtepi32_pd(_mm256_castsi256_si128(x.v)), _mm256_cvtepi32_pd(_mm256_extracti128_si256(x.v, 1)));
}
inline Avx2L convert(Avx2I x, VecTag<int64_t>) { return Avx2L(avx2_lo64(x.v), avx2_hi64(x.v)); }
inline Avx2I convert(Avx2L x, VecTag<int32_t>) { return Avx2I(avx2_narrow64(x.lo, x.hi)); }
// Float to int32: vcvttps2dq gives INT_MIN for NaN and out-of-range lanes (the saturated value
// below the range); lanes at or above 2^31 become INT_MAX and NaN lanes 0.
inline Avx2I convert(Avx2F x, VecTag<int32_t>) {
  __m256i r = _mm256_cvttps_epi32(x.v);
  r = _mm256_blendv_epi8(r, _mm256_set1_epi32(std::numeric_limits<int32_t>::max()), (x >= Avx2F(2147483648.0f)).m);
  return Avx2I(_mm256_andnot_si256(isnan(x).m, r));
}
inline Avx2I convert(Avx2D x, VecTag<int32_t>) {
  __m256i r = _mm256_set_m128i(_mm256_cvttpd_epi32(x.hi), _mm256_cvttpd_epi32(x.lo));
  r = _mm256_blendv_epi8(r, _mm256_set1_epi32(std::numeric_limits<int32_t>::max()), (x >= Avx2D(2147483648.0)).m);
  return Avx2I(_mm256_andnot_si256(isnan(x).m, r));
}
// No AVX2 instruction converts between int64 and floating point: lane by lane.
inline Avx2L convert(Avx2F x, VecTag<int64_t>) { return convert_lanes<int64_t>(x); }
inline Avx2L convert(Avx2D x, VecTag<int64_t>) { return convert_lanes<int64_t>(x); }
inline Avx2F convert(Avx2L x, VecTag<float>) { return convert_lanes<float>(x); }
inline Avx2D convert(Avx2L x, VecTag<double>) { return convert_lanes<double>(x); }

// ---- bits of float32 lanes (the inline float32 exp and erf of the `vec` section) ----
inline Avx2I bit_cast_i32(Avx2F x) { return Avx2I(_mm256_castps_si256(x.v)); }
inline Avx2F bit_cast_f32(Avx2I x) { return Avx2F(_mm256_castsi256_ps(x.v)); }
inline Avx2I shift_left(Avx2I x, int n) { return Avx2I(_mm256_slli_epi32(x.v, n)); }
inline Avx2I shift_right_arith(Avx2I x, int n) { return Avx2I(_mm256_srai_epi32(x.v, n)); }

// ---- transcendentals: SLEEF 3.5's AVX2 functions, called directly (no dispatch); float32 exp
// and erf are the `vec` section's inline ones ----
#define STAX_VEC_SLEEF1_D(NAME, FN_D) \
  inline Avx2D NAME(Avx2D x) { return Avx2D(FN_D(x.lo), FN_D(x.hi)); }
#define STAX_VEC_SLEEF1(NAME, FN_F, FN_D)                                    \
  inline Avx2F NAME(Avx2F x) { return Avx2F(FN_F(x.v)); }                    \
  STAX_VEC_SLEEF1_D(NAME, FN_D)
#define STAX_VEC_SLEEF2(NAME, FN_F, FN_D)                                    \
  inline Avx2F NAME(Avx2F x, Avx2F y) { return Avx2F(FN_F(x.v, y.v)); }      \
  inline Avx2D NAME(Avx2D x, Avx2D y) { return Avx2D(FN_D(x.lo, y.lo), FN_D(x.hi, y.hi)); }
STAX_VEC_SLEEF1_D(exp, Sleef_expd4_u10avx2)
STAX_VEC_SLEEF1(exp2, Sleef_exp2f8_u10avx2, Sleef_exp2d4_u10avx2)
STAX_VEC_SLEEF1(expm1, Sleef_expm1f8_u10avx2, Sleef_expm1d4_u10avx2)
STAX_VEC_SLEEF1(log, Sleef_logf8_u10avx2, Sleef_logd4_u10avx2)
STAX_VEC_SLEEF1(log2, Sleef_log2f8_u10avx2, Sleef_log2d4_u10avx2)
STAX_VEC_SLEEF1(log10, Sleef_log10f8_u10avx2, Sleef_log10d4_u10avx2)
STAX_VEC_SLEEF1(sleef_log1p, Sleef_log1pf8_u10avx2, Sleef_log1pd4_u10avx2)
STAX_VEC_SLEEF1(sin, Sleef_sinf8_u10avx2, Sleef_sind4_u10avx2)
STAX_VEC_SLEEF1(cos, Sleef_cosf8_u10avx2, Sleef_cosd4_u10avx2)
STAX_VEC_SLEEF1(tan, Sleef_tanf8_u10avx2, Sleef_tand4_u10avx2)
STAX_VEC_SLEEF1(asin, Sleef_asinf8_u10avx2, Sleef_asind4_u10avx2)
STAX_VEC_SLEEF1(acos, Sleef_acosf8_u10avx2, Sleef_acosd4_u10avx2)
STAX_VEC_SLEEF1(atan, Sleef_atanf8_u10avx2, Sleef_atand4_u10avx2)
STAX_VEC_SLEEF1(sinh, Sleef_sinhf8_u10avx2, Sleef_sinhd4_u10avx2)
STAX_VEC_SLEEF1(cosh, Sleef_coshf8_u10avx2, Sleef_coshd4_u10avx2)
STAX_VEC_SLEEF1_D(tanh, Sleef_tanhd4_u10avx2)
STAX_VEC_SLEEF1_D(erf, Sleef_erfd4_u10avx2)
STAX_VEC_SLEEF1(erfc, Sleef_erfcf8_u15avx2, Sleef_erfcd4_u15avx2)
STAX_VEC_SLEEF2(atan2, Sleef_atan2f8_u10avx2, Sleef_atan2d4_u10avx2)
STAX_VEC_SLEEF2(pow, Sleef_powf8_u10avx2, Sleef_powd4_u10avx2)
#undef STAX_VEC_SLEEF1
#undef STAX_VEC_SLEEF1_D
#undef STAX_VEC_SLEEF2

}  // namespace stax_rt
}  // namespace
#endif  // STAX_VEC_HAS_AVX2
#endif  // STAX_RT_VEC_AVX2

// @section vec_scalar requires vec_config
#ifndef STAX_RT_VEC_SCALAR
#define STAX_RT_VEC_SCALAR
namespace {
namespace stax_rt {

// One lane: the prelude's scalar functions behind the Vec interface, so that a kernel written
// against Vec<T, I> also builds without SIMD (and `--isa scalar` gives plain scalar loops).
template <> struct Mask<IsaScalar> {
  static constexpr int size = 1;
  bool b;
  Mask() = default;
  explicit Mask(bool x) : b(x) {}
  static Mask first(int n) { return Mask(n > 0); }
  static Mask loadu(const bool* p) { return Mask(*p); }
  static Mask loadu(const bool* p, int n) { return Mask(n > 0 && *p); }
  void storeu(bool* p) const { *p = b; }
  void storeu(bool* p, int n) const {
    if (n > 0) *p = b;
  }
  bool lane(int) const { return b; }
};

template <typename T> struct Vec<T, IsaScalar> {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double> || std::is_same_v<T, int32_t> ||
                    std::is_same_v<T, int64_t>,
                "Vec holds float, double, int32_t or int64_t (bool values are Masks)");
  using value_type = T;
  using isa = IsaScalar;
  static constexpr int size = 1;
  T v;
  Vec() = default;
  explicit Vec(T x) : v(x) {}
  static Vec load(const T* p) { return Vec(*p); }
  static Vec loadu(const T* p) { return Vec(*p); }
  static Vec loadu(const T* p, int n) { return Vec(n > 0 ? *p : T(0)); }
  static Vec loadu(const T* p, int n, T fill) { return Vec(n > 0 ? *p : fill); }
  static Vec iota(T start) { return Vec(start); }
  void store(T* p) const { *p = v; }
  void storeu(T* p) const { *p = v; }
  void storeu(T* p, int n) const {
    if (n > 0) *p = v;
  }
  void stream(T* p) const { *p = v; }
  T lane(int) const { return v; }
};

template <typename T> using ScalarV = Vec<T, IsaScalar>;
using ScalarM = Mask<IsaScalar>;

inline ScalarM operator&(ScalarM a, ScalarM b) { return ScalarM(a.b && b.b); }
inline ScalarM operator|(ScalarM a, ScalarM b) { return ScalarM(a.b || b.b); }
inline ScalarM operator^(ScalarM a, ScalarM b) { return ScalarM(a.b != b.b); }
inline ScalarM operator~(ScalarM a) { return ScalarM(!a.b); }
inline bool any(ScalarM m) { return m.b; }
inline bool all(ScalarM m) { return m.b; }

template <typename T> inline ScalarV<T> operator+(ScalarV<T> a, ScalarV<T> b) { return ScalarV<T>(add(a.v, b.v)); }
template <typename T> inline ScalarV<T> operator-(ScalarV<T> a, ScalarV<T> b) { return ScalarV<T>(sub(a.v, b.v)); }
template <typename T> inline ScalarV<T> operator*(ScalarV<T> a, ScalarV<T> b) { return ScalarV<T>(mul(a.v, b.v)); }
template <typename T> inline ScalarV<T> operator/(ScalarV<T> a, ScalarV<T> b) {
  static_assert(std::is_floating_point_v<T>, "integer division takes the error flag (div_trunc)");
  return ScalarV<T>(a.v / b.v);
}
template <typename T> inline ScalarV<T> operator-(ScalarV<T> a) { return ScalarV<T>(neg(a.v)); }
template <typename T> inline ScalarV<T> operator&(ScalarV<T> a, ScalarV<T> b) { return ScalarV<T>(static_cast<T>(a.v & b.v)); }
template <typename T> inline ScalarV<T> operator|(ScalarV<T> a, ScalarV<T> b) { return ScalarV<T>(static_cast<T>(a.v | b.v)); }
template <typename T> inline ScalarV<T> operator^(ScalarV<T> a, ScalarV<T> b) { return ScalarV<T>(static_cast<T>(a.v ^ b.v)); }
template <typename T> inline ScalarV<T> operator~(ScalarV<T> a) { return ScalarV<T>(static_cast<T>(~a.v)); }
template <typename T> inline ScalarM operator==(ScalarV<T> a, ScalarV<T> b) { return ScalarM(a.v == b.v); }
template <typename T> inline ScalarM operator!=(ScalarV<T> a, ScalarV<T> b) { return ScalarM(a.v != b.v); }
template <typename T> inline ScalarM operator<(ScalarV<T> a, ScalarV<T> b) { return ScalarM(a.v < b.v); }
template <typename T> inline ScalarM operator<=(ScalarV<T> a, ScalarV<T> b) { return ScalarM(a.v <= b.v); }
template <typename T> inline ScalarM operator>(ScalarV<T> a, ScalarV<T> b) { return ScalarM(a.v > b.v); }
template <typename T> inline ScalarM operator>=(ScalarV<T> a, ScalarV<T> b) { return ScalarM(a.v >= b.v); }
template <typename T> inline ScalarM isnan(ScalarV<T> a) { return ScalarM(isnan(a.v)); }
// (bool has its own load_masked, for every set, in the `vec` section.)
template <typename T, std::enable_if_t<!std::is_same_v<T, bool>, int> = 0>
inline ScalarV<T> load_masked(const T* p, ScalarM m) {
  return ScalarV<T>(m.b ? *p : T(0));
}
template <typename T> inline ScalarV<T> where(ScalarM m, ScalarV<T> a, ScalarV<T> b) { return m.b ? a : b; }
template <typename T> inline ScalarV<T> maximum(ScalarV<T> a, ScalarV<T> b) { return ScalarV<T>(maximum(a.v, b.v)); }
template <typename T> inline ScalarV<T> minimum(ScalarV<T> a, ScalarV<T> b) { return ScalarV<T>(minimum(a.v, b.v)); }
template <typename T> inline ScalarV<T> abs(ScalarV<T> a) { return ScalarV<T>(abs(a.v)); }
// std::fma rounds once but is a library call without FMA hardware; then two roundings.
template <typename T> inline ScalarV<T> fma(ScalarV<T> a, ScalarV<T> b, ScalarV<T> c) {
#if defined(__FMA__)
  return ScalarV<T>(std::fma(a.v, b.v, c.v));
#else
  return ScalarV<T>(a.v * b.v + c.v);
#endif
}
template <typename T> inline T reduce_sum(ScalarV<T> a) { return a.v; }

template <typename To, typename From> inline ScalarV<To> convert(ScalarV<From> x, VecTag<To>) {
  return ScalarV<To>(cast<To>(x.v));
}

// Rounding, sqrt and the transcendentals: the prelude's scalar functions (SLEEF scalar, same
// accuracy class as the vector ones).
#define STAX_VEC_SCALAR1(NAME) \
  template <typename T> inline ScalarV<T> NAME(ScalarV<T> x) { return ScalarV<T>(stax_rt::NAME(x.v)); }
#define STAX_VEC_SCALAR2(NAME)                                                            \
  template <typename T, std::enable_if_t<std::is_floating_point_v<T>, int> = 0>           \
  inline ScalarV<T> NAME(ScalarV<T> x, ScalarV<T> y) {                                    \
    return ScalarV<T>(stax_rt::NAME(x.v, y.v));                                           \
  }
STAX_VEC_SCALAR1(floor)
STAX_VEC_SCALAR1(ceil)
STAX_VEC_SCALAR1(trunc)
STAX_VEC_SCALAR1(round)
STAX_VEC_SCALAR1(sqrt)
STAX_VEC_SCALAR1(exp)
STAX_VEC_SCALAR1(exp2)
STAX_VEC_SCALAR1(expm1)
STAX_VEC_SCALAR1(log)
STAX_VEC_SCALAR1(log2)
STAX_VEC_SCALAR1(log10)
template <typename T> inline ScalarV<T> sleef_log1p(ScalarV<T> x) { return ScalarV<T>(stax_rt::log1p(x.v)); }
STAX_VEC_SCALAR1(sin)
STAX_VEC_SCALAR1(cos)
STAX_VEC_SCALAR1(tan)
STAX_VEC_SCALAR1(asin)
STAX_VEC_SCALAR1(acos)
STAX_VEC_SCALAR1(atan)
STAX_VEC_SCALAR1(sinh)
STAX_VEC_SCALAR1(cosh)
STAX_VEC_SCALAR1(tanh)
STAX_VEC_SCALAR1(erf)
STAX_VEC_SCALAR1(erfc)
STAX_VEC_SCALAR2(atan2)
STAX_VEC_SCALAR2(pow)
#undef STAX_VEC_SCALAR1
#undef STAX_VEC_SCALAR2

}  // namespace stax_rt
}  // namespace
#endif  // STAX_RT_VEC_SCALAR

// @section vec requires vec_config
#ifndef STAX_RT_VEC
#define STAX_RT_VEC
namespace {
namespace stax_rt {

// What every instruction set shares, written once over Vec<T, I> and Mask<I>. Together with the
// per-set sections above, the operations and their accuracy:
//   + - * and unary -        exact IEEE (floats) / wrapping (ints); / floats only, correctly rounded
//   fma(a, b, c)             a*b + c rounded once (AVX2, AVX-512; scalar level: once with -mfma,
//                            else twice)
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
//                            float32 exp, erf and tanh on AVX2 and AVX-512 are inline (below): at
//                            most 0.90, 0.79 and 0.93 ULP;
//                            NaN in, NaN out; special values as C99 Annex F (pow(x, 0) = 1,
//                            pow(1, y) = 1 even for NaN, as std::pow and torch.pow)
//   sigmoid silu gelu gelu_tanh   the prelude's formulas (activation section) over the above
//   cast<To>(v)              stax_rt::cast per lane: float->int truncates, saturates, NaN -> 0;
//                            to bool is != 0 (a Mask), from bool is 0/1
//   div_trunc div_floor remainder   the prelude's intdiv rules; ints lane by lane with `err`
//   load_masked(p, m)        lanes where m is false are 0 and never read (for any T and bool)
//   from_lanes<T, I>(f, i)   f(i + l) in lane l, lane by lane
//   reduce_sum               fixed pairwise order per instruction set (deterministic); ints wrap
//   reduce_prod/max/min      lanes folded in order 0..W-1 with the scalar operation; max/min
//                            propagate NaN
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

// ---- float32 exp, erf and tanh, inline for AVX2 and AVX-512 (the scalar set keeps the prelude's) --
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
// and AVX-512 alike (staging is bound by memory, not by shuffles); one element for the scalar
// set and for bool. The shuffles move bits: NaN payloads and signed zeros come through.

// dst[c * dst_stride + r] = src[r * src_stride + c] for r, c < size.
template <typename T, typename I> struct TransposeBlock {
  static constexpr int size = 1;
  static void run(const T* src, int64_t, T* dst, int64_t) { *dst = *src; }
};

#if defined(__AVX__)
// 8 x 8 four-byte lanes: pairs interleaved (unpack), then quadruples (shuffle), then the
// 128-bit halves exchanged (permute): 24 shuffles for 64 elements.
template <typename T> struct AvxTranspose8x8 {
  static_assert(sizeof(T) == 4, "8 x 8 blocks of 4-byte elements");
  static constexpr int size = 8;
  static void run(const T* src, int64_t src_stride, T* dst, int64_t dst_stride) {
    const float* s = reinterpret_cast<const float*>(src);
    float* d = reinterpret_cast<float*>(dst);
    // Named registers, not arrays (an array of them is spilled to the stack at -O2).
    const __m256 r0 = _mm256_loadu_ps(s), r1 = _mm256_loadu_ps(s + src_stride),
                 r2 = _mm256_loadu_ps(s + 2 * src_stride), r3 = _mm256_loadu_ps(s + 3 * src_stride),
                 r4 = _mm256_loadu_ps(s + 4 * src_stride), r5 = _mm256_loadu_ps(s + 5 * src_stride),
                 r6 = _mm256_loadu_ps(s + 6 * src_stride), r7 = _mm256_loadu_ps(s + 7 * src_stride);
    // Pairs of rows interleaved: t0 = r0[0] r1[0] r0[1] r1[1] | r0[4] r1[4] r0[5] r1[5], t1 the
    // other lanes.
    const __m256 t0 = _mm256_unpacklo_ps(r0, r1), t1 = _mm256_unpackhi_ps(r0, r1);
    const __m256 t2 = _mm256_unpacklo_ps(r2, r3), t3 = _mm256_unpackhi_ps(r2, r3);
    const __m256 t4 = _mm256_unpacklo_ps(r4, r5), t5 = _mm256_unpackhi_ps(r4, r5);
    const __m256 t6 = _mm256_unpacklo_ps(r6, r7), t7 = _mm256_unpackhi_ps(r6, r7);
    // Quadruples: u0 = column 0 of rows 0-3 | column 4 of them, u1 columns 1 | 5, ...; u4-u7
    // the same of rows 4-7.
    const __m256 u0 = _mm256_shuffle_ps(t0, t2, 0x44), u1 = _mm256_shuffle_ps(t0, t2, 0xEE);
    const __m256 u2 = _mm256_shuffle_ps(t1, t3, 0x44), u3 = _mm256_shuffle_ps(t1, t3, 0xEE);
    const __m256 u4 = _mm256_shuffle_ps(t4, t6, 0x44), u5 = _mm256_shuffle_ps(t4, t6, 0xEE);
    const __m256 u6 = _mm256_shuffle_ps(t5, t7, 0x44), u7 = _mm256_shuffle_ps(t5, t7, 0xEE);
    // Column j: the low halves of u_j and u_j+4; column j + 4: their high halves.
    _mm256_storeu_ps(d, _mm256_permute2f128_ps(u0, u4, 0x20));
    _mm256_storeu_ps(d + dst_stride, _mm256_permute2f128_ps(u1, u5, 0x20));
    _mm256_storeu_ps(d + 2 * dst_stride, _mm256_permute2f128_ps(u2, u6, 0x20));
    _mm256_storeu_ps(d + 3 * dst_stride, _mm256_permute2f128_ps(u3, u7, 0x20));
    _mm256_storeu_ps(d + 4 * dst_stride, _mm256_permute2f128_ps(u0, u4, 0x31));
    _mm256_storeu_ps(d + 5 * dst_stride, _mm256_permute2f128_ps(u1, u5, 0x31));
    _mm256_storeu_ps(d + 6 * dst_stride, _mm256_permute2f128_ps(u2, u6, 0x31));
    _mm256_storeu_ps(d + 7 * dst_stride, _mm256_permute2f128_ps(u3, u7, 0x31));
  }
};

// 4 x 4 eight-byte lanes: pairs interleaved, then the 128-bit halves exchanged.
template <typename T> struct AvxTranspose4x4 {
  static_assert(sizeof(T) == 8, "4 x 4 blocks of 8-byte elements");
  static constexpr int size = 4;
  static void run(const T* src, int64_t src_stride, T* dst, int64_t dst_stride) {
    const double* s = reinterpret_cast<const double*>(src);
    double* d = reinterpret_cast<double*>(dst);
    const __m256d r0 = _mm256_loadu_pd(s), r1 = _mm256_loadu_pd(s + src_stride),
                  r2 = _mm256_loadu_pd(s + 2 * src_stride), r3 = _mm256_loadu_pd(s + 3 * src_stride);
    // t0 = r0[0] r1[0] | r0[2] r1[2], t1 = r0[1] r1[1] | r0[3] r1[3]; column j: low halves of t_j and
    // t_j+2, column j + 2: their high halves.
    const __m256d t0 = _mm256_unpacklo_pd(r0, r1), t1 = _mm256_unpackhi_pd(r0, r1);
    const __m256d t2 = _mm256_unpacklo_pd(r2, r3), t3 = _mm256_unpackhi_pd(r2, r3);
    _mm256_storeu_pd(d, _mm256_permute2f128_pd(t0, t2, 0x20));
    _mm256_storeu_pd(d + dst_stride, _mm256_permute2f128_pd(t1, t3, 0x20));
    _mm256_storeu_pd(d + 2 * dst_stride, _mm256_permute2f128_pd(t0, t2, 0x31));
    _mm256_storeu_pd(d + 3 * dst_stride, _mm256_permute2f128_pd(t1, t3, 0x31));
  }
};

template <> struct TransposeBlock<float, IsaAvx2> : AvxTranspose8x8<float> {};
template <> struct TransposeBlock<int32_t, IsaAvx2> : AvxTranspose8x8<int32_t> {};
template <> struct TransposeBlock<double, IsaAvx2> : AvxTranspose4x4<double> {};
template <> struct TransposeBlock<int64_t, IsaAvx2> : AvxTranspose4x4<int64_t> {};
template <> struct TransposeBlock<float, IsaAvx512> : AvxTranspose8x8<float> {};
template <> struct TransposeBlock<int32_t, IsaAvx512> : AvxTranspose8x8<int32_t> {};
template <> struct TransposeBlock<double, IsaAvx512> : AvxTranspose4x4<double> {};
template <> struct TransposeBlock<int64_t, IsaAvx512> : AvxTranspose4x4<int64_t> {};
#endif

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
