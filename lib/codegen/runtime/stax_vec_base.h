// The base of the vector layer of generated code (design.md, "CPU code"; §8.1 of the design
// chapter): the primary templates that every instruction set specializes, Vec<T, I>, Mask<I> and
// TransposeBlock<T, I>, and what they share before any set is known. Each instruction set is one
// file under isa/ (its tag type, its Vec and Mask specializations, its macros), listed in the
// ISA table (include/stax/support/isa.def); stax_vec.h holds what is written once over all of
// them. The layout rules are those of stax_prelude.h: sections, include guards, internal linkage.
#include "stax_prelude.h"  // (not emitted) the sections these require, so this header compiles alone

// @section vec_config requires core math activation reduce intdiv
#ifndef STAX_RT_VEC_CONFIG
#define STAX_RT_VEC_CONFIG

namespace {
namespace stax_rt {

// I::width lanes of T (float, double, int32_t, int64_t), and I::width booleans. I is a tag type
// of an isa/ file: `width` (lanes of every dtype) and `name`.
template <typename T, typename I> struct Vec;
template <typename I> struct Mask;

// True when the compiler of this translation unit targets the instruction set I (each isa/ file
// specializes it for its tag).
template <typename I> inline constexpr bool isa_available = false;

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

// *p = the register r (Bytes of T's lanes, any alignment of T), stored through a vector type of
// T: the intrinsics' own types (__m256, __m256_u, __m512i, ...) may alias any object, so after
// each of their stores the compiler reloaded every pointer and size a loop keeps in memory (a
// convolution epilogue's buffers, captured by reference: 25 instructions per vector of a ReLU6
// instead of 14, and MobileNet-V2's depthwise layers 20% slower). A vector of T aliases only T.
// The copy of the register's bits into that type is free.
template <typename T, int Bytes, typename R> inline void vec_store_lanes_of(T* p, const R& r) {
  typedef T Lanes __attribute__((vector_size(Bytes), aligned(alignof(T))));
  static_assert(sizeof(R) == Bytes, "a whole register");
  Lanes v;
  std::memcpy(&v, &r, Bytes);
  *reinterpret_cast<Lanes*>(p) = v;
}

// NaN-propagating maximum / minimum from the instruction's m = vmax(b, a) / vmin(b, a), which is
// a where either is NaN: b where b alone is NaN, else m. Written with GCC's vector operators
// rather than compare intrinsics, so that a constant b (ReLU's 0, ReLU6's 0 and 6) folds its NaN
// test away and the whole is one instruction; with the intrinsics, each bound of a ReLU6 took
// four. R: the register type (T's lanes, as many as fit).
template <typename T, typename R> inline R vec_nan_pick(R a, R b, R m) {
  typedef T Lanes __attribute__((vector_size(sizeof(R))));
  const Lanes av = (Lanes)a, bv = (Lanes)b;
  return (R)((bv != bv) & (av == av) ? bv : (Lanes)m);
}

// f(...f(f(lane 0, lane 1), lane 2)..., lane W-1): the lanes folded in order (reduce_max/min's
// rule, stax_vec.h), for the instruction sets' own reductions to fall back on.
template <typename V, typename F> inline typename V::value_type vec_fold_lanes(V a, F f) {
  typename V::value_type l[V::size];
  a.storeu(l);
  typename V::value_type r = l[0];
  for (int i = 1; i < V::size; ++i) r = f(r, l[i]);
  return r;
}

// reduce_max/min of a float vector, the in-order fold of `op` (stax_vec.h), given `tree`: the
// extreme found by the set's own max/min instruction in any order. With no NaN lane and a nonzero
// extreme, every lane equal to it has its bits, so `tree` is the fold's answer; a NaN (the fold
// gives the first NaN lane's payload) or a zero extreme (the first zero lane's sign) folds.
template <typename V, typename Op>
inline typename V::value_type vec_ordered_extreme(V a, typename V::value_type tree, Op op) {
  if (!any(isnan(a)) && tree != 0) return tree;
  return vec_fold_lanes(a, op);
}

// dst[c * dst_stride + r] = src[r * src_stride + c] for r, c < size: one block of a tile
// transpose (stax_vec.h, transpose_tile). One element unless an instruction set specializes it.
template <typename T, typename I> struct TransposeBlock {
  static constexpr int size = 1;
  static void run(const T* src, int64_t, T* dst, int64_t) { *dst = *src; }
};

// W lanes p[0], p[2], ..., p[2 * (W - 1)]: a read with stride 2 along the vector loop (a
// pooling window of stride 2, a slice ::2), reading no element past p[2 * W - 2]; `masked`:
// lanes where m is false 0 and never read. Lane by lane (EvenLoadLanes) unless an instruction
// set specializes it (two loads, the second one element short of the first's end, and a shuffle
// of their even and odd lanes; under a mask, masked loads of the elements the lanes read), or
// only `load`, keeping the lane-by-lane `masked`.
template <typename T, typename I> struct EvenLoadLanes {
  static Vec<T, I> load(const T* p) {
    T a[I::width];
    for (int i = 0; i < I::width; ++i) a[i] = p[2 * i];
    return Vec<T, I>::loadu(a);
  }
  static Vec<T, I> masked(const T* p, Mask<I> m) {
    T a[I::width] = {};
    for (int i = 0; i < I::width; ++i)
      if (m.lane(i)) a[i] = p[2 * i];
    return Vec<T, I>::loadu(a);
  }
};
template <typename T, typename I> struct EvenLoad : EvenLoadLanes<T, I> {};

// The GEMM's register tiles for T on I (stax_gemm_kernel.h): `mr` rows of A by NR columns of B,
// NR = gemm_panel_width<T>(I::width) (two vectors of float32, one of float64; stax_gemm_pack.h),
// in mr x NR / width accumulator registers; and for an A of at most `mr_short` rows
// (token-by-token inference), wider tiles of `nv_short` vectors (whole multiples of NR), so that
// one or two rows still have enough independent sums to fill the FMA pipes (0: no such tiles);
// `nv_wide`: the vectors of a wider mr-row tile the registers hold, which a convolution's
// shifted path takes on large outputs (stax_conv_shift.h; 0: none). Each isa/ file specializes it with the shapes measured best for its registers; this default
// (12 accumulator registers, 16 in all) serves a set that does not.
template <typename T, typename I> struct GemmTile {
  static constexpr int mr = 6;
  static constexpr int mr_short = 0;
  static constexpr int nv_wide = 0;
  static constexpr int nv_short = 0;
};

}  // namespace stax_rt
}  // namespace
#endif  // STAX_RT_VEC_CONFIG
// @end-sections
