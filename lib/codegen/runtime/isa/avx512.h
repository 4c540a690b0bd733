// AVX-512 (--isa avx512; F and DQ, as on Intel since Skylake-SP and AMD since Zen 4): 16
// lanes of every dtype, float32 and int32 in one zmm register, float64 and int64 in two, a mask
// in one k register. Compiled to nothing unless the compiler targets it.
//
// Edge semantics (Intel SDM, vol. 2), and how each family gives the scalar path's results
// (stax_prelude.h) lane for lane; checked on every edge value of every dtype in every lane by
// test/codegen/vec_checks_*.cpp. The file assumes the default floating-point environment (MXCSR:
// round to nearest even, FTZ and DAZ off, exceptions masked) and never changes it; no
// instruction here takes an embedded rounding mode.
//   + - * / sqrt fma   IEEE, rounded once, subnormals kept: the scalar instructions' values. A NaN
//                      operand comes out quieted, the first source's when both are NaN (only
//                      NaN-ness is part of the contract, the scalar compiler may swap commutative
//                      operands); invalid operations give the default NaN.
//   neg, abs           xor / and of the sign bit: bits, as the scalar -x and fabs.
//   floor ceil trunc round   vrndscaleps/pd with scale 0 and the mode in the immediate (MXCSR not
//                      used), precision exceptions suppressed: as vroundps (the AVX2 file): sign
//                      of zero kept, integral and infinite values unchanged, ties to even.
//   comparisons        vcmpps/pd into k registers, ordered-quiet predicates and NEQ_UQ: C++'s
//                      operators; integer comparisons vpcmpd/q signed. Lane i of a mask is bit i.
//   where              vblendmps/pd, vpblendmd/q under the k mask: the selected bits.
//   maximum minimum    vmaxps(b, a) = `b > a ? b : a`, returning a unchanged when either is NaN or
//                      both are zero, i.e. the prelude's `a < b ? b : a` with a NaN a
//                      propagated; the lanes where only b is NaN take b by a masked move.
//   int32, int64       vpaddd/q, vpsubd/q, vpmulld, vpmullq (DQ; the low half of the product)
//                      wrap, as does 0 - x; vpabsd/q give INT_MIN for INT_MIN; vpmaxs/vpmins
//                      signed.
//   shifts (int32)     vpslld/vpsrad: a count above 31 (a negative count is read as unsigned)
//                      gives 0 / every bit the sign; constant counts fold the same way.
//   float <-> double   vcvtps2pd exact; vcvtpd2ps rounds to nearest even, overflows to +-inf,
//                      rounds into the subnormals: static_cast.
//   ints -> floats     vcvtdq2ps, vcvtqq2ps, vcvtqq2pd (DQ) round once to nearest even (as the
//                      scalar conversion of a 64-bit integer), vcvtdq2pd exact; vpmovqd keeps the
//                      low half (int64 -> int32 wraps), vpmovsxdq sign-extends.
//   floats -> int32, int64   vcvttps2dq, vcvttpd2dq, vcvttpd2qq truncate, but give the "integer
//                      indefinite" (INT_MIN) for NaN and out-of-range lanes, and GCC folds them on
//                      constants as saturating conversions and may reuse one result for the
//                      other: so only the lanes inside the range are converted (zero-masked; the
//                      others are 0 and raise nothing) and INT_MIN / INT_MAX go in by masked moves
//                      (NaN stays 0), as stax_rt::cast. float -> int64 goes through double (exact).
//   loads and stores   move bits; the masked forms (vmovups and friends under a k mask) neither
//                      read nor write, nor fault on, the lanes whose mask bit is clear: the tails
//                      loadu(p, n) / storeu(p, n) and load_masked. Bool bytes are 0 or 1;
//                      first(n) is lanes [0, n) for 0 <= n (all lanes from n = 16).
//   reduce_sum         the halving order of the layer (stax_vec.h): lanes i + 8, i + 4, i + 2,
//                      i + 1 added to lane i.
//   reduce_max/min     floats: a vmaxps/vminps tree when vcmpps(UNORD) finds no NaN and the
//                      extreme is not zero (the bits of the in-order fold, which runs otherwise).
//   transcendentals    SLEEF's AVX-512F functions (at most 1 ULP, erfc 1.5; C99 Annex F special
//                      values), float32 exp, erf and tanh inline (stax_vec.h): on the edge values
//                      NaN where the scalar SLEEF gives NaN, the same zeros and infinities, other
//                      results within the two errors (measured: at most 1 apart).
#include "../stax_vec_base.h"  // (not emitted)
#include "avx2.h"              // (not emitted)

// @section vec_avx512 requires vec_config vec_avx2
#ifndef STAX_RT_VEC_AVX512
#define STAX_RT_VEC_AVX512
#undef STAX_VEC_HAS_AVX512
#if (defined(__AVX512F__) && defined(__AVX512DQ__)) || defined(STAX_VEC_TARGET_AVX512)
#define STAX_VEC_HAS_AVX512 1
#else
#define STAX_VEC_HAS_AVX512 0
#endif
#if defined(STAX_ISA_AVX512)
#if defined(STAX_VEC_PINNED)
#error "define at most one STAX_ISA_* macro"
#endif
#if !STAX_VEC_HAS_AVX512
#error "STAX_ISA_AVX512 needs a compiler targeting it (-mavx512f -mavx512dq, or -march=native on such a CPU)"
#endif
#define STAX_VEC_PINNED stax_rt::IsaAvx512
#endif
#if STAX_VEC_HAS_AVX512
#undef STAX_VEC_NATIVE
#define STAX_VEC_NATIVE stax_rt::IsaAvx512  // the widest so far (isa/ files come narrowest first)
#endif
namespace {
namespace stax_rt {
struct IsaAvx512 {
  static constexpr int width = 16;
  static constexpr const char* name = "avx512";
};
template <> inline constexpr bool isa_available<IsaAvx512> = STAX_VEC_HAS_AVX512 != 0;
}  // namespace stax_rt
}  // namespace
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
  void storeu(float* p) const { vec_store_lanes_of<float, 64>(p, v); }
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
    vec_store_lanes_of<double, 64>(p, lo);
    vec_store_lanes_of<double, 64>(p + 8, hi);
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
  void storeu(int32_t* p) const { vec_store_lanes_of<int32_t, 64>(p, v); }
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
    vec_store_lanes_of<int64_t, 64>(p, lo);
    vec_store_lanes_of<int64_t, 64>(p + 8, hi);
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
  return Avx512F(vec_nan_pick<float>(a.v, b.v, _mm512_maskz_max_ps(kAll16, b.v, a.v)));
}
inline Avx512F minimum(Avx512F a, Avx512F b) {
  return Avx512F(vec_nan_pick<float>(a.v, b.v, _mm512_maskz_min_ps(kAll16, b.v, a.v)));
}
// Pairwise, halves first (GCC's _mm512_reduce_add_* would draw the warnings above).
inline float reduce_sum(Avx512F a) {
  const __m256 t = _mm256_add_ps(_mm512_extractf32x8_ps(a.v, 0), _mm512_extractf32x8_ps(a.v, 1));
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(t), _mm256_extractf128_ps(t, 1));
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  s = _mm_add_ss(s, _mm_shuffle_ps(s, s, 1));
  return _mm_cvtss_f32(s);
}
// reduce_max/min: the vmaxps/vminps tree, taken when it gives the fold's bits (vec_ordered_extreme).
#define STAX_VEC_TREE_PS(NAME, OP256, OP128)                                                      \
  inline float NAME(__m512 v) {                                                                  \
    const __m256 t = OP256(_mm512_extractf32x8_ps(v, 0), _mm512_extractf32x8_ps(v, 1));       \
    __m128 s = OP128(_mm256_castps256_ps128(t), _mm256_extractf128_ps(t, 1));                  \
    s = OP128(s, _mm_movehl_ps(s, s));                                                          \
    s = OP128(s, _mm_shuffle_ps(s, s, 1));                                                      \
    return _mm_cvtss_f32(s);                                                                    \
  }
STAX_VEC_TREE_PS(avx512_tree_max, _mm256_max_ps, _mm_max_ps)
STAX_VEC_TREE_PS(avx512_tree_min, _mm256_min_ps, _mm_min_ps)
#undef STAX_VEC_TREE_PS
inline float reduce_max(Avx512F a) {
  return vec_ordered_extreme(a, avx512_tree_max(a.v), [](float x, float y) { return maximum(x, y); });
}
inline float reduce_min(Avx512F a) {
  return vec_ordered_extreme(a, avx512_tree_min(a.v), [](float x, float y) { return minimum(x, y); });
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
  return Avx512D(vec_nan_pick<double>(a.lo, b.lo, _mm512_maskz_max_pd(kAll8, b.lo, a.lo)),
                 vec_nan_pick<double>(a.hi, b.hi, _mm512_maskz_max_pd(kAll8, b.hi, a.hi)));
}
inline Avx512D minimum(Avx512D a, Avx512D b) {
  return Avx512D(vec_nan_pick<double>(a.lo, b.lo, _mm512_maskz_min_pd(kAll8, b.lo, a.lo)),
                 vec_nan_pick<double>(a.hi, b.hi, _mm512_maskz_min_pd(kAll8, b.hi, a.hi)));
}
inline double reduce_sum(Avx512D a) {
  const __m512d t = _mm512_add_pd(a.lo, a.hi);
  const __m256d u = _mm256_add_pd(_mm512_maskz_extractf64x4_pd(kAll8, t, 0), _mm512_maskz_extractf64x4_pd(kAll8, t, 1));
  __m128d s = _mm_add_pd(_mm256_castpd256_pd128(u), _mm256_extractf128_pd(u, 1));
  s = _mm_add_sd(s, _mm_unpackhi_pd(s, s));
  return _mm_cvtsd_f64(s);
}
// reduce_max/min as for float (above).
#define STAX_VEC_TREE_PD(NAME, OP512, OP256, OP128)                                                    \
  inline double NAME(Avx512D a) {                                                                       \
    const __m512d t = OP512(kAll8, a.lo, a.hi);                                                         \
    const __m256d u = OP256(_mm512_maskz_extractf64x4_pd(kAll8, t, 0), _mm512_maskz_extractf64x4_pd(kAll8, t, 1)); \
    __m128d s = OP128(_mm256_castpd256_pd128(u), _mm256_extractf128_pd(u, 1));                         \
    s = OP128(s, _mm_unpackhi_pd(s, s));                                                                \
    return _mm_cvtsd_f64(s);                                                                            \
  }
STAX_VEC_TREE_PD(avx512_tree_max, _mm512_maskz_max_pd, _mm256_max_pd, _mm_max_pd)
STAX_VEC_TREE_PD(avx512_tree_min, _mm512_maskz_min_pd, _mm256_min_pd, _mm_min_pd)
#undef STAX_VEC_TREE_PD
inline double reduce_max(Avx512D a) {
  return vec_ordered_extreme(a, avx512_tree_max(a), [](double x, double y) { return maximum(x, y); });
}
inline double reduce_min(Avx512D a) {
  return vec_ordered_extreme(a, avx512_tree_min(a), [](double x, double y) { return minimum(x, y); });
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
// Float to int, as stax_rt::cast: lanes in [-2^N, 2^N) truncate, lanes below take INT_MIN, lanes
// at or above 2^N INT_MAX, NaN lanes 0. vcvttps2dq / vcvttpd2dq / vcvttpd2qq give the "integer
// indefinite" INT_MIN for NaN and out-of-range lanes, while GCC folds the same intrinsics on
// constants as saturating conversions (and then drops a fix-up that it takes for redundant): the
// two disagree, so only the lanes inside the range are converted (a zero-masked conversion; the
// others are 0 and raise nothing) and the saturated values are put in by mask.
inline Avx512I convert(Avx512F x, VecTag<int32_t>) {
  const Avx512F lo(-2147483648.0f), hi(2147483648.0f);
  __m512i r = _mm512_maskz_cvttps_epi32(((x >= lo) & (x < hi)).k, x.v);
  r = _mm512_mask_mov_epi32(r, (x < lo).k, _mm512_set1_epi32(std::numeric_limits<int32_t>::min()));
  return Avx512I(_mm512_mask_mov_epi32(r, (x >= hi).k, _mm512_set1_epi32(std::numeric_limits<int32_t>::max())));
}
inline Avx512I convert(Avx512D x, VecTag<int32_t>) {
  const Avx512D lo(-2147483648.0), hi(2147483648.0);
  const Avx512M inside = (x >= lo) & (x < hi);
  __m512i r = avx512_join_si(_mm512_maskz_cvttpd_epi32(inside.lo8(), x.lo), _mm512_maskz_cvttpd_epi32(inside.hi8(), x.hi));
  r = _mm512_mask_mov_epi32(r, (x < lo).k, _mm512_set1_epi32(std::numeric_limits<int32_t>::min()));
  return Avx512I(_mm512_mask_mov_epi32(r, (x >= hi).k, _mm512_set1_epi32(std::numeric_limits<int32_t>::max())));
}
inline Avx512L convert(Avx512D x, VecTag<int64_t>) {
  const Avx512D lo(-9223372036854775808.0), hi(9223372036854775808.0);
  const Avx512M inside = (x >= lo) & (x < hi), below = x < lo, above = x >= hi;
  const __m512i min = _mm512_set1_epi64(std::numeric_limits<int64_t>::min());
  const __m512i max = _mm512_set1_epi64(std::numeric_limits<int64_t>::max());
  const __m512i l = _mm512_mask_mov_epi64(_mm512_maskz_cvttpd_epi64(inside.lo8(), x.lo), below.lo8(), min);
  const __m512i h = _mm512_mask_mov_epi64(_mm512_maskz_cvttpd_epi64(inside.hi8(), x.hi), below.hi8(), min);
  return Avx512L(_mm512_mask_mov_epi64(l, above.lo8(), max), _mm512_mask_mov_epi64(h, above.hi8(), max));
}
// (float -> double is exact)
inline Avx512L convert(Avx512F x, VecTag<int64_t>) { return convert(convert(x, VecTag<double>()), VecTag<int64_t>()); }

// ---- bits of float32 lanes (the inline float32 exp and erf of the `vec` section) ----
inline Avx512I bit_cast_i32(Avx512F x) { return Avx512I(_mm512_castps_si512(x.v)); }
inline Avx512F bit_cast_f32(Avx512I x) { return Avx512F(_mm512_castsi512_ps(x.v)); }
inline Avx512I shift_left(Avx512I x, int n) { return Avx512I(_mm512_maskz_slli_epi32(kAll16, x.v, static_cast<unsigned>(n))); }
inline Avx512I shift_right_arith(Avx512I x, int n) { return Avx512I(_mm512_maskz_srai_epi32(kAll16, x.v, static_cast<unsigned>(n))); }

// ---- transcendentals: SLEEF 3.5's AVX-512F functions, called directly (no dispatch); float32
// exp and erf are the `vec` section's inline ones ----
// sleef.h declares these only for a compiler that targets the set (__AVX512F__ when it is
// included), not inside a function target pragma (the --isa dispatch file): declared here then.
#if defined(__AVX512F__)
#define STAX_VEC_SLEEF_DECLARE(RET, FN, ...)
#else
#define STAX_VEC_SLEEF_DECLARE(RET, FN, ...) extern "C" RET FN(__VA_ARGS__);
#endif
#define STAX_VEC_SLEEF1_D(NAME, FN_D)                     \
  STAX_VEC_SLEEF_DECLARE(__m512d, FN_D, __m512d)                \
  inline Avx512D NAME(Avx512D x) { return Avx512D(FN_D(x.lo), FN_D(x.hi)); }
#define STAX_VEC_SLEEF1(NAME, FN_F, FN_D)                  \
  STAX_VEC_SLEEF_DECLARE(__m512, FN_F, __m512)                 \
  inline Avx512F NAME(Avx512F x) { return Avx512F(FN_F(x.v)); }    \
  STAX_VEC_SLEEF1_D(NAME, FN_D)
#define STAX_VEC_SLEEF2(NAME, FN_F, FN_D)                                             \
  STAX_VEC_SLEEF_DECLARE(__m512, FN_F, __m512, __m512)                                      \
  STAX_VEC_SLEEF_DECLARE(__m512d, FN_D, __m512d, __m512d)                                      \
  inline Avx512F NAME(Avx512F x, Avx512F y) { return Avx512F(FN_F(x.v, y.v)); }                  \
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
#undef STAX_VEC_SLEEF_DECLARE

// ---- tile transposes: the 256-bit blocks of the AVX2 file (staging is bound by memory) ----
template <> struct TransposeBlock<float, IsaAvx512> : AvxTranspose8x8<float> {};
template <> struct TransposeBlock<int32_t, IsaAvx512> : AvxTranspose8x8<int32_t> {};
template <> struct TransposeBlock<double, IsaAvx512> : AvxTranspose4x4<double> {};
template <> struct TransposeBlock<int64_t, IsaAvx512> : AvxTranspose4x4<int64_t> {};

// Stride-2 reads (EvenLoad): a = p[0..15], b = p[15..30]; vpermt2ps takes a's even lanes and b's
// odd ones. float64: p[0..15]'s even lanes, then p[16..23]'s even and p[23..30]'s odd ones.
// Under a mask, each load's mask has the result lanes' bits spread to the lanes they read
// (bit i to bit 2i, or 2i + 1 for the odd lanes), so the masked loads read exactly those elements.
inline unsigned avx512_spread_even(unsigned bits) {  // bits 0..7 to bits 0, 2, ..., 14
  unsigned x = bits & 0xFFu;
  x = (x | (x << 4)) & 0x0F0Fu;
  x = (x | (x << 2)) & 0x3333u;
  return (x | (x << 1)) & 0x5555u;
}
template <> struct EvenLoad<float, IsaAvx512> {
  static Vec<float, IsaAvx512> even(__m512 a, __m512 b) {
    const __m512i idx = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 17, 19, 21, 23, 25, 27, 29, 31);
    return Vec<float, IsaAvx512>(_mm512_permutex2var_ps(a, idx, b));
  }
  static Vec<float, IsaAvx512> load(const float* p) { return even(_mm512_loadu_ps(p), _mm512_loadu_ps(p + 15)); }
  static Vec<float, IsaAvx512> masked(const float* p, Mask<IsaAvx512> m) {
    const __mmask16 ma = static_cast<__mmask16>(avx512_spread_even(m.k)),
                    mb = static_cast<__mmask16>(avx512_spread_even(m.k >> 8u) << 1u);
    return even(_mm512_maskz_loadu_ps(ma, p), _mm512_maskz_loadu_ps(mb, p + 15));
  }
};
template <> struct EvenLoad<double, IsaAvx512> {
  static Vec<double, IsaAvx512> even(__m512d a, __m512d b, __m512d u, __m512d w) {
    const __m512i even = _mm512_setr_epi64(0, 2, 4, 6, 8, 10, 12, 14), mixed = _mm512_setr_epi64(0, 2, 4, 6, 9, 11, 13, 15);
    return Vec<double, IsaAvx512>(_mm512_permutex2var_pd(a, even, b), _mm512_permutex2var_pd(u, mixed, w));
  }
  static Vec<double, IsaAvx512> load(const double* p) {
    return even(_mm512_loadu_pd(p), _mm512_loadu_pd(p + 8), _mm512_loadu_pd(p + 16), _mm512_loadu_pd(p + 23));
  }
  static Vec<double, IsaAvx512> masked(const double* p, Mask<IsaAvx512> m) {
    const auto bits = [&](unsigned shift, unsigned odd) {
      return static_cast<__mmask8>(avx512_spread_even((m.k >> shift) & 0xFu) << odd);
    };
    return even(_mm512_maskz_loadu_pd(bits(0, 0), p), _mm512_maskz_loadu_pd(bits(4, 0), p + 8),
                _mm512_maskz_loadu_pd(bits(8, 0), p + 16), _mm512_maskz_loadu_pd(bits(12, 1), p + 23));
  }
};

// GEMM tiles (stax_gemm_kernel.h): float 8 x 32, double 8 x 16 (a double Vec is 2 registers),
// 16 zmm accumulators. Every tile from 6 x 64 to 14 x 32 runs at 2 FMA a cycle from L1 on Zen 5;
// in the whole GEMM 8 rows measured best (A is packed by whole 8 x 8 transposes, and the ragged
// last tile of a block is smaller). Up to 4 rows of A, 64 floats / 32 doubles wide: a 1 x 64
// tile keeps 4 sums in flight (1 x 32: 2), 2 x 64 reaches 68% of peak from L1 (2 x 32: 40%).
// A convolution's patches read in place take 8 x 48 float tiles on large outputs (3 to 12%
// faster than 8 x 32 on ResNet-18's 56 x 56 and 28 x 28 layers).
template <> struct GemmTile<float, IsaAvx512> {
  static constexpr int mr = 8;
  static constexpr int mr_short = 4;
  static constexpr int nv_wide = 3;
  static constexpr int nv_short = 4;
};
template <> struct GemmTile<double, IsaAvx512> {
  static constexpr int mr = 8;
  static constexpr int mr_short = 4;
  static constexpr int nv_wide = 0;
  static constexpr int nv_short = 2;
};

}  // namespace stax_rt
}  // namespace
#endif  // STAX_VEC_HAS_AVX512
#endif  // STAX_RT_VEC_AVX512
// @end-sections
