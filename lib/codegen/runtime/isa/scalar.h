// The scalar instruction set of the vector layer (--isa scalar; the tails of every set): one lane,
// the prelude's scalar functions behind the Vec interface, so that a kernel written against
// Vec<T, I> also builds without SIMD. Always available.
//
// Edge semantics: this set is the scalar path itself, the reference of the others: each operation
// is the prelude's function of its one lane (wrapping integers, NaN-propagating maximum/minimum,
// stax_rt::cast's saturating conversions, IEEE comparisons, intdiv's rules). What is its own:
// fma rounds once when the compiler targets FMA and twice otherwise (the other sets always have
// it: they differ from this one there only in a build without FMA); iota(start) is start + 0, as
// lane 0 of every set (so iota(-0.0) is +0); tails with n <= 0 read and write nothing. It has no
// shifts or bit casts (they serve the SIMD sets' inline float32 functions only).
#include "../stax_vec_base.h"  // (not emitted)

// @section vec_scalar requires vec_config
#ifndef STAX_RT_VEC_SCALAR
#define STAX_RT_VEC_SCALAR
#undef STAX_VEC_HAS_SCALAR
#define STAX_VEC_HAS_SCALAR 1
#if defined(STAX_ISA_SCALAR)
#if defined(STAX_VEC_PINNED)
#error "define at most one STAX_ISA_* macro"
#endif
#if !STAX_VEC_HAS_SCALAR
#error "STAX_ISA_SCALAR needs a compiler targeting it (any compiler)"
#endif
#define STAX_VEC_PINNED stax_rt::IsaScalar
#endif
#if STAX_VEC_HAS_SCALAR
#undef STAX_VEC_NATIVE
#define STAX_VEC_NATIVE stax_rt::IsaScalar  // the widest so far (isa/ files come narrowest first)
#endif
namespace {
namespace stax_rt {
struct IsaScalar {
  static constexpr int width = 1;
  static constexpr const char* name = "scalar";
};
template <> inline constexpr bool isa_available<IsaScalar> = STAX_VEC_HAS_SCALAR != 0;
}  // namespace stax_rt
}  // namespace
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
  static Vec iota(T start) { return Vec(add(start, T(0))); }  // start + 0, as lane 0 of every set (-0 + 0 = +0)
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
// std::fma rounds once but is a library call without FMA hardware; then two roundings. (AArch64
// always has it.)
template <typename T> inline ScalarV<T> fma(ScalarV<T> a, ScalarV<T> b, ScalarV<T> c) {
#if defined(__FMA__) || defined(__ARM_FEATURE_FMA)
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

// GEMM tiles (stax_gemm_kernel.h): 4 x 2 float and 4 x 1 double scalar accumulators.
template <typename T> struct GemmTile<T, IsaScalar> {
  static constexpr int mr = 4;
  static constexpr int mr_short = 0;
  static constexpr int nv_wide = 0;
  static constexpr int nv_short = 0;
};

}  // namespace stax_rt
}  // namespace
#endif  // STAX_RT_VEC_SCALAR
// @end-sections
