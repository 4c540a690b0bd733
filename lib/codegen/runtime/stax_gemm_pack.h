// The packed layouts of the GEMM's operands (stax_gemm.h), in plain C++: no intrinsics and no
// other runtime section, so that staxc itself includes this header and packs constant weights at
// compile time with the very functions the generated code's runtime uses. Same section rules as
// stax_prelude.h.
//
// Packed B: panels of P columns. Panel q holds columns [qP, qP + P); element (k, j) of a K x N
// matrix is at
//     (j / P) * P * K  +  k * P  +  j % P
// so each panel is K rows of P contiguous elements, and the columns of the last panel beyond N
// are zeros. The runtime packs each KC x NC block of B this way with P the width of its tiles,
// so that a tile reads one contiguous stream (measured 5 to 8% faster than tiles reading half of
// each row of wider panels). A B packed ahead (staxc, for a constant) has P =
// gemm_panel_width<T>(lanes) of the instruction set that runs it, a function of the lanes alone
// (the isa.def record's `lanes`): the width of the main tiles (a static_assert of stax_gemm.h);
// the wider tiles of a short A read several panels. The layout does not depend on the cache
// blocking: a KC block starts at row pc * P of every panel.
//
// Packed A: panels of `mr` rows. Element (i, k) of an M x K matrix is at
//     (i / mr) * mr * K  +  k * mr  +  i % mr
// rows beyond M are zeros. The driver packs A per block at run time (mr is the tile height).
#include <cstdint>  // (not emitted) so that this header compiles alone, in staxc as in the runtime

// @section gemm_pack
#ifndef STAX_RT_GEMM_PACK
#define STAX_RT_GEMM_PACK
namespace {
namespace stax_rt {

// Columns of a panel of B packed ahead for T on an instruction set of `lanes` lanes: two vectors
// of float32, one of float64 (32 floats on AVX-512, 16 on AVX2, 8 on NEON, 2 on the scalar set).
template <typename T> inline constexpr int64_t gemm_panel_width(int64_t lanes) {
  return (sizeof(T) == 4 ? 2 : 1) * lanes;
}

// Elements of packed B for a K x N matrix with panels of P columns.
inline constexpr int64_t gemm_packed_b_size(int64_t K, int64_t N, int64_t P) { return K * ((N + P - 1) / P) * P; }

// Elements of packed A for an M x K matrix with panels of mr rows.
inline constexpr int64_t gemm_packed_a_size(int64_t M, int64_t K, int64_t mr) { return ((M + mr - 1) / mr) * mr * K; }

// out = B (K x N; element (k, j) at b[k * rs + j * cs]) in panels of P columns (layout above).
template <typename T>
inline void gemm_pack_b(const T* b, int64_t rs, int64_t cs, int64_t K, int64_t N, int64_t P, T* out) {
  for (int64_t j0 = 0; j0 < N; j0 += P) {
    const int64_t w = N - j0 < P ? N - j0 : P;
    T* panel = out + j0 * K;  // (j0 / P) * P * K
    for (int64_t k = 0; k < K; ++k) {
      T* row = panel + k * P;
      const T* src = b + k * rs + j0 * cs;
      for (int64_t j = 0; j < w; ++j) row[j] = src[j * cs];
      for (int64_t j = w; j < P; ++j) row[j] = T(0);
    }
  }
}

// out = A (M x K; element (i, k) at a[i * rs + k * cs]) in panels of mr rows (layout above).
template <typename T>
inline void gemm_pack_a(const T* a, int64_t rs, int64_t cs, int64_t M, int64_t K, int64_t mr, T* out) {
  for (int64_t i0 = 0; i0 < M; i0 += mr) {
    const int64_t h = M - i0 < mr ? M - i0 : mr;
    T* panel = out + i0 * K;  // (i0 / mr) * mr * K
    for (int64_t k = 0; k < K; ++k) {
      T* col = panel + k * mr;
      const T* src = a + i0 * rs + k * cs;
      for (int64_t i = 0; i < h; ++i) col[i] = src[i * rs];
      for (int64_t i = h; i < mr; ++i) col[i] = T(0);
    }
  }
}

}  // namespace stax_rt
}  // namespace
#endif  // STAX_RT_GEMM_PACK
// @end-sections
