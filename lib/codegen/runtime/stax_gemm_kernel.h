// The GEMM's micro-kernels and run-time packing, written once over Vec<T, I> (design.md, "CPU
// code": BLIS-style packed panels and register-blocked micro-kernels per instruction set). The
// driver that blocks for the caches and spreads the work over threads is stax_gemm.h. Same
// section rules as stax_prelude.h.
//
// Summation order, the property every path keeps: element (i, j) of C is the chain
//     c = 0;  for k = 0 .. K-1:  c = fma(a[i][k], b[k][j], c)
// in T, one fused multiply-add per k in increasing k (with the instruction set's fma: fused on
// AVX2, AVX-512 and NEON, and on the scalar set when the compiler targets FMA). A tile keeps c in a
// register over one KC block and reloads it from C for the next, so the bits of C depend neither
// on the cache blocking nor on how tiles are spread over threads, nor on the instruction set when
// it has FMA: they equal a plain loop of std::fma. The error is that of recursive summation,
// |c - exact| <= K u sum_k |a[i][k] b[k][j]| (docs/graph-format.md, "Precise rules").
#include "stax_vec.h"        // (not emitted) the sections these require, so this header compiles alone
#include "stax_gemm_pack.h"  // (not emitted)

// @section gemm_kernel requires vec_transpose gemm_pack
#ifndef STAX_RT_GEMM_KERNEL
#define STAX_RT_GEMM_KERNEL
namespace {
namespace stax_rt {

#define STAX_GEMM_UNROLL _Pragma("GCC unroll 32")

// n lanes of C at p into a register (the rest 0), or stored from it: the tile's partial columns.
template <typename V, typename T> inline V gemm_load_lanes(const T* p, int n) {
  if (n >= V::size) return V::loadu(p);
  return n > 0 ? V::loadu(p, n) : V(T(0));
}
template <typename V, typename T> inline void gemm_store_lanes(V x, T* p, int n) {
  if (n >= V::size) x.storeu(p);
  else if (n > 0) x.storeu(p, n);
}

// The micro-kernel: C[0:MR, 0:n] = (accumulate ? C : 0) + A * B over one KC block, n <= NV * W.
// A is a packed panel, element (i, k) at a[k * a_ks + i]; B is NV * W columns of packed panels of
// NVP vectors each, `b_ps` apart (or of a row-major B, NVP = NV), element (k, j) of its panel
// at b[k * b_ks + j]. The MR x NV accumulators stay in registers over the whole block: one B row
// is NV loads, then each of the MR broadcasts of A feeds NV fmas.
template <typename T, typename I, int MR, int NV, int NVP>
inline void gemm_tile(int64_t kc, const T* a, int64_t a_ks, const T* b, int64_t b_ks, int64_t b_ps, T* c, int64_t ldc,
                      int n, bool accumulate) {
  using V = Vec<T, I>;
  constexpr int W = I::width;
  V acc[MR][NV];
  STAX_GEMM_UNROLL for (int i = 0; i < MR; ++i) {
    STAX_GEMM_UNROLL for (int v = 0; v < NV; ++v) {
      acc[i][v] = accumulate ? gemm_load_lanes<V>(c + i * ldc + v * W, n - v * W) : V(T(0));
    }
  }
  for (int64_t k = 0; k < kc; ++k) {
    V bv[NV];
    STAX_GEMM_UNROLL for (int v = 0; v < NV; ++v) bv[v] = V::loadu(b + (v / NVP) * b_ps + (v % NVP) * W);
    STAX_GEMM_UNROLL for (int i = 0; i < MR; ++i) {
      const V ai(a[i]);
      STAX_GEMM_UNROLL for (int v = 0; v < NV; ++v) acc[i][v] = fma(ai, bv[v], acc[i][v]);
    }
    a += a_ks;
    b += b_ks;
  }
  STAX_GEMM_UNROLL for (int i = 0; i < MR; ++i) {
    STAX_GEMM_UNROLL for (int v = 0; v < NV; ++v) gemm_store_lanes(acc[i][v], c + i * ldc + v * W, n - v * W);
  }
}

#undef STAX_GEMM_UNROLL

// The micro-kernels of one width by their height: tiles[m - 1] computes m rows (1 <= m <= MR),
// so that the rows left over at the bottom of a block cost m rows of work, not MR.
template <typename T>
using GemmTileFn = void (*)(int64_t, const T*, int64_t, const T*, int64_t, int64_t, T*, int64_t, int, bool);
template <typename T, typename I, int NV, int NVP, int... Ms>
inline const GemmTileFn<T>* gemm_tiles(std::integer_sequence<int, Ms...>) {
  static const GemmTileFn<T> table[] = {&gemm_tile<T, I, Ms + 1, NV, NVP>...};
  return table;
}

// ---- packing at run time: the layouts of stax_gemm_pack.h, with vector copies and tile transposes
// for the unit-stride cases (the same bytes as gemm_pack_a / gemm_pack_b) ----

// dst[0:n] = src[0:n] (both contiguous), then zeros up to `width`.
template <typename T, typename I> inline void gemm_copy_row(const T* src, int64_t n, T* dst, int64_t width) {
  using V = Vec<T, I>;
  int64_t j = 0;
  for (; j + V::size <= n; j += V::size) V::loadu(src + j).storeu(dst + j);
  if (j < n) V::loadu(src + j, static_cast<int>(n - j)).storeu(dst + j, static_cast<int>(n - j));
  for (j = n; j < width; ++j) dst[j] = T(0);
}

// Zeros in columns [from, width) of `rows` rows of `width` elements.
template <typename T> inline void gemm_zero_columns(T* dst, int64_t rows, int64_t width, int64_t from) {
  if (from >= width) return;
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t j = from; j < width; ++j) dst[r * width + j] = T(0);
}

// gemm_pack_b of a K x N block of B, element (k, j) at b[k * rs + j * cs].
// Rows of B contiguous: 8 rows at a time, each read from start to end (8 streams the
// prefetchers follow) and dealt out to the panels, 8 rows of a panel written together.
// Columns contiguous: a tile transpose per panel.
template <typename T, typename I>
inline void gemm_pack_b_fast(const T* b, int64_t rs, int64_t cs, int64_t K, int64_t N, int64_t P, T* out) {
  if (cs != 1 && rs != 1) return gemm_pack_b(b, rs, cs, K, N, P, out);
  if (cs == 1) {
    constexpr int64_t kRows = 8;  // sixteen rows of A against a 4096 x 4096 B: 23 flops a cycle, 16 row by row
    for (int64_t k0 = 0; k0 < K; k0 += kRows)
      for (int64_t j0 = 0; j0 < N; j0 += P)
        for (int64_t k = k0; k < K && k < k0 + kRows; ++k)
          gemm_copy_row<T, I>(b + k * rs + j0, N - j0 < P ? N - j0 : P, out + j0 * K + k * P, P);
    return;
  }
  for (int64_t j0 = 0; j0 < N; j0 += P) {
    const int64_t w = N - j0 < P ? N - j0 : P;
    T* panel = out + j0 * K;
    transpose_tile<I>(b + j0 * cs, cs, w, K, panel, P);
    gemm_zero_columns(panel, K, P, w);
  }
}

// One panel of h (<= mr) contiguous rows of A, transposed: whole blocks of the instruction set's
// tile transpose, then the rows left over (all of them when mr is not a multiple of the block,
// as AVX2's 6) column by column, so that each column's stores are contiguous.
template <typename T, typename I>
inline void gemm_pack_a_rows(const T* a, int64_t rs, int64_t h, int64_t K, int64_t mr, T* panel) {
  const int64_t whole = h / TransposeBlock<T, I>::size * TransposeBlock<T, I>::size;
  if (whole > 0) transpose_tile<I>(a, rs, whole, K, panel, mr);
  if (whole < h) {
    for (int64_t k = 0; k < K; ++k)
      for (int64_t i = whole; i < h; ++i) panel[k * mr + i] = a[i * rs + k];
  }
  gemm_zero_columns(panel, K, mr, h);
}

// gemm_pack_a of an M x K block of A, element (i, k) at a[i * rs + k * cs].
template <typename T, typename I>
inline void gemm_pack_a_fast(const T* a, int64_t rs, int64_t cs, int64_t M, int64_t K, int64_t mr, T* out) {
  if (cs != 1 && rs != 1) return gemm_pack_a(a, rs, cs, M, K, mr, out);
  for (int64_t i0 = 0; i0 < M; i0 += mr) {
    const int64_t h = M - i0 < mr ? M - i0 : mr;
    T* panel = out + i0 * K;
    if (rs == 1) {
      for (int64_t k = 0; k < K; ++k) gemm_copy_row<T, I>(a + i0 + k * cs, h, panel + k * mr, mr);
    } else {
      gemm_pack_a_rows<T, I>(a + i0 * rs, rs, h, K, mr, panel);
    }
  }
}

}  // namespace stax_rt
}  // namespace
#endif  // STAX_RT_GEMM_KERNEL
// @end-sections
