// AVX2 with FMA (--isa avx2): 8 lanes of every dtype, float32 and int32 in one ymm register,
// float64 and int64 in two. Compiled to nothing unless the compiler targets AVX2 and FMA
// (-mavx2 -mfma, -march=native on such a CPU, or a target pragma around it).
//
// Edge semantics (Intel SDM, vol. 2) and how each family gives the scalar path's results
// (stax_prelude.h) lane for lane, checked on every edge value of every dtype in every lane
// (test/codegen/vec_checks_*.cpp). The default MXCSR is assumed (round to nearest even, FTZ and
// DAZ off, exceptions masked) and never changed.
//   + - * / sqrt fma   IEEE, rounded once, subnormals kept: the scalar instructions' values. A NaN
//                      operand comes out quieted, the first source's when both are (only NaN-ness
//                      is the contract: a compiler may swap commutative scalar operands); invalid
//                      operations (inf - inf, 0 * inf, 0 / 0, sqrt(x < 0)) give the default NaN.
//   neg, abs           xor / and-not of the sign bit: bits, as the scalar -x and fabs.
//   floor ceil trunc round   vroundps/pd, the mode in the immediate (not MXCSR's), no precision
//                      exception: integral and infinite values unchanged, the sign of zero kept
//                      (floor(-0.5) = round(-0.5) = -0), ties to even (std::nearbyint).
//   comparisons        vcmpps/pd with ordered-quiet predicates (false on NaN) and NEQ_UQ (true on
//                      NaN): C++'s operators; isnan is UNORD_Q. Mask lanes are all ones or zero
//                      (32 bits, sign-extended for 64-bit lanes); where blends by their top bits.
//   maximum minimum    vmaxps(b, a) is `b > a ? b : a` and returns a unchanged when either is NaN
//                      (signalling too) or both are zero: the prelude's `a < b ? b : a` with a NaN
//                      a propagated; lanes where only b is NaN take b by a blend. (Not under
//                      -ffast-math, with which generated code is not built.)
//   integers           vpaddd/q, vpsubd/q, vpmulld and 0 - x wrap; int64 products are the low 64
//                      bits of 32 x 32 -> 64 products (no vpmullq); vpabsd and the int64 blend give
//                      INT_MIN for INT_MIN; vpmaxsd, vpcmpgtd/q signed.
//   shifts (int32)     vpslld/vpsrad: a count above 31, so a negative one (read as unsigned),
//                      gives 0 / the sign in every bit; GCC folds constant counts alike.
//   conversions        vcvtps2pd exact; vcvtpd2ps and vcvtdq2ps round to nearest even (overflow to
//                      +-inf, into the subnormals); int64 -> int32 keeps the low half. vcvttps2dq
//                      and vcvttpd2dq give the "integer indefinite" INT_MIN for NaN and
//                      out-of-range lanes, while GCC folds them on constants as saturating and may
//                      reuse one result for the other: those lanes are set to +0 before the
//                      conversion and take INT_MIN, INT_MAX (NaN: 0) by blends after it. int64 <->
//                      floats: no instruction, stax_rt::cast lane by lane.
//   memory             loads and stores move bits; vmaskmovps/pd, vpmaskmovd/q neither read nor
//                      write (nor fault on) lanes whose mask is clear: tails and load_masked.
//   reduce_sum         the layer's halving order (stax_vec.h): lanes i + 4, i + 2, i + 1 into i.
//   reduce_max/min     floats: a vmaxps/vminps tree when vcmpps(UNORD) finds no NaN and the
//                      extreme is not zero (the bits of the in-order fold, which runs otherwise).
//   transcendentals    SLEEF's AVX2 functions (1 ULP, erfc 1.5; C99 Annex F special values),
//                      float32 exp, erf, tanh inline (stax_vec.h): NaN where the scalar SLEEF
//                      gives NaN, the same zeros and infinities, else within the two errors.
#include "../stax_vec_base.h"  // (not emitted)
#include "scalar.h"            // (not emitted)

// @section vec_avx2 requires vec_config
#ifndef STAX_RT_VEC_AVX2
#define STAX_RT_VEC_AVX2
#undef STAX_VEC_HAS_AVX2
#if (defined(__AVX2__) && defined(__FMA__)) || defined(STAX_VEC_TARGET_AVX2)
#define STAX_VEC_HAS_AVX2 1
#else
#define STAX_VEC_HAS_AVX2 0
#endif
#if defined(STAX_ISA_AVX2)
#if defined(STAX_VEC_PINNED)
#error "define at most one STAX_ISA_* macro"
#endif
#if !STAX_VEC_HAS_AVX2
#error "STAX_ISA_AVX2 needs a compiler targeting it (-mavx2 -mfma, or -march=native on such a CPU)"
#endif
#define STAX_VEC_PINNED stax_rt::IsaAvx2
#endif
#if STAX_VEC_HAS_AVX2
#undef STAX_VEC_NATIVE
#define STAX_VEC_NATIVE stax_rt::IsaAvx2  // the widest so far (isa/ files come narrowest first)
#endif
namespace {
namespace stax_rt {
struct IsaAvx2 {
  static constexpr int width = 8;
  static constexpr const char* name = "avx2";
};
template <> inline constexpr bool isa_available<IsaAvx2> = STAX_VEC_HAS_AVX2 != 0;
}  // namespace stax_rt
}  // namespace
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
  void storeu(float* p) const { vec_store_lanes_of<float, 32>(p, v); }
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
    vec_store_lanes_of<double, 32>(p, lo);
    vec_store_lanes_of<double, 32>(p + 4, hi);
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
  void storeu(int32_t* p) const { vec_store_lanes_of<int32_t, 32>(p, v); }
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
    vec_store_lanes_of<int64_t, 32>(p, lo);
    vec_store_lanes_of<int64_t, 32>(p + 4, hi);
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
inline Avx2F maximum(Avx2F a, Avx2F b) { return Avx2F(vec_nan_pick<float>(a.v, b.v, _mm256_max_ps(b.v, a.v))); }
inline Avx2F minimum(Avx2F a, Avx2F b) { return Avx2F(vec_nan_pick<float>(a.v, b.v, _mm256_min_ps(b.v, a.v))); }
// Pairwise: ((l0+l4)+(l2+l6)) + ((l1+l5)+(l3+l7)).
inline float reduce_sum(Avx2F a) {
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(a.v), _mm256_extractf128_ps(a.v, 1));
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  s = _mm_add_ss(s, _mm_shuffle_ps(s, s, 1));
  return _mm_cvtss_f32(s);
}
// reduce_max/min: the vmaxps/vminps tree, taken when it gives the fold's bits (vec_ordered_extreme).
#define STAX_VEC_TREE_PS(NAME, OP128)                                      \
  inline float NAME(__m256 v) {                                           \
    __m128 s = OP128(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1)); \
    s = OP128(s, _mm_movehl_ps(s, s));                                   \
    s = OP128(s, _mm_shuffle_ps(s, s, 1));                               \
    return _mm_cvtss_f32(s);                                             \
  }
STAX_VEC_TREE_PS(avx2_tree_max, _mm_max_ps)
STAX_VEC_TREE_PS(avx2_tree_min, _mm_min_ps)
#undef STAX_VEC_TREE_PS
inline float reduce_max(Avx2F a) {
  return vec_ordered_extreme(a, avx2_tree_max(a.v), [](float x, float y) { return maximum(x, y); });
}
inline float reduce_min(Avx2F a) {
  return vec_ordered_extreme(a, avx2_tree_min(a.v), [](float x, float y) { return minimum(x, y); });
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
inline __m256d avx2_maximum_pd(__m256d a, __m256d b) { return vec_nan_pick<double>(a, b, _mm256_max_pd(b, a)); }
inline __m256d avx2_minimum_pd(__m256d a, __m256d b) { return vec_nan_pick<double>(a, b, _mm256_min_pd(b, a)); }
inline Avx2D maximum(Avx2D a, Avx2D b) { return Avx2D(avx2_maximum_pd(a.lo, b.lo), avx2_maximum_pd(a.hi, b.hi)); }
inline Avx2D minimum(Avx2D a, Avx2D b) { return Avx2D(avx2_minimum_pd(a.lo, b.lo), avx2_minimum_pd(a.hi, b.hi)); }
// ((l0+l4)+(l2+l6)) + ((l1+l5)+(l3+l7)).
inline double reduce_sum(Avx2D a) {
  const __m256d t = _mm256_add_pd(a.lo, a.hi);
  __m128d s = _mm_add_pd(_mm256_castpd256_pd128(t), _mm256_extractf128_pd(t, 1));
  s = _mm_add_sd(s, _mm_unpackhi_pd(s, s));
  return _mm_cvtsd_f64(s);
}
// reduce_max/min as for float (above).
#define STAX_VEC_TREE_PD(NAME, OP256, OP128)                                            \
  inline double NAME(Avx2D a) {                                                         \
    const __m256d t = OP256(a.lo, a.hi);                                                \
    __m128d s = OP128(_mm256_castpd256_pd128(t), _mm256_extractf128_pd(t, 1));         \
    s = OP128(s, _mm_unpackhi_pd(s, s));                                                \
    return _mm_cvtsd_f64(s);                                                            \
  }
STAX_VEC_TREE_PD(avx2_tree_max, _mm256_max_pd, _mm_max_pd)
STAX_VEC_TREE_PD(avx2_tree_min, _mm256_min_pd, _mm_min_pd)
#undef STAX_VEC_TREE_PD
inline double reduce_max(Avx2D a) {
  return vec_ordered_extreme(a, avx2_tree_max(a), [](double x, double y) { return maximum(x, y); });
}
inline double reduce_min(Avx2D a) {
  return vec_ordered_extreme(a, avx2_tree_min(a), [](double x, double y) { return minimum(x, y); });
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
// Float to int32 as stax_rt::cast; NaN and out-of-range lanes never reach vcvtt* (see the top).
inline Avx2I avx2_saturate32(__m256i r, Avx2M below, Avx2M above) {
  r = _mm256_blendv_epi8(r, _mm256_set1_epi32(std::numeric_limits<int32_t>::min()), below.m);
  return Avx2I(_mm256_blendv_epi8(r, _mm256_set1_epi32(std::numeric_limits<int32_t>::max()), above.m));
}
inline Avx2I convert(Avx2F x, VecTag<int32_t>) {
  const Avx2F lo(-2147483648.0f), hi(2147483648.0f);
  const __m256 inside = _mm256_castsi256_ps(((x >= lo) & (x < hi)).m);
  return avx2_saturate32(_mm256_cvttps_epi32(_mm256_and_ps(x.v, inside)), x < lo, x >= hi);
}
inline Avx2I convert(Avx2D x, VecTag<int32_t>) {
  const Avx2D lo(-2147483648.0), hi(2147483648.0);
  const Avx2M inside = (x >= lo) & (x < hi);
  const __m128i l = _mm256_cvttpd_epi32(_mm256_and_pd(x.lo, _mm256_castsi256_pd(inside.lo64())));
  const __m128i h = _mm256_cvttpd_epi32(_mm256_and_pd(x.hi, _mm256_castsi256_pd(inside.hi64())));
  return avx2_saturate32(_mm256_set_m128i(h, l), x < lo, x >= hi);
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
// sleef.h declares these only for a compiler that targets the set (__AVX__ when it is
// included), not inside a function target pragma (the --isa dispatch file): declared here then.
#if defined(__AVX__)
#define STAX_VEC_SLEEF_DECLARE(RET, FN, ...)
#else
#define STAX_VEC_SLEEF_DECLARE(RET, FN, ...) extern "C" RET FN(__VA_ARGS__);
#endif
#define STAX_VEC_SLEEF1_D(NAME, FN_D)                     \
  STAX_VEC_SLEEF_DECLARE(__m256d, FN_D, __m256d)                \
  inline Avx2D NAME(Avx2D x) { return Avx2D(FN_D(x.lo), FN_D(x.hi)); }
#define STAX_VEC_SLEEF1(NAME, FN_F, FN_D)                  \
  STAX_VEC_SLEEF_DECLARE(__m256, FN_F, __m256)                 \
  inline Avx2F NAME(Avx2F x) { return Avx2F(FN_F(x.v)); }    \
  STAX_VEC_SLEEF1_D(NAME, FN_D)
#define STAX_VEC_SLEEF2(NAME, FN_F, FN_D)                                             \
  STAX_VEC_SLEEF_DECLARE(__m256, FN_F, __m256, __m256)                                      \
  STAX_VEC_SLEEF_DECLARE(__m256d, FN_D, __m256d, __m256d)                                      \
  inline Avx2F NAME(Avx2F x, Avx2F y) { return Avx2F(FN_F(x.v, y.v)); }                  \
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
#undef STAX_VEC_SLEEF_DECLARE

// ---- tile transposes (the 2-D tiled form of §8.2; stax_vec.h, transpose_tile) ----
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

// Stride-2 reads (EvenLoad): a = p[0..7], b = p[7..14]; vshufps takes a's lanes 0, 2 and b's 1, 3
// in each half (p0 p2 p8 p10 | p4 p6 p12 p14), vpermpd orders the halves' pairs. float64: each
// register's four from p[0..7] (vunpcklpd) and p[8..14] (vshufpd of p[8..11] and p[11..14]).
// Under a mask, each load's lanes take the mask lane of the result lane they feed (vpermd), the
// others cleared, so vmaskmov reads exactly the elements of the lanes that are on.
inline __m256i avx2_mask_lanes(__m256i m, __m256i from, __m256i keep) {
  return _mm256_and_si256(_mm256_permutevar8x32_epi32(m, from), keep);
}
template <> struct EvenLoad<float, IsaAvx2> {
  static Vec<float, IsaAvx2> even(__m256 a, __m256 b) {
    const __m256 s = _mm256_shuffle_ps(a, b, _MM_SHUFFLE(3, 1, 2, 0));
    return Vec<float, IsaAvx2>(_mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(s), _MM_SHUFFLE(3, 1, 2, 0))));
  }
  static Vec<float, IsaAvx2> load(const float* p) { return even(_mm256_loadu_ps(p), _mm256_loadu_ps(p + 7)); }
  static Vec<float, IsaAvx2> masked(const float* p, Mask<IsaAvx2> m) {
    const __m256i even_lanes = _mm256_setr_epi32(-1, 0, -1, 0, -1, 0, -1, 0);
    const __m256i ma = avx2_mask_lanes(m.m, _mm256_setr_epi32(0, 0, 1, 1, 2, 2, 3, 3), even_lanes);
    const __m256i mb = avx2_mask_lanes(m.m, _mm256_setr_epi32(4, 4, 5, 5, 6, 6, 7, 7), ~even_lanes);
    return even(_mm256_maskload_ps(p, ma), _mm256_maskload_ps(p + 7, mb));
  }
};
template <> struct EvenLoad<double, IsaAvx2> {
  static Vec<double, IsaAvx2> even(__m256d x, __m256d y, __m256d u, __m256d w) {
    const __m256d l = _mm256_unpacklo_pd(x, y);  // p0 p4 p2 p6
    const __m256d h = _mm256_shuffle_pd(u, w, 0xA);  // p8 p12 p10 p14
    return Vec<double, IsaAvx2>(_mm256_permute4x64_pd(l, _MM_SHUFFLE(3, 1, 2, 0)), _mm256_permute4x64_pd(h, _MM_SHUFFLE(3, 1, 2, 0)));
  }
  static Vec<double, IsaAvx2> load(const double* p) {
    return even(_mm256_loadu_pd(p), _mm256_loadu_pd(p + 4), _mm256_loadu_pd(p + 8), _mm256_loadu_pd(p + 11));
  }
  static Vec<double, IsaAvx2> masked(const double* p, Mask<IsaAvx2> m) {
    // 64-bit lanes 0 and 2 (p[0..3], p[4..7], p[8..11]) or 1 and 3 (p[11..14]) of each load.
    const __m256i lanes02 = _mm256_setr_epi32(-1, -1, 0, 0, -1, -1, 0, 0);
    const __m256i mx = avx2_mask_lanes(m.m, _mm256_setr_epi32(0, 0, 0, 0, 1, 1, 1, 1), lanes02);
    const __m256i my = avx2_mask_lanes(m.m, _mm256_setr_epi32(2, 2, 2, 2, 3, 3, 3, 3), lanes02);
    const __m256i mu = avx2_mask_lanes(m.m, _mm256_setr_epi32(4, 4, 4, 4, 5, 5, 5, 5), lanes02);
    const __m256i mw = avx2_mask_lanes(m.m, _mm256_setr_epi32(6, 6, 6, 6, 7, 7, 7, 7), ~lanes02);
    return even(_mm256_maskload_pd(p, mx), _mm256_maskload_pd(p + 4, my), _mm256_maskload_pd(p + 8, mu),
                _mm256_maskload_pd(p + 11, mw));
  }
};

// GEMM tiles (stax_gemm_kernel.h) in 16 ymm registers: float 6 x 16 (12 accumulators, 2 rows of
// B, 1 broadcast; at 2 FMA a cycle from L1 on Zen 5, where 5 x 16 and 12 x 8 reach 93%, 8 x 8
// 86%, 3 x 32 77%), double 6 x 8 (a double Vec is 2 registers: 12 accumulators). Up to 2 rows
// of A, 64 floats / 32 doubles wide: 1 x 64 and 2 x 64 floats reach 85% (1 x 16: 25%).
template <> struct GemmTile<float, IsaAvx2> {
  static constexpr int mr = 6;
  static constexpr int mr_short = 2;
  static constexpr int nv_wide = 0;
  static constexpr int nv_short = 8;
};
template <> struct GemmTile<double, IsaAvx2> {
  static constexpr int mr = 6;
  static constexpr int mr_short = 1;
  static constexpr int nv_wide = 0;
  static constexpr int nv_short = 4;
};

}  // namespace stax_rt
}  // namespace
#endif  // STAX_VEC_HAS_AVX2
#endif  // STAX_RT_VEC_AVX2
// @end-sections
