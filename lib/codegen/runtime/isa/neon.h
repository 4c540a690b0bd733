// Advanced SIMD (NEON) of AArch64 (--isa neon): 4 lanes of every dtype, float32 and int32 in one
// 128-bit register, float64 and int64 in two (lanes 0-1, 2-3), a mask in one register of 4 x
// 32-bit lanes (all ones or zero). Every AArch64 CPU has it, so every aarch64 compiler targets it
// without a flag; compiled to nothing elsewhere (32-bit ARM NEON lacks float64 lanes).
//
// The instructions' edge behaviour (Arm Architecture Reference Manual for A-profile, the A64
// Advanced SIMD instructions and the shared floating-point pseudocode), under the floating-point
// control Linux gives a process (FPCR = 0: round to nearest even; FZ = 0, subnormal operands and
// results are kept, not flushed to zero; DN = 0, a NaN operand propagates, quieted), which the
// generated code never changes:
//   - FADD FSUB FMUL FDIV FSQRT round correctly; FMLA (vfmaq) rounds once; FNEG and FABS change
//     the sign bit alone (of NaNs too).
//   - FCMEQ FCMGT FCMGE are false when an operand is NaN; != is the complement of FCMEQ.
//   - FMAX/FMIN return NaN for a NaN operand but +0 (-0) for maximum (minimum) of +0 and -0 in
//     either order, while the scalar path returns `a` for equal operands (maximum(-0, +0) = -0):
//     maximum/minimum are a compare and a select (BSL), which also keeps the NaN's bits.
//   - FRINTM FRINTP FRINTZ FRINTN: floor, ceil, trunc and round half to even, exact, the sign of
//     a zero result kept (ceil(-0.5) = -0), NaN quieted.
//   - FCVTZS (float to signed integer toward zero): FPToFixed unpacks a NaN as the value 0 and
//     saturates what is out of range (infinities too) to the integer's extremes, so the
//     instruction alone is stax_rt::cast. float64 -> int32 converts to int64 and narrows with
//     SQXTN (saturating); float32 -> int64 widens with FCVTL first (exact).
//   - SCVTF (signed integer to float) rounds once, to nearest even; FCVTN (float64 -> float32)
//     too. int64 -> float32 has no one-rounding instruction (through float64 it would round
//     twice): lane by lane, as the scalar path.
//   - ADD SUB MUL NEG ABS on integers wrap (ABS(INT_MIN) = INT_MIN; of the saturating SQ* forms
//     only the narrowing above is used). No instruction multiplies 64-bit lanes: int64 products
//     go lane by lane.
//   - Loads and stores need no alignment. There is no masked load or store: tails go through a
//     local buffer holding the first n lanes, and load_masked reads the lanes it is given one
//     by one, so no byte beyond them is touched. stream() is a plain store (no intrinsic gives
//     STNP), so stream_fence() has nothing to order.
// Transcendentals: SLEEF 3.5's AdvSIMD functions (`advsimd` suffix, the FMA build), called
// directly; float32 exp, erf and tanh are the `vec` section's inline ones, which use IEEE
// operations and fused multiply-adds only: their results are bit for bit those of AVX2 (compared
// over every 157th float32 bit pattern, run under qemu).
#include "../stax_vec_base.h"  // (not emitted)
#include "scalar.h"            // (not emitted)

// @section vec_neon requires vec_config
#ifndef STAX_RT_VEC_NEON
#define STAX_RT_VEC_NEON
#undef STAX_VEC_HAS_NEON
#if defined(__aarch64__) && defined(__ARM_NEON)
#define STAX_VEC_HAS_NEON 1
#else
#define STAX_VEC_HAS_NEON 0
#endif
#if defined(STAX_ISA_NEON)
#if defined(STAX_VEC_PINNED)
#error "define at most one STAX_ISA_* macro"
#endif
#if !STAX_VEC_HAS_NEON
#error "STAX_ISA_NEON needs a compiler targeting AArch64 (aarch64-linux-gnu-g++, or g++ on an arm64 machine)"
#endif
#define STAX_VEC_PINNED stax_rt::IsaNeon
#endif
#if STAX_VEC_HAS_NEON
#undef STAX_VEC_NATIVE
#define STAX_VEC_NATIVE stax_rt::IsaNeon  // the widest so far (isa/ files come narrowest first)
#endif
namespace {
namespace stax_rt {
struct IsaNeon {
  static constexpr int width = 4;
  static constexpr const char* name = "neon";
};
template <> inline constexpr bool isa_available<IsaNeon> = STAX_VEC_HAS_NEON != 0;
}  // namespace stax_rt
}  // namespace
#if STAX_VEC_HAS_NEON
namespace {
namespace stax_rt {

// Lanes [0, n) all ones.
inline uint32x4_t neon_first(int n) {
  static const int32_t iota[4] = {0, 1, 2, 3};
  return vcltq_s32(vld1q_s32(iota), vdupq_n_s32(n));
}
// The 32-bit lanes 0-1 (2-3) of a mask widened to 64-bit lanes, and two 64-bit masks narrowed to
// 32-bit lanes (UZP1 keeps the low half of each lane).
inline uint64x2_t neon_lo64(uint32x4_t m) {
  return vreinterpretq_u64_s64(vmovl_s32(vget_low_s32(vreinterpretq_s32_u32(m))));
}
inline uint64x2_t neon_hi64(uint32x4_t m) { return vreinterpretq_u64_s64(vmovl_high_s32(vreinterpretq_s32_u32(m))); }
inline uint32x4_t neon_join64(uint64x2_t lo, uint64x2_t hi) {
  return vuzp1q_u32(vreinterpretq_u32_u64(lo), vreinterpretq_u32_u64(hi));
}
// The first n elements (0 <= n <= 4) between memory and a 4-element buffer: the tails.
template <typename T> inline void neon_copy(T* dst, const T* src, int n) {
  std::memcpy(dst, src, sizeof(T) * static_cast<std::size_t>(n));
}

template <> struct Mask<IsaNeon> {
  static constexpr int size = 4;
  uint32x4_t m;
  Mask() = default;
  explicit Mask(uint32x4_t bits) : m(bits) {}
  explicit Mask(bool b) : m(vdupq_n_u32(b ? 0xFFFFFFFFu : 0u)) {}
  static Mask first(int n) { return Mask(neon_first(n)); }
  static Mask loadu(const bool* p) {
    uint32_t bytes;
    std::memcpy(&bytes, p, 4);
    const uint32x4_t w = vmovl_u16(vget_low_u16(vmovl_u8(vreinterpret_u8_u32(vdup_n_u32(bytes)))));
    return Mask(vtstq_u32(w, w));
  }
  static Mask loadu(const bool* p, int n) {
    unsigned char b[4] = {};
    std::memcpy(b, p, static_cast<std::size_t>(n));
    return loadu(reinterpret_cast<const bool*>(b));
  }
  void storeu(bool* p) const {
    const uint16x4_t h = vmovn_u32(vandq_u32(m, vdupq_n_u32(1)));
    const uint32_t bytes = vget_lane_u32(vreinterpret_u32_u8(vmovn_u16(vcombine_u16(h, h))), 0);
    std::memcpy(p, &bytes, 4);
  }
  void storeu(bool* p, int n) const {
    unsigned char b[4];
    storeu(reinterpret_cast<bool*>(b));
    std::memcpy(p, b, static_cast<std::size_t>(n));
  }
  bool lane(int i) const {
    uint32_t a[4];
    vst1q_u32(a, m);
    return a[i] != 0;
  }
  uint64x2_t lo64() const { return neon_lo64(m); }
  uint64x2_t hi64() const { return neon_hi64(m); }
  static Mask join64(uint64x2_t lo, uint64x2_t hi) { return Mask(neon_join64(lo, hi)); }
};

template <> struct Vec<float, IsaNeon> {
  using value_type = float;
  using isa = IsaNeon;
  static constexpr int size = 4;
  float32x4_t v;
  Vec() = default;
  explicit Vec(float32x4_t x) : v(x) {}
  explicit Vec(float x) : v(vdupq_n_f32(x)) {}
  static Vec load(const float* p) { return Vec(vld1q_f32(p)); }
  static Vec loadu(const float* p) { return Vec(vld1q_f32(p)); }
  static Vec loadu(const float* p, int n) { return loadu(p, n, 0.0f); }
  static Vec loadu(const float* p, int n, float fill) {
    float b[4] = {fill, fill, fill, fill};
    neon_copy(b, p, n);
    return loadu(b);
  }
  static Vec iota(float start) {
    static const float k[4] = {0, 1, 2, 3};
    return Vec(vaddq_f32(vdupq_n_f32(start), vld1q_f32(k)));
  }
  void store(float* p) const { vst1q_f32(p, v); }
  void storeu(float* p) const { vst1q_f32(p, v); }
  void storeu(float* p, int n) const {
    float b[4];
    storeu(b);
    neon_copy(p, b, n);
  }
  void stream(float* p) const { vst1q_f32(p, v); }
  float lane(int i) const {
    float a[4];
    storeu(a);
    return a[i];
  }
};

template <> struct Vec<double, IsaNeon> {
  using value_type = double;
  using isa = IsaNeon;
  static constexpr int size = 4;
  float64x2_t lo, hi;
  Vec() = default;
  Vec(float64x2_t l, float64x2_t h) : lo(l), hi(h) {}
  explicit Vec(double x) : lo(vdupq_n_f64(x)), hi(lo) {}
  static Vec load(const double* p) { return Vec(vld1q_f64(p), vld1q_f64(p + 2)); }
  static Vec loadu(const double* p) { return Vec(vld1q_f64(p), vld1q_f64(p + 2)); }
  static Vec loadu(const double* p, int n) { return loadu(p, n, 0.0); }
  static Vec loadu(const double* p, int n, double fill) {
    double b[4] = {fill, fill, fill, fill};
    neon_copy(b, p, n);
    return loadu(b);
  }
  static Vec iota(double start) {
    static const double k[4] = {0, 1, 2, 3};
    const float64x2_t s = vdupq_n_f64(start);
    return Vec(vaddq_f64(s, vld1q_f64(k)), vaddq_f64(s, vld1q_f64(k + 2)));
  }
  void store(double* p) const { storeu(p); }
  void storeu(double* p) const {
    vst1q_f64(p, lo);
    vst1q_f64(p + 2, hi);
  }
  void storeu(double* p, int n) const {
    double b[4];
    storeu(b);
    neon_copy(p, b, n);
  }
  void stream(double* p) const { storeu(p); }
  double lane(int i) const {
    double a[4];
    storeu(a);
    return a[i];
  }
};

template <> struct Vec<int32_t, IsaNeon> {
  using value_type = int32_t;
  using isa = IsaNeon;
  static constexpr int size = 4;
  int32x4_t v;
  Vec() = default;
  explicit Vec(int32x4_t x) : v(x) {}
  explicit Vec(int32_t x) : v(vdupq_n_s32(x)) {}
  static Vec load(const int32_t* p) { return Vec(vld1q_s32(p)); }
  static Vec loadu(const int32_t* p) { return Vec(vld1q_s32(p)); }
  static Vec loadu(const int32_t* p, int n) { return loadu(p, n, 0); }
  static Vec loadu(const int32_t* p, int n, int32_t fill) {
    int32_t b[4] = {fill, fill, fill, fill};
    neon_copy(b, p, n);
    return loadu(b);
  }
  static Vec iota(int32_t start) {
    static const int32_t k[4] = {0, 1, 2, 3};
    return Vec(vaddq_s32(vdupq_n_s32(start), vld1q_s32(k)));
  }
  void store(int32_t* p) const { vst1q_s32(p, v); }
  void storeu(int32_t* p) const { vst1q_s32(p, v); }
  void storeu(int32_t* p, int n) const {
    int32_t b[4];
    storeu(b);
    neon_copy(p, b, n);
  }
  void stream(int32_t* p) const { vst1q_s32(p, v); }
  int32_t lane(int i) const {
    int32_t a[4];
    storeu(a);
    return a[i];
  }
};

template <> struct Vec<int64_t, IsaNeon> {
  using value_type = int64_t;
  using isa = IsaNeon;
  static constexpr int size = 4;
  int64x2_t lo, hi;
  Vec() = default;
  Vec(int64x2_t l, int64x2_t h) : lo(l), hi(h) {}
  explicit Vec(int64_t x) : lo(vdupq_n_s64(x)), hi(lo) {}
  // (int64_t is long on AArch64 Linux, the element type of vld1q_s64.)
  static Vec load(const int64_t* p) { return loadu(p); }
  static Vec loadu(const int64_t* p) { return Vec(vld1q_s64(p), vld1q_s64(p + 2)); }
  static Vec loadu(const int64_t* p, int n) { return loadu(p, n, 0); }
  static Vec loadu(const int64_t* p, int n, int64_t fill) {
    int64_t b[4] = {fill, fill, fill, fill};
    neon_copy(b, p, n);
    return loadu(b);
  }
  static Vec iota(int64_t start) {
    static const int64_t k[4] = {0, 1, 2, 3};
    const int64x2_t s = vdupq_n_s64(start);
    return Vec(vaddq_s64(s, vld1q_s64(k)), vaddq_s64(s, vld1q_s64(k + 2)));
  }
  void store(int64_t* p) const { storeu(p); }
  void storeu(int64_t* p) const {
    vst1q_s64(p, lo);
    vst1q_s64(p + 2, hi);
  }
  void storeu(int64_t* p, int n) const {
    int64_t b[4];
    storeu(b);
    neon_copy(p, b, n);
  }
  void stream(int64_t* p) const { storeu(p); }
  int64_t lane(int i) const {
    int64_t a[4];
    storeu(a);
    return a[i];
  }
};

using NeonM = Mask<IsaNeon>;
using NeonF = Vec<float, IsaNeon>;
using NeonD = Vec<double, IsaNeon>;
using NeonI = Vec<int32_t, IsaNeon>;
using NeonL = Vec<int64_t, IsaNeon>;

// ---- masks ----
inline NeonM operator&(NeonM a, NeonM b) { return NeonM(vandq_u32(a.m, b.m)); }
inline NeonM operator|(NeonM a, NeonM b) { return NeonM(vorrq_u32(a.m, b.m)); }
inline NeonM operator^(NeonM a, NeonM b) { return NeonM(veorq_u32(a.m, b.m)); }
inline NeonM operator~(NeonM a) { return NeonM(vmvnq_u32(a.m)); }
inline bool any(NeonM m) { return vmaxvq_u32(m.m) != 0; }
inline bool all(NeonM m) { return vminvq_u32(m.m) != 0; }

// ---- float32 ----
inline NeonF operator+(NeonF a, NeonF b) { return NeonF(vaddq_f32(a.v, b.v)); }
inline NeonF operator-(NeonF a, NeonF b) { return NeonF(vsubq_f32(a.v, b.v)); }
inline NeonF operator*(NeonF a, NeonF b) { return NeonF(vmulq_f32(a.v, b.v)); }
inline NeonF operator/(NeonF a, NeonF b) { return NeonF(vdivq_f32(a.v, b.v)); }
inline NeonF operator-(NeonF a) { return NeonF(vnegq_f32(a.v)); }
inline NeonF fma(NeonF a, NeonF b, NeonF c) { return NeonF(vfmaq_f32(c.v, a.v, b.v)); }
inline NeonF abs(NeonF a) { return NeonF(vabsq_f32(a.v)); }
inline NeonF sqrt(NeonF a) { return NeonF(vsqrtq_f32(a.v)); }
inline NeonF floor(NeonF a) { return NeonF(vrndmq_f32(a.v)); }
inline NeonF ceil(NeonF a) { return NeonF(vrndpq_f32(a.v)); }
inline NeonF trunc(NeonF a) { return NeonF(vrndq_f32(a.v)); }
inline NeonF round(NeonF a) { return NeonF(vrndnq_f32(a.v)); }
inline NeonM operator==(NeonF a, NeonF b) { return NeonM(vceqq_f32(a.v, b.v)); }
inline NeonM operator!=(NeonF a, NeonF b) { return NeonM(vmvnq_u32(vceqq_f32(a.v, b.v))); }
inline NeonM operator<(NeonF a, NeonF b) { return NeonM(vcltq_f32(a.v, b.v)); }
inline NeonM operator<=(NeonF a, NeonF b) { return NeonM(vcleq_f32(a.v, b.v)); }
inline NeonM operator>(NeonF a, NeonF b) { return NeonM(vcgtq_f32(a.v, b.v)); }
inline NeonM operator>=(NeonF a, NeonF b) { return NeonM(vcgeq_f32(a.v, b.v)); }
inline NeonM isnan(NeonF a) { return a != a; }
inline NeonF where(NeonM m, NeonF a, NeonF b) { return NeonF(vbslq_f32(m.m, a.v, b.v)); }
// b where `a < b`, or where b alone is NaN; else a (a NaN a included).
inline NeonF maximum(NeonF a, NeonF b) {
  const uint32x4_t b_only_nan = vbicq_u32(vceqq_f32(a.v, a.v), vceqq_f32(b.v, b.v));
  return NeonF(vbslq_f32(vorrq_u32(vcltq_f32(a.v, b.v), b_only_nan), b.v, a.v));
}
inline NeonF minimum(NeonF a, NeonF b) {
  const uint32x4_t b_only_nan = vbicq_u32(vceqq_f32(a.v, a.v), vceqq_f32(b.v, b.v));
  return NeonF(vbslq_f32(vorrq_u32(vcltq_f32(b.v, a.v), b_only_nan), b.v, a.v));
}
// Halves folded: (l0+l2) + (l1+l3).
inline float reduce_sum(NeonF a) {
  const float32x2_t s = vadd_f32(vget_low_f32(a.v), vget_high_f32(a.v));
  return vget_lane_f32(s, 0) + vget_lane_f32(s, 1);
}

// ---- float64 ----
#define STAX_VEC_D_BINARY(OP, INTRIN) \
  inline NeonD operator OP(NeonD a, NeonD b) { return NeonD(INTRIN(a.lo, b.lo), INTRIN(a.hi, b.hi)); }
STAX_VEC_D_BINARY(+, vaddq_f64)
STAX_VEC_D_BINARY(-, vsubq_f64)
STAX_VEC_D_BINARY(*, vmulq_f64)
STAX_VEC_D_BINARY(/, vdivq_f64)
#undef STAX_VEC_D_BINARY
#define STAX_VEC_D_UNARY(NAME, INTRIN) \
  inline NeonD NAME(NeonD a) { return NeonD(INTRIN(a.lo), INTRIN(a.hi)); }
STAX_VEC_D_UNARY(operator-, vnegq_f64)
STAX_VEC_D_UNARY(abs, vabsq_f64)
STAX_VEC_D_UNARY(sqrt, vsqrtq_f64)
STAX_VEC_D_UNARY(floor, vrndmq_f64)
STAX_VEC_D_UNARY(ceil, vrndpq_f64)
STAX_VEC_D_UNARY(trunc, vrndq_f64)
STAX_VEC_D_UNARY(round, vrndnq_f64)
#undef STAX_VEC_D_UNARY
inline NeonD fma(NeonD a, NeonD b, NeonD c) { return NeonD(vfmaq_f64(c.lo, a.lo, b.lo), vfmaq_f64(c.hi, a.hi, b.hi)); }
#define STAX_VEC_CMP_PD(OP, INTRIN) \
  inline NeonM operator OP(NeonD a, NeonD b) { return NeonM::join64(INTRIN(a.lo, b.lo), INTRIN(a.hi, b.hi)); }
STAX_VEC_CMP_PD(==, vceqq_f64)
STAX_VEC_CMP_PD(<, vcltq_f64)
STAX_VEC_CMP_PD(<=, vcleq_f64)
STAX_VEC_CMP_PD(>, vcgtq_f64)
STAX_VEC_CMP_PD(>=, vcgeq_f64)
#undef STAX_VEC_CMP_PD
inline NeonM operator!=(NeonD a, NeonD b) { return ~(a == b); }
inline NeonM isnan(NeonD a) { return a != a; }
inline NeonD where(NeonM m, NeonD a, NeonD b) {
  return NeonD(vbslq_f64(m.lo64(), a.lo, b.lo), vbslq_f64(m.hi64(), a.hi, b.hi));
}
inline float64x2_t neon_maximum_f64(float64x2_t a, float64x2_t b) {
  const uint64x2_t b_only_nan = vbicq_u64(vceqq_f64(a, a), vceqq_f64(b, b));
  return vbslq_f64(vorrq_u64(vcltq_f64(a, b), b_only_nan), b, a);
}
inline float64x2_t neon_minimum_f64(float64x2_t a, float64x2_t b) {
  const uint64x2_t b_only_nan = vbicq_u64(vceqq_f64(a, a), vceqq_f64(b, b));
  return vbslq_f64(vorrq_u64(vcltq_f64(b, a), b_only_nan), b, a);
}
inline NeonD maximum(NeonD a, NeonD b) { return NeonD(neon_maximum_f64(a.lo, b.lo), neon_maximum_f64(a.hi, b.hi)); }
inline NeonD minimum(NeonD a, NeonD b) { return NeonD(neon_minimum_f64(a.lo, b.lo), neon_minimum_f64(a.hi, b.hi)); }
// (l0+l2) + (l1+l3).
inline double reduce_sum(NeonD a) {
  const float64x2_t s = vaddq_f64(a.lo, a.hi);
  return vgetq_lane_f64(s, 0) + vgetq_lane_f64(s, 1);
}

// ---- int32 (wrapping) ----
inline NeonI operator+(NeonI a, NeonI b) { return NeonI(vaddq_s32(a.v, b.v)); }
inline NeonI operator-(NeonI a, NeonI b) { return NeonI(vsubq_s32(a.v, b.v)); }
inline NeonI operator*(NeonI a, NeonI b) { return NeonI(vmulq_s32(a.v, b.v)); }
inline NeonI operator-(NeonI a) { return NeonI(vnegq_s32(a.v)); }
inline NeonI operator&(NeonI a, NeonI b) { return NeonI(vandq_s32(a.v, b.v)); }
inline NeonI operator|(NeonI a, NeonI b) { return NeonI(vorrq_s32(a.v, b.v)); }
inline NeonI operator^(NeonI a, NeonI b) { return NeonI(veorq_s32(a.v, b.v)); }
inline NeonI operator~(NeonI a) { return NeonI(vmvnq_s32(a.v)); }
inline NeonI abs(NeonI a) { return NeonI(vabsq_s32(a.v)); }
inline NeonI maximum(NeonI a, NeonI b) { return NeonI(vmaxq_s32(a.v, b.v)); }
inline NeonI minimum(NeonI a, NeonI b) { return NeonI(vminq_s32(a.v, b.v)); }
inline NeonM operator==(NeonI a, NeonI b) { return NeonM(vceqq_s32(a.v, b.v)); }
inline NeonM operator!=(NeonI a, NeonI b) { return NeonM(vmvnq_u32(vceqq_s32(a.v, b.v))); }
inline NeonM operator<(NeonI a, NeonI b) { return NeonM(vcltq_s32(a.v, b.v)); }
inline NeonM operator<=(NeonI a, NeonI b) { return NeonM(vcleq_s32(a.v, b.v)); }
inline NeonM operator>(NeonI a, NeonI b) { return NeonM(vcgtq_s32(a.v, b.v)); }
inline NeonM operator>=(NeonI a, NeonI b) { return NeonM(vcgeq_s32(a.v, b.v)); }
inline NeonI where(NeonM m, NeonI a, NeonI b) { return NeonI(vbslq_s32(m.m, a.v, b.v)); }

// ---- int64 (wrapping) ----
// Lane by lane in unsigned arithmetic (no instruction multiplies 64-bit lanes).
inline int64x2_t neon_mul_s64(int64x2_t a, int64x2_t b) {
  const uint64x2_t ua = vreinterpretq_u64_s64(a), ub = vreinterpretq_u64_s64(b);
  const uint64_t p0 = vgetq_lane_u64(ua, 0) * vgetq_lane_u64(ub, 0);
  const uint64_t p1 = vgetq_lane_u64(ua, 1) * vgetq_lane_u64(ub, 1);
  return vreinterpretq_s64_u64(vsetq_lane_u64(p1, vdupq_n_u64(p0), 1));
}
#define STAX_VEC_L_BINARY(OP, INTRIN) \
  inline NeonL operator OP(NeonL a, NeonL b) { return NeonL(INTRIN(a.lo, b.lo), INTRIN(a.hi, b.hi)); }
STAX_VEC_L_BINARY(+, vaddq_s64)
STAX_VEC_L_BINARY(-, vsubq_s64)
STAX_VEC_L_BINARY(*, neon_mul_s64)
STAX_VEC_L_BINARY(&, vandq_s64)
STAX_VEC_L_BINARY(|, vorrq_s64)
STAX_VEC_L_BINARY(^, veorq_s64)
#undef STAX_VEC_L_BINARY
inline NeonL operator-(NeonL a) { return NeonL(vnegq_s64(a.lo), vnegq_s64(a.hi)); }
inline NeonL operator~(NeonL a) { return a ^ NeonL(int64_t(-1)); }
inline NeonL abs(NeonL a) { return NeonL(vabsq_s64(a.lo), vabsq_s64(a.hi)); }
#define STAX_VEC_L_CMP(OP, INTRIN) \
  inline NeonM operator OP(NeonL a, NeonL b) { return NeonM::join64(INTRIN(a.lo, b.lo), INTRIN(a.hi, b.hi)); }
STAX_VEC_L_CMP(==, vceqq_s64)
STAX_VEC_L_CMP(<, vcltq_s64)
STAX_VEC_L_CMP(<=, vcleq_s64)
STAX_VEC_L_CMP(>, vcgtq_s64)
STAX_VEC_L_CMP(>=, vcgeq_s64)
#undef STAX_VEC_L_CMP
inline NeonM operator!=(NeonL a, NeonL b) { return ~(a == b); }
inline NeonL where(NeonM m, NeonL a, NeonL b) {
  return NeonL(vbslq_s64(m.lo64(), a.lo, b.lo), vbslq_s64(m.hi64(), a.hi, b.hi));
}
inline NeonL maximum(NeonL a, NeonL b) {
  return NeonL(vbslq_s64(vcgtq_s64(b.lo, a.lo), b.lo, a.lo), vbslq_s64(vcgtq_s64(b.hi, a.hi), b.hi, a.hi));
}
inline NeonL minimum(NeonL a, NeonL b) {
  return NeonL(vbslq_s64(vcgtq_s64(a.lo, b.lo), b.lo, a.lo), vbslq_s64(vcgtq_s64(a.hi, b.hi), b.hi, a.hi));
}

// ---- masked loads (the `masked` bodies of cat and pad): lanes where m is false are 0 and
// their addresses are never read (no instruction masks a load: the lanes one by one, or one
// whole load when every lane is wanted) ----
template <typename T> inline Vec<T, IsaNeon> neon_load_masked(const T* p, NeonM m) {
  if (all(m)) return Vec<T, IsaNeon>::loadu(p);
  uint32_t want[4];
  vst1q_u32(want, m.m);
  T b[4];
  for (int i = 0; i < 4; ++i) b[i] = want[i] != 0 ? p[i] : T(0);
  return Vec<T, IsaNeon>::loadu(b);
}
inline NeonF load_masked(const float* p, NeonM m) { return neon_load_masked(p, m); }
inline NeonD load_masked(const double* p, NeonM m) { return neon_load_masked(p, m); }
inline NeonI load_masked(const int32_t* p, NeonM m) { return neon_load_masked(p, m); }
inline NeonL load_masked(const int64_t* p, NeonM m) { return neon_load_masked(p, m); }

// ---- conversions (cast<To>(v) picks these; semantics of stax_rt::cast, see the top) ----
inline NeonD convert(NeonF x, VecTag<double>) { return NeonD(vcvt_f64_f32(vget_low_f32(x.v)), vcvt_high_f64_f32(x.v)); }
inline NeonF convert(NeonD x, VecTag<float>) { return NeonF(vcvt_high_f32_f64(vcvt_f32_f64(x.lo), x.hi)); }
inline NeonF convert(NeonI x, VecTag<float>) { return NeonF(vcvtq_f32_s32(x.v)); }
inline NeonL convert(NeonI x, VecTag<int64_t>) { return NeonL(vmovl_s32(vget_low_s32(x.v)), vmovl_high_s32(x.v)); }
inline NeonD convert(NeonI x, VecTag<double>) {
  const NeonL w = convert(x, VecTag<int64_t>());
  return NeonD(vcvtq_f64_s64(w.lo), vcvtq_f64_s64(w.hi));
}
inline NeonI convert(NeonL x, VecTag<int32_t>) { return NeonI(vmovn_high_s64(vmovn_s64(x.lo), x.hi)); }
inline NeonD convert(NeonL x, VecTag<double>) { return NeonD(vcvtq_f64_s64(x.lo), vcvtq_f64_s64(x.hi)); }
inline NeonF convert(NeonL x, VecTag<float>) { return convert_lanes<float>(x); }
inline NeonI convert(NeonF x, VecTag<int32_t>) { return NeonI(vcvtq_s32_f32(x.v)); }
inline NeonL convert(NeonD x, VecTag<int64_t>) { return NeonL(vcvtq_s64_f64(x.lo), vcvtq_s64_f64(x.hi)); }
inline NeonL convert(NeonF x, VecTag<int64_t>) { return convert(convert(x, VecTag<double>()), VecTag<int64_t>()); }
inline NeonI convert(NeonD x, VecTag<int32_t>) {
  return NeonI(vqmovn_high_s64(vqmovn_s64(vcvtq_s64_f64(x.lo)), vcvtq_s64_f64(x.hi)));
}

// ---- bits of float32 lanes (the inline float32 exp, erf and tanh of the `vec` section) ----
inline NeonI bit_cast_i32(NeonF x) { return NeonI(vreinterpretq_s32_f32(x.v)); }
inline NeonF bit_cast_f32(NeonI x) { return NeonF(vreinterpretq_f32_s32(x.v)); }
// SSHL shifts by a register, left for a positive count and right (arithmetic) for a negative one.
// SSHL takes the count's low byte as signed (255 shifts right by 1): a count outside [0, 31] is
// made explicit, 0 for a left shift and the sign in every bit for a right one (stax_vec.h's rule).
inline NeonI shift_left(NeonI x, int n) {
  if (n < 0 || n > 31) return NeonI(vdupq_n_s32(0));
  return NeonI(vshlq_s32(x.v, vdupq_n_s32(n)));
}
inline NeonI shift_right_arith(NeonI x, int n) {
  const int count = n < 0 || n > 31 ? 31 : n;
  return NeonI(vshlq_s32(x.v, vdupq_n_s32(-count)));
}

// ---- transcendentals: SLEEF 3.5's AdvSIMD functions, called directly; float32 exp, erf and
// tanh are the `vec` section's inline ones ----
#define STAX_VEC_SLEEF1_D(NAME, FN_D) \
  inline NeonD NAME(NeonD x) { return NeonD(FN_D(x.lo), FN_D(x.hi)); }
#define STAX_VEC_SLEEF1(NAME, FN_F, FN_D)                \
  inline NeonF NAME(NeonF x) { return NeonF(FN_F(x.v)); } \
  STAX_VEC_SLEEF1_D(NAME, FN_D)
#define STAX_VEC_SLEEF2(NAME, FN_F, FN_D)                                \
  inline NeonF NAME(NeonF x, NeonF y) { return NeonF(FN_F(x.v, y.v)); }  \
  inline NeonD NAME(NeonD x, NeonD y) { return NeonD(FN_D(x.lo, y.lo), FN_D(x.hi, y.hi)); }
STAX_VEC_SLEEF1_D(exp, Sleef_expd2_u10advsimd)
STAX_VEC_SLEEF1(exp2, Sleef_exp2f4_u10advsimd, Sleef_exp2d2_u10advsimd)
STAX_VEC_SLEEF1(expm1, Sleef_expm1f4_u10advsimd, Sleef_expm1d2_u10advsimd)
STAX_VEC_SLEEF1(log, Sleef_logf4_u10advsimd, Sleef_logd2_u10advsimd)
STAX_VEC_SLEEF1(log2, Sleef_log2f4_u10advsimd, Sleef_log2d2_u10advsimd)
STAX_VEC_SLEEF1(log10, Sleef_log10f4_u10advsimd, Sleef_log10d2_u10advsimd)
STAX_VEC_SLEEF1(sleef_log1p, Sleef_log1pf4_u10advsimd, Sleef_log1pd2_u10advsimd)
STAX_VEC_SLEEF1(sin, Sleef_sinf4_u10advsimd, Sleef_sind2_u10advsimd)
STAX_VEC_SLEEF1(cos, Sleef_cosf4_u10advsimd, Sleef_cosd2_u10advsimd)
STAX_VEC_SLEEF1(tan, Sleef_tanf4_u10advsimd, Sleef_tand2_u10advsimd)
STAX_VEC_SLEEF1(asin, Sleef_asinf4_u10advsimd, Sleef_asind2_u10advsimd)
STAX_VEC_SLEEF1(acos, Sleef_acosf4_u10advsimd, Sleef_acosd2_u10advsimd)
STAX_VEC_SLEEF1(atan, Sleef_atanf4_u10advsimd, Sleef_atand2_u10advsimd)
STAX_VEC_SLEEF1(sinh, Sleef_sinhf4_u10advsimd, Sleef_sinhd2_u10advsimd)
STAX_VEC_SLEEF1(cosh, Sleef_coshf4_u10advsimd, Sleef_coshd2_u10advsimd)
STAX_VEC_SLEEF1_D(tanh, Sleef_tanhd2_u10advsimd)
STAX_VEC_SLEEF1_D(erf, Sleef_erfd2_u10advsimd)
STAX_VEC_SLEEF1(erfc, Sleef_erfcf4_u15advsimd, Sleef_erfcd2_u15advsimd)
STAX_VEC_SLEEF2(atan2, Sleef_atan2f4_u10advsimd, Sleef_atan2d2_u10advsimd)
STAX_VEC_SLEEF2(pow, Sleef_powf4_u10advsimd, Sleef_powd2_u10advsimd)
#undef STAX_VEC_SLEEF1
#undef STAX_VEC_SLEEF1_D
#undef STAX_VEC_SLEEF2

// ---- tile transposes (the 2-D tiled form of §8.2; stax_vec.h, transpose_tile) ----
// Rows and columns move as bits (memcpy in and out of registers, so any element type may pass
// through the integer lanes): NaN payloads and signed zeros come through.
inline uint32x4_t neon_bits32(const void* p) {
  uint32x4_t r;
  std::memcpy(&r, p, sizeof r);
  return r;
}
inline uint64x2_t neon_bits64(const void* p) {
  uint64x2_t r;
  std::memcpy(&r, p, sizeof r);
  return r;
}
template <typename R> inline void neon_put(void* p, R r) { std::memcpy(p, &r, sizeof r); }

// 4 x 4 four-byte lanes: pairs of rows interleaved (TRN1/TRN2 on 32-bit lanes), then their
// 64-bit halves (TRN1/TRN2 on 64-bit lanes): 8 shuffles for 16 elements.
template <typename T> struct NeonTranspose4x4x32 {
  static_assert(sizeof(T) == 4, "4 x 4 blocks of 4-byte elements");
  static constexpr int size = 4;
  static void run(const T* src, int64_t src_stride, T* dst, int64_t dst_stride) {
    const uint32x4_t r0 = neon_bits32(src), r1 = neon_bits32(src + src_stride),
                     r2 = neon_bits32(src + 2 * src_stride), r3 = neon_bits32(src + 3 * src_stride);
    // t0 = r0[0] r1[0] r0[2] r1[2], t1 = r0[1] r1[1] r0[3] r1[3]; t2, t3 the same of rows 2, 3.
    const uint64x2_t t0 = vreinterpretq_u64_u32(vtrn1q_u32(r0, r1)), t1 = vreinterpretq_u64_u32(vtrn2q_u32(r0, r1));
    const uint64x2_t t2 = vreinterpretq_u64_u32(vtrn1q_u32(r2, r3)), t3 = vreinterpretq_u64_u32(vtrn2q_u32(r2, r3));
    // Column j: the low halves of t_j and t_j+2; column j + 2: their high halves.
    neon_put(dst, vtrn1q_u64(t0, t2));
    neon_put(dst + dst_stride, vtrn1q_u64(t1, t3));
    neon_put(dst + 2 * dst_stride, vtrn2q_u64(t0, t2));
    neon_put(dst + 3 * dst_stride, vtrn2q_u64(t1, t3));
  }
};

// 4 x 4 eight-byte lanes, as four 2 x 2 blocks (TRN1/TRN2 on 64-bit lanes).
template <typename T> struct NeonTranspose4x4x64 {
  static_assert(sizeof(T) == 8, "4 x 4 blocks of 8-byte elements");
  static constexpr int size = 4;
  static void run(const T* src, int64_t src_stride, T* dst, int64_t dst_stride) {
    for (int h = 0; h < 4; h += 2) {  // (source columns h, h + 1: destination rows h, h + 1)
      const uint64x2_t r0 = neon_bits64(src + h), r1 = neon_bits64(src + src_stride + h),
                       r2 = neon_bits64(src + 2 * src_stride + h), r3 = neon_bits64(src + 3 * src_stride + h);
      T* d = dst + h * dst_stride;
      neon_put(d, vtrn1q_u64(r0, r1));
      neon_put(d + 2, vtrn1q_u64(r2, r3));
      neon_put(d + dst_stride, vtrn2q_u64(r0, r1));
      neon_put(d + dst_stride + 2, vtrn2q_u64(r2, r3));
    }
  }
};

template <> struct TransposeBlock<float, IsaNeon> : NeonTranspose4x4x32<float> {};
template <> struct TransposeBlock<int32_t, IsaNeon> : NeonTranspose4x4x32<int32_t> {};
template <> struct TransposeBlock<double, IsaNeon> : NeonTranspose4x4x64<double> {};
template <> struct TransposeBlock<int64_t, IsaNeon> : NeonTranspose4x4x64<int64_t> {};

// Stride-2 reads (EvenLoad): a = p[0..3], b = p[3..6]; uzp1 of a and b rotated by one (b1 b2 b3
// b0) is p0 p2 p4 p6. float64: uzp1 of p[0..1] and p[2..3], then of p[4..5] and p[5..6] swapped.
// Under a mask, lane by lane (EvenLoadLanes).
template <> struct EvenLoad<float, IsaNeon> : EvenLoadLanes<float, IsaNeon> {
  static Vec<float, IsaNeon> load(const float* p) {
    const float32x4_t b = vld1q_f32(p + 3);
    return Vec<float, IsaNeon>(vuzp1q_f32(vld1q_f32(p), vextq_f32(b, b, 1)));
  }
};
template <> struct EvenLoad<double, IsaNeon> : EvenLoadLanes<double, IsaNeon> {
  static Vec<double, IsaNeon> load(const double* p) {
    const float64x2_t b = vld1q_f64(p + 5);
    return Vec<double, IsaNeon>(vuzp1q_f64(vld1q_f64(p), vld1q_f64(p + 2)), vuzp1q_f64(vld1q_f64(p + 4), vextq_f64(b, b, 1)));
  }
};

}  // namespace stax_rt
}  // namespace
#endif  // STAX_VEC_HAS_NEON
#endif  // STAX_RT_VEC_NEON
// @end-sections
