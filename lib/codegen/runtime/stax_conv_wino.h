// 3 x 3 convolutions of stride 1 by Winograd's minimal filtering F(2 x 2, 3 x 3) (Lavin and
// Gray's algorithm): each 2 x 2 block of outputs ("tile") of one output channel is
//     Y = A^T [ sum over input channels of U . V ] A,   U = G g G^T,   V = B^T d B,
// with g the channel pair's 3 x 3 weights, d the tile's 4 x 4 input patch and . the product
// element by element: 16 multiplies per tile and channel pair where the direct sum takes 36.
// Same section rules as stax_prelude.h.
//
//   B^T = [1  0 -1  0]     G = [1    0    0  ]     A^T = [1  1  1  0]
//         [0  1  1  0]         [1/2  1/2  1/2]           [0  1 -1 -1]
//         [0 -1  1  0]         [1/2 -1/2  1/2]
//         [0  1  0 -1]         [0    0    1  ]
//
// The sum over channels is 16 matrix products, one per element xi of the 4 x 4 transforms:
// M_xi[co][t] = sum_ci U_xi[co][ci] V_xi[ci][t], run on the GEMM's micro-kernels (U_xi packed
// ahead as the A of gemm_pack_a, at the weights' packing; V_xi row-major, each row one input
// channel's transformed patches for a run of tiles). The work is dealt out by units: a run of
// `cols` consecutive tiles of the batch (row-major over images, rows and columns of tiles, so a
// unit may start or end inside a row of tiles, or span two images: a 14 x 14 output has 49
// tiles, which units of one image would compute as 64). Per unit a thread transforms the patches into V (16 x C x cols, in L2),
// then per panel of U's rows computes the 16 products into M (16 x mr x cols, in L1) and
// transforms each output channel's tiles into the output with the bias, then runs the
// convolution's epilogue on the unit's output positions.
//
// Rounding: the result is not the direct sum's. V and Y are sums of 4 and 9 values with
// coefficients +-1, U rounds 9 terms scaled by 1/4 once (computed in double), and each product
// sums C terms in the GEMM's order; the error stays of the order of the direct sum's
// (docs/graph-format.md, "Precise rules"). The bits do not depend on the threads.
#pragma once
#include "stax_conv.h"  // (not emitted) the sections these require, so this header compiles alone

// @section conv_wino requires gemm
#ifndef STAX_RT_CONV_WINO
#define STAX_RT_CONV_WINO
namespace {
namespace stax_rt {

inline int64_t wino_min(int64_t a, int64_t b) { return a < b ? a : b; }
inline int64_t wino_max(int64_t a, int64_t b) { return a > b ? a : b; }

// Whether a convolution goes by F(2 x 2, 3 x 3): a dense 3 x 3 kernel of stride and dilation 1,
// padding at most 2, with 16 to 256 input channels (a unit's V for one panel of tiles then fits
// half of L2), at least 16 output channels, and tiles for two panels of the micro-kernels' columns
// over the batch (ResNet's 56 x 56 and 28 x 28 layers at batch 1, and its 14 x 14 ones from
// batch 2 on). At batch 1 a 14 x 14 output's 49 tiles are two units of one panel, one per thread,
// and each thread reads all of U (4 MiB for 256 -> 256, against 2.3 for the weights): ResNet-50's
// six such layers took 0.84-0.93 ms each on 2 threads against the GEMM's 0.65-0.68, the generated
// code alternated, although alone with U in L3 they ran 1.27x faster.
template <typename T, typename I> inline bool conv_wino_pays(const ConvShape& s) {
  if (s.direct || s.groups != 1 || s.kh != 3 || s.kw != 3 || s.sh != 1 || s.sw != 1 || s.dh != 1 || s.dw != 1)
    return false;
  if (s.ph > 2 || s.pw > 2) return false;
  const int64_t tiles = (s.oh + 1) / 2 * ((s.ow + 1) / 2);
  return s.c >= 16 && s.c <= 256 && s.cout >= 16 && tiles * s.n >= 2 * GemmShape<T, I>::panel;
}

// Elements of the transformed weights: 16 matrices U_xi, each [cout, C] packed in panels of
// GemmShape::mr rows (gemm_pack_a's layout, the last panel's missing rows zero), the 16 panels of
// the same rows one after the other: a unit reads them, panel of rows by panel, as one stream
// (with U_xi whole one after the other, ResNet-50's 128 -> 128 layers on 28 x 28, whose U comes
// from memory, ran 15% slower than the GEMM's path in the network on 2 threads).
template <typename T, typename I> inline int64_t conv_wino_weights_size(const ConvShape& s) {
  return 16 * gemm_packed_a_size(s.cout, s.c, GemmShape<T, I>::mr);
}

// U = G g G^T for every pair (co, ci) of w [cout, C, 3, 3], in double, rounded once to T, into
// `out` (conv_wino_weights_size elements): U_xi's element (co, ci) at
// out + (co / mr * 16 + xi) * mr * C + ci * mr + co % mr.
template <typename T, typename I> inline void conv_wino_pack(const ConvShape& s, const T* w, T* out) {
  constexpr int64_t mr = GemmShape<T, I>::mr;
  const int64_t C = s.c, M = s.cout, Mp = (M + mr - 1) / mr * mr;
  static const double G[4][3] = {{1, 0, 0}, {0.5, 0.5, 0.5}, {0.5, -0.5, 0.5}, {0, 0, 1}};
  for (int64_t i = 0; i < 16 * Mp * C; ++i) out[i] = T(0);
  for (int64_t co = 0; co < M; ++co)
    for (int64_t ci = 0; ci < C; ++ci) {
      const T* g = w + (co * C + ci) * 9;
      double gt[4][3];  // G g
      for (int a = 0; a < 4; ++a)
        for (int c = 0; c < 3; ++c) gt[a][c] = G[a][0] * g[c] + G[a][1] * g[3 + c] + G[a][2] * g[6 + c];
      for (int a = 0; a < 4; ++a)
        for (int b = 0; b < 4; ++b) {
          const double u = gt[a][0] * G[b][0] + gt[a][1] * G[b][1] + gt[a][2] * G[b][2];
          out[(co / mr * 16 + a * 4 + b) * mr * C + ci * mr + co % mr] = static_cast<T>(u);
        }
    }
}

// The layout of one call: tiles of the output, the team, the unit width, and a thread's scratch.
struct ConvWino {
  int64_t th, tw, tiles;  // rows and columns of tiles per image, tiles per image
  int threads;            // the team (gemm_threads over the panels of tiles)
  int64_t cols;           // tiles per unit, whole panels of the micro-kernels
  int64_t row_len;        // elements of one deinterleaved half-row (conv_wino_row)
  int64_t v_size, m_size, rows_size;  // elements of a thread's V, M and deinterleaved rows
};
// The unit: as many panels of tiles (at most 4) as keep V in half of L2, fewer while the team
// would have under four units per thread (the last unit is often short, and a thread's share of
// whole units then uneven). ResNet-18's 64 -> 64 on 56 x 56 and 128 -> 128 on 28 x 28, batch 1,
// 2 threads, against the GEMM's path called alternately: 1.30-1.33x and 1.26-1.31x with 4 and 2
// panels a unit (7 and 4 units), 1.36-1.39x and 1.34-1.39x with 1 (25 and 7 units).
template <typename T, typename I> inline ConvWino conv_wino_layout(const ConvShape& s) {
  using S = GemmShape<T, I>;
  constexpr int64_t P = S::panel, W = I::width;
  ConvWino L{};
  L.th = (s.oh + 1) / 2, L.tw = (s.ow + 1) / 2, L.tiles = L.th * L.tw;
  const int64_t budget = gemm_caches().l2 / 2 / (16 * s.c * int64_t(sizeof(T)));
  const int64_t panels = budget / P, total = s.n * L.tiles;
  L.threads = gemm_threads(s.n * s.spatial(), s.cout, 9 * s.c, (total + P - 1) / P);
  L.cols = (panels < 1 ? 1 : panels > 4 ? 4 : panels) * P;
  while (L.cols > P && (total + L.cols - 1) / L.cols < 4 * int64_t(L.threads)) L.cols -= P;
  const int64_t need = (total + P - 1) / P * P;
  if (L.cols > need) L.cols = need;
  L.row_len = (L.tw + 1 + W + W - 1) / W * W;
  const int64_t tile_rows = L.cols / L.tw + 2;  // rows of tiles a unit can touch
  L.v_size = 16 * s.c * L.cols;
  L.m_size = 16 * S::mr * L.cols;
  L.rows_size = (2 * tile_rows + 2) * 2 * L.row_len;
  return L;
}

// Input row `y` of one channel (x: the channel's plane) deinterleaved over the zero-padded row
// xp (xp[p] = x[y][p - pw]): e[t] = xp[2 t], o[t] = xp[2 t + 1] for t <= tw, zeros for a row of
// the padding. Only the elements a row of the input reaches are written: the others are the
// same for every row, zeroed once per thread (conv_wino_run; zeroing each row whole, by a call
// of memset, took 8% of the layer).
template <typename T, typename I>
inline void conv_wino_row(const ConvShape& s, const ConvWino& L, const T* x, int64_t y, T* e, T* o) {
  const int64_t last = L.tw;  // the last t a tile reads
  // e[t] = row[2 t - pw] for 0 <= 2 t - pw < w; o[t] = row[2 t + 1 - pw] likewise.
  const int64_t e0 = (s.pw + 1) / 2, e1 = wino_min(last, (s.w - 1 + s.pw) / 2);
  const int64_t o0 = s.pw / 2, o1 = s.w + s.pw >= 2 ? wino_min(last, (s.w - 2 + s.pw) / 2) : -1;
  if (y < 0 || y >= s.h) {
    if (e1 >= e0) conv_zero_vectors<T, I>(e + e0, e1 - e0 + 1);
    if (o1 >= o0) conv_zero_vectors<T, I>(o + o0, o1 - o0 + 1);
    return;
  }
  const T* row = x + y * s.w;
  if (e1 >= e0) conv_copy_even<T, I>(row + 2 * e0 - s.pw, e1 - e0 + 1, e + e0);
  if (o1 >= o0) conv_copy_even<T, I>(row + 2 * o0 + 1 - s.pw, o1 - o0 + 1, o + o0);
}

// A run of tiles of one tile row of one image: row r, columns [c0, c1), at column `col` of the
// unit's V and M.
struct ConvWinoRun {
  int64_t r, c0, c1, col;
};
// The runs of an image's tiles [t0, t1), row by row, to f(run); the first at column `col0`.
template <typename F>
inline void conv_wino_runs(const ConvWino& L, int64_t t0, int64_t t1, int64_t col0, const F& f) {
  for (int64_t r = t0 / L.tw; r * L.tw < t1; ++r) {
    const int64_t a = wino_max(t0, r * L.tw), b = wino_min(t1, (r + 1) * L.tw);
    f(ConvWinoRun{r, a - r * L.tw, b - r * L.tw, col0 + a - t0});
  }
}
// The images a unit's tiles [g0, g1) of the batch (row-major over images, then tiles) fall in:
// f(image, t0, t1, col0) for each, with its tiles [t0, t1) at column col0 of the unit.
template <typename F> inline void conv_wino_images(const ConvWino& L, int64_t g0, int64_t g1, const F& f) {
  for (int64_t image = g0 / L.tiles; image * L.tiles < g1; ++image) {
    const int64_t first = image * L.tiles, t0 = wino_max(g0, first) - first, t1 = wino_min(g1, first + L.tiles) - first;
    f(image, t0, t1, first + t0 - g0);
  }
}

// V = B^T d B of tiles [t0, t1) of one image (x), every input channel, from column col0 of the
// unit: V_xi's row ci at v + (xi * C + ci) * cols. Channel by channel, the input rows the unit reads are
// deinterleaved once (rows: their even and odd halves), then each run of tiles is transformed
// a vector of tiles at a time: the columns first (B^T over each row's 4 values), then the rows.
template <typename T, typename I>
inline void conv_wino_input(const ConvShape& s, const ConvWino& L, const T* x, int64_t t0, int64_t t1, int64_t col0,
                            T* rows, T* v) {
  using V = Vec<T, I>;
  constexpr int64_t W = I::width;
  const int64_t r0 = t0 / L.tw, r1 = (t1 - 1) / L.tw, y0 = 2 * r0 - s.ph, ny = 2 * (r1 - r0) + 4;
  const int64_t C = s.c, cols = L.cols, plane = s.h * s.w;
  const int64_t ya = y0 < 0 ? 0 : y0, yb = y0 + ny < s.h ? y0 + ny : s.h;  // the input rows read
  const int64_t lines = yb > ya ? ((yb - ya) * s.w * int64_t(sizeof(T)) + 63) / 64 : 0;
  for (int64_t ci = 0; ci < C; ++ci) {
    const T* xc = x + ci * plane;
    // The next channel's rows asked for ahead: each channel's are a short run (a few rows) far
    // from the last, which the hardware's prefetchers do not follow.
    if (ci + 1 < C)
      for (int64_t l = 0; l < lines; ++l) __builtin_prefetch(reinterpret_cast<const char*>(xc + plane + ya * s.w) + 64 * l, 0, 3);
    for (int64_t j = 0; j < ny; ++j)
      conv_wino_row<T, I>(s, L, xc, y0 + j, rows + 2 * j * L.row_len, rows + (2 * j + 1) * L.row_len);
    conv_wino_runs(L, t0, t1, col0, [&](const ConvWinoRun& run) {
      const T* base = rows + 2 * (2 * (run.r - r0)) * L.row_len;
      for (int64_t c = run.c0; c < run.c1; c += W) {
        const int n = static_cast<int>(wino_min(W, run.c1 - c));
        V h[4][4];
        for (int j = 0; j < 4; ++j) {
          const T* e = base + 2 * j * L.row_len + c;
          const T* o = e + L.row_len;
          const V e0 = V::loadu(e), e1 = V::loadu(e + 1), o0 = V::loadu(o), o1 = V::loadu(o + 1);
          h[j][0] = e0 - e1, h[j][1] = o0 + e1, h[j][2] = e1 - o0, h[j][3] = o0 - o1;
        }
        T* dst = v + ci * cols + run.col + (c - run.c0);
        for (int b = 0; b < 4; ++b) {
          gemm_store_lanes(h[0][b] - h[2][b], dst + (0 * 4 + b) * C * cols, n);
          gemm_store_lanes(h[1][b] + h[2][b], dst + (1 * 4 + b) * C * cols, n);
          gemm_store_lanes(h[2][b] - h[1][b], dst + (2 * 4 + b) * C * cols, n);
          gemm_store_lanes(h[1][b] - h[3][b], dst + (3 * 4 + b) * C * cols, n);
        }
      }
    });
  }
}

// One output channel's tiles of a run into the output (o: the channel's plane): Y = A^T m A
// from the 16 products (m: M_xi's row at m + xi * mstride, the run's tiles from column `col`),
// the bias added (none: the sum as it is), each tile's 2 x 2 values into two output rows,
// dropping a row or column past the output's edge.
template <typename T, typename I>
inline void conv_wino_output(const ConvShape& s, const ConvWinoRun& run, const T* m, int64_t mstride, const T* bias,
                             T* o) {
  using V = Vec<T, I>;
  constexpr int64_t W = I::width;
  alignas(64) T y[4][W];
  for (int64_t c = run.c0; c < run.c1; c += W) {
    const int n = static_cast<int>(wino_min(W, run.c1 - c));
    const T* mc = m + run.col + (c - run.c0);
    V sum[4], dif[4];
    for (int b = 0; b < 4; ++b) {
      const V m0 = gemm_load_lanes<V>(mc + (0 * 4 + b) * mstride, n), m1 = gemm_load_lanes<V>(mc + (4 + b) * mstride, n);
      const V m2 = gemm_load_lanes<V>(mc + (8 + b) * mstride, n), m3 = gemm_load_lanes<V>(mc + (12 + b) * mstride, n);
      sum[b] = m0 + m1 + m2, dif[b] = m1 - m2 - m3;
    }
    V r[4] = {sum[0] + sum[1] + sum[2], sum[1] - sum[2] - sum[3], dif[0] + dif[1] + dif[2], dif[1] - dif[2] - dif[3]};
    if (bias != nullptr) {
      const V b(*bias);
      for (V& q : r) q = q + b;
    }
    for (int q = 0; q < 4; ++q) r[q].storeu(y[q]);
    const int64_t x0 = 2 * c, cnt = wino_min(2 * n, s.ow - x0);
    for (int dy = 0; dy < 2 && 2 * run.r + dy < s.oh; ++dy) {
      // The row's two values per tile interleaved on the stack (a loop of fixed length, which
      // the compiler turns into shuffles), then stored by vectors.
      alignas(64) T z[2 * W];
      for (int64_t i = 0; i < W; ++i) z[2 * i] = y[2 * dy][i], z[2 * i + 1] = y[2 * dy + 1][i];
      T* dst = o + (2 * run.r + dy) * s.ow + x0;
      gemm_store_lanes(V::loadu(z), dst, static_cast<int>(cnt));
      if (cnt > W) gemm_store_lanes(V::loadu(z + W), dst + W, static_cast<int>(cnt - W));
    }
  }
}

// One unit: the batch's tiles [g0, g1) (x: the input, out: the output).
template <typename T, typename I, typename E>
inline void conv_wino_unit(const ConvShape& s, const ConvWino& L, const T* x, const T* U, const T* bias, T* out,
                           int64_t g0, int64_t g1, T* v, T* m, T* rows, const E& ep) {
  using S = GemmShape<T, I>;
  constexpr int64_t P = S::panel, mr = S::mr;
  const int64_t C = s.c, M = s.cout, N = s.spatial(), width = g1 - g0;
  const int64_t in_image = s.c * s.h * s.w, out_image = s.cout * N;
  conv_wino_images(L, g0, g1, [&](int64_t image, int64_t t0, int64_t t1, int64_t col0) {
    conv_wino_input<T, I>(s, L, x + image * in_image, t0, t1, col0, rows, v);
  });
  const GemmTileFn<T>* tiles = gemm_tiles<T, I, S::nv, S::nv>(std::make_integer_sequence<int, S::mr>());
  for (int64_t co = 0; co < M; co += mr) {
    const int64_t h = wino_min(mr, M - co);
    for (int64_t xi = 0; xi < 16; ++xi) {
      const T* a = U + (co * 16 + xi * mr) * C;
      for (int64_t j = 0; j < width; j += P) {
        const int n = static_cast<int>(wino_min(P, width - j));
        tiles[h - 1](C, a, mr, v + xi * C * L.cols + j, L.cols, 0, m + xi * mr * L.cols + j, L.cols, n, false);
      }
    }
    conv_wino_images(L, g0, g1, [&](int64_t image, int64_t t0, int64_t t1, int64_t col0) {
      for (int64_t i = 0; i < h; ++i)
        conv_wino_runs(L, t0, t1, col0, [&](const ConvWinoRun& run) {
          conv_wino_output<T, I>(s, run, m + i * L.cols, mr * L.cols, bias != nullptr ? bias + co + i : nullptr,
                                 out + image * out_image + (co + i) * N);
        });
    });
  }
  conv_wino_images(L, g0, g1, [&](int64_t image, int64_t t0, int64_t t1, int64_t col0) {
    conv_wino_runs(L, t0, t1, col0, [&](const ConvWinoRun& run) {
      const int64_t x0 = 2 * run.c0, x1 = wino_min(2 * run.c1, s.ow);
      for (int64_t y = 2 * run.r; y < 2 * run.r + 2 && y < s.oh; ++y)
        ep(image, int64_t(0), M, y * s.ow + x0, y * s.ow + x1, out + image * out_image + y * s.ow + x0, N);
    });
  });
}

// The convolution by F(2 x 2, 3 x 3), U from conv_wino_pack; false, with nothing written, when a
// buffer cannot be allocated. The batch's tiles in units of `cols` (conv_wino_layout; a unit may
// span two images), dealt out to the threads (GemmChunks), each thread with its own V, M and rows.
template <typename T, typename I, typename E>
inline bool conv_wino_run(const ConvShape& s, const T* x, const T* U, const T* bias, T* out, const E& ep) {
  const ConvWino L = conv_wino_layout<T, I>(s);
  const int threads = L.threads;
  const int64_t total = s.n * L.tiles, units = (total + L.cols - 1) / L.cols;
  const int64_t per_thread = L.v_size + L.m_size + L.rows_size;
  T* scratch = static_cast<T*>(gemm_buffer(3).get(sizeof(T) * static_cast<std::size_t>(threads * per_thread)));
  if (scratch == nullptr) return false;
  GemmChunks chunks(units, threads);
#pragma omp parallel num_threads(threads) if (threads > 1)
  {
    const int t = gemm_team().t;
    T* v = scratch + t * per_thread;
    T* m = v + L.v_size;
    T* rows = m + L.m_size;
    conv_zero_vectors<T, I>(rows, L.rows_size);  // (conv_wino_row writes only the input's part)
    for (int64_t u; (u = chunks.take(t)) >= 0;)
      conv_wino_unit<T, I>(s, L, x, U, bias, out, u * L.cols, wino_min(total, (u + 1) * L.cols), v, m, rows, ep);
  }
  return true;
}

}  // namespace stax_rt
}  // namespace
#endif  // STAX_RT_CONV_WINO
// @end-sections
