// Dense convolutions whose patches are read in place from a zero-padded copy of the input, not
// packed (design.md, "CPU code": the GEMM's micro-kernels without an im2col buffer). Same section
// rules as stax_prelude.h.
//
// The copy ("shifted input") holds each input channel of one image and group split into
// sh x sw phases, phase (a, b) element (r, t) being the zero-padded input's (r * sh + a,
// t * sw + b), in rows `width` = OW + (KW - 1) * dw / sw long. Output (oh, ow) is then computed at
// the shifted position p = oh * width + ow, and tap k = (ci, ki, kj) of every output lies at
// p + off[k] (off[k]: the channel, the phase (ki * dh % sh, kj * dw % sw) and the shift
// (ki * dh / sh) * width + kj * dw / sw). So row k of the patches, over any run of positions, is
// one contiguous run of the copy: the micro-kernel loads its B vectors at p + off[k] directly.
// The positions ow >= OW of each row (width - OW of them: 2 for a 3 x 3 kernel of stride 1) are
// computed and dropped. Against conv_pack_b this copies about Cin x H x W elements per call
// rather than K x OH x OW (9x fewer for a 3 x 3 kernel of stride 1), and the tiles still read B
// from L1: a tile's KC rows span KC / (KH KW) channels of KH rows of the copy. A pointwise
// convolution (1 x 1, stride 1, no padding) needs no copy: its input is the patches, read where
// it lies, but for the last tile's columns, copied with zeros after them so that no load passes
// the input's end.
//
// The tiles accumulate into a per-thread block of C in shifted positions (MC x NC, in L2), which
// is copied to the output, the bias added, once its K is complete; the epilogue then runs on each
// output row's part of the block. Summation order: the GEMM's (one fma per k in increasing k,
// the bias added to the finished sum), so the bits equal those of conv_block's path and do not
// depend on the thread count.
#pragma once
#include "stax_conv.h"  // (not emitted) the sections these require, so this header compiles alone

// @section conv_shift requires gemm vec_transpose
#ifndef STAX_RT_CONV_SHIFT
#define STAX_RT_CONV_SHIFT
namespace {
namespace stax_rt {

// The tiles of the shifted path: the GEMM's height (the packed weights' panels), NV vectors of
// positions wide, or NV_WIDE where the instruction set's registers hold that many more sums
// (GemmTile::nv_wide: AVX-512's float 8 x 48 tile, 24 of its 32 registers) and the output has
// the positions to fill them (conv_shift_nr).
template <typename T, typename I> struct ConvShiftTile {
  static constexpr int nv = GemmShape<T, I>::nv;
  static constexpr int nv_wide = GemmTile<T, I>::nv_wide > nv ? GemmTile<T, I>::nv_wide : nv;
  static constexpr int64_t nr = int64_t(nv) * I::width;
  static constexpr int64_t nr_wide = int64_t(nv_wide) * I::width;
};

// The layout of the shifted input of one image and group (elements of T) for tiles `nr` wide:
// `rows` x `width` per phase, sh x sw phases per channel, then zeros after the last channel, so
// that the loads of the last tile (positions up to `positions` rounded up to whole tiles, plus
// the farthest tap) stay inside.
struct ConvShifted {
  int64_t nr, width, rows, plane, channel, positions, size;  // nr: the tiles' width
  ConvShifted(const ConvShape& s, int64_t tile_width)
      : nr(tile_width),
        width(s.ow + (s.kw - 1) * s.dw / s.sw),
        rows(s.oh + (s.kh - 1) * s.dh / s.sh),
        plane(rows * width),
        channel(s.sh * s.sw * plane),
        positions(s.oh * width),
        size(s.cin_g() * channel + (positions + nr - 1) / nr * nr - positions + width + nr) {}
  int64_t tiled() const { return (positions + nr - 1) / nr * nr; }  // whole tiles: the block of C's columns
};

// The tile width of one convolution: the wide tiles from 768 positions on (a 28 x 28 output and
// more), where AVX-512 measured them 3 to 12% faster (ResNet-18's 56 x 56 and 28 x 28 3 x 3
// layers); below, a 14 x 14 or 7 x 7 output left more of their columns empty (up to 30% slower).
template <typename T, typename I> inline int64_t conv_shift_nr(const ConvShape& s) {
  using R = ConvShiftTile<T, I>;
  return ConvShifted(s, R::nr).positions >= 768 ? R::nr_wide : R::nr;
}

// Whether reading the patches in place pays for a convolution through the GEMM: a pointwise one
// (its patches are its input, read where it lies) whose channels start on whole vectors, or
// whose K is one KC block of the plan, or a kernel of more than one tap whose dropped positions
// add at most a quarter to the tiles' columns (a 7 x 7 output of a 3 x 3 kernel: 63 positions
// for 49, both two tiles of 32). A strided 1 x 1 kernel's patches, a subset of the input, are
// packed. A pointwise one of unaligned channels (14 x 14: 196 positions) whose K is one block
// has its tiles write straight into the output (conv_shift_block) and saves packing patches
// that each take only K multiply-adds per element; with K over a block its sums go through the
// C block and the packed panels are faster. Against the packed patches, call by call on Zen 5,
// 1 / 2 threads, 14 x 14: K of one block (MobileNet-V2's 64 -> 384, 96 -> 576 and 384 -> 64,
// ResNet-50's 256 -> 1024, 80 -> 480, 116 -> 116) 1.01-1.53x / 1.01-1.67x on AVX-512,
// 1.05-1.25x / 1.00-1.33x on AVX2; K over a block (1024 -> 256, 512 -> 512, 768 -> 192)
// 0.86-0.96x on AVX-512; on 7 x 7 (160 -> 128, 232 -> 232) 0.98-1.03x.
template <typename T, typename I> inline bool conv_shift_pays(const ConvShape& s) {
  if (s.direct) return false;
  if (s.pointwise()) return s.h * s.w % I::width == 0 || s.k() <= conv_plan<T, I>(s, true).kc;
  if (s.kh * s.kw == 1) return false;
  const int64_t nr = ConvShiftTile<T, I>::nr;
  const ConvShifted L(s, nr);
  const int64_t shifted = (L.positions + nr - 1) / nr, packed = (s.spatial() + nr - 1) / nr;
  return shifted * 4 <= packed * 5;
}

// Rows [r0, r1) of each phase of input channels [c0, c1) (x: channel 0's [h, w] plane) into their
// places from dst (channel 0's): every element of them written, the padding as zeros; each
// phase's bounds computed once for all the channels. A phase's rows are one run: zeroed whole by
// vectors, then each input row's inside part copied into place (row by row, the zeros around
// each row cost more than its copy on small planes: 512 channels of 7 x 7 took 22 us against 9
// this way, 256 of 14 x 14 18 against 8.5, 128 of 28 x 28 22 against 15, one core, -O3; on 2
// threads, where each thread of a layer split by channels fills the whole copy, ResNet-18's
// layers 3 and 4 took 2.5-6% less time, five alternating pairs in one program). The rows go by
// conv_copy_rows (stride 2 by stride-2 loads: built at -O2, the compiler's loop went element by
// element, and ResNet's 7 x 7 / 2 stem took 2-3% longer on one thread).
template <typename T, typename I>
inline void conv_shift_channels(const ConvShape& s, const ConvShifted& L, const T* x, int64_t c0, int64_t c1,
                                int64_t r0, int64_t r1, T* dst) {
  const int64_t plane = s.h * s.w;
  for (int64_t a = 0; a < s.sh; ++a)
    for (int64_t b = 0; b < s.sw; ++b) {
      int64_t lo = 0, hi = 0, top = 0, bottom = 0;  // columns t and rows r whose input is inside
      conv_inside(b - s.pw, s.sw, L.width, s.w, lo, hi);
      conv_inside(a - s.ph, s.sh, L.rows, s.h, top, bottom);
      if (top < r0) top = r0;
      if (bottom > r1) bottom = r1;
      const int64_t from = (top * s.sh + a - s.ph) * s.w + lo * s.sw + b - s.pw;
      for (int64_t ci = c0; ci < c1; ++ci) {
        T* phase = dst + ci * L.channel + (a * s.sw + b) * L.plane;
        conv_zero_vectors<T, I>(phase + r0 * L.width, (r1 - r0) * L.width);
        if (lo < hi && top < bottom)
          conv_copy_rows<T, I>(x + ci * plane + from, s.sh * s.w, s.sw, hi - lo, bottom - top,
                               phase + top * L.width + lo, L.width);
      }
    }
}

// Where tap k = (ci, ki, kj) of shifted position 0 lies in the copy: channel 0's taps, then the
// other channels' by conv_offsets_by_channel. (Computed per thread and call: with five divisions
// per k, a K of 2304 took 33 us, 5% of ResNet-18's stride-2 layer into 7 x 7.)
inline void conv_shift_offsets(const ConvShape& s, const ConvShifted& L, int64_t* off) {
  for (int64_t ki = 0; ki < s.kh; ++ki)
    for (int64_t kj = 0; kj < s.kw; ++kj) {
      const int64_t phase = ki * s.dh % s.sh * s.sw + kj * s.dw % s.sw;
      off[ki * s.kw + kj] = phase * L.plane + ki * s.dh / s.sh * L.width + kj * s.dw / s.sw;
    }
  conv_offsets_by_channel(off, s.kh * s.kw, s.cin_g(), L.channel);
}

// The sums of one tile over a KC block: acc[i][v] += A * B, A a packed panel (element (i, k) at
// a[k * a_ks + i]), row k of B the NV vectors at b + off[k]. One row of B is NV loads, then each of
// the MR broadcasts of A feeds NV fmas.
template <typename T, typename I, int MR, int NV>
__attribute__((always_inline)) inline void conv_shift_sums(int64_t kc, const T* a, int64_t a_ks, const T* b,
                                                           const int64_t* off, Vec<T, I> (&acc)[MR][NV]) {
  using V = Vec<T, I>;
  constexpr int W = I::width;
  for (int64_t k = 0; k < kc; ++k) {
    const T* bk = b + off[k];
    V bv[NV];
    _Pragma("GCC unroll 32") for (int v = 0; v < NV; ++v) bv[v] = V::loadu(bk + v * W);
    _Pragma("GCC unroll 32") for (int i = 0; i < MR; ++i) {
      const V ai(a[i]);
      _Pragma("GCC unroll 32") for (int v = 0; v < NV; ++v) acc[i][v] = fma(ai, bv[v], acc[i][v]);
    }
    a += a_ks;
  }
}

// bias[i] added to row i of a tile's sums (none without a bias: x + 0 would turn -0 into +0).
template <typename T, typename I, int MR, int NV>
__attribute__((always_inline)) inline void conv_shift_add_bias(const T* bias, Vec<T, I> (&acc)[MR][NV]) {
  if (bias == nullptr) return;
  _Pragma("GCC unroll 32") for (int i = 0; i < MR; ++i) {
    const Vec<T, I> bi(bias[i]);
    _Pragma("GCC unroll 32") for (int v = 0; v < NV; ++v) acc[i][v] = acc[i][v] + bi;
  }
}

// The micro-kernel of gemm_tile with B read in place: C[0:MR, 0:NV * W] = (accumulate ? C : 0) +
// A * B over one KC block (conv_shift_sums), then bias[i] added to row i when `bias` is not null
// (the last KC block written straight into the output). C is whole vectors wide (the block of
// shifted positions is).
template <typename T, typename I, int MR, int NV>
inline void conv_shift_tile(int64_t kc, const T* a, int64_t a_ks, const T* b, const int64_t* off, T* c, int64_t ldc,
                            bool accumulate, const T* bias) {
  using V = Vec<T, I>;
  constexpr int W = I::width;
  V acc[MR][NV];
  _Pragma("GCC unroll 32") for (int i = 0; i < MR; ++i) {
    _Pragma("GCC unroll 32") for (int v = 0; v < NV; ++v) {
      acc[i][v] = accumulate ? V::loadu(c + i * ldc + v * W) : V(T(0));
    }
  }
  conv_shift_sums<T, I, MR, NV>(kc, a, a_ks, b, off, acc);
  conv_shift_add_bias<T, I, MR, NV>(bias, acc);
  _Pragma("GCC unroll 32") for (int i = 0; i < MR; ++i) {
    _Pragma("GCC unroll 32") for (int v = 0; v < NV; ++v) acc[i][v].storeu(c + i * ldc + v * W);
  }
}

// Where a tile of shifted positions writes straight into the output: `out` at the tile's first
// channel, channels N apart, output rows `ow` long; the shifted rows are `width` long, of which
// the first `ow` are output positions, and there are `oh` of them.
template <typename T> struct ConvShiftOut {
  T* out;
  int64_t N, width, ow, oh;
};

// conv_shift_tile for a convolution of one KC block, whose sums, the bias added, go straight into
// the output rather than through the block of C: a vector whose lanes all fall in one output
// row's positions is one store per row of the tile; the others (across the end of a shifted row,
// or over its dropped positions, or past the last row) go through a copy on the stack, each run
// of lanes in one output row by one store of its first lanes. (Through the block of C, copying it
// to the output with the bias was 12% of ResNet's 7 x 7 / 2 stem on 2 threads, by `perf`.)
template <typename T, typename I, int MR, int NV>
inline void conv_shift_tile_out(int64_t kc, const T* a, int64_t a_ks, const T* b, const int64_t* off,
                                const ConvShiftOut<T>& o, int64_t p, const T* bias) {
  using V = Vec<T, I>;
  constexpr int W = I::width;
  V acc[MR][NV];
  _Pragma("GCC unroll 32") for (int i = 0; i < MR; ++i) {
    _Pragma("GCC unroll 32") for (int v = 0; v < NV; ++v) acc[i][v] = V(T(0));
  }
  conv_shift_sums<T, I, MR, NV>(kc, a, a_ks, b, off, acc);
  conv_shift_add_bias<T, I, MR, NV>(bias, acc);
  _Pragma("GCC unroll 32") for (int v = 0; v < NV; ++v) {
    const int64_t q = p + v * W, r = q / o.width, c = q - r * o.width;
    if (r < o.oh && c + W <= o.ow) {
      T* at = o.out + r * o.ow + c;
      _Pragma("GCC unroll 32") for (int i = 0; i < MR; ++i) acc[i][v].storeu(at + i * o.N);
      continue;
    }
    alignas(64) T lanes[MR][W];
    _Pragma("GCC unroll 32") for (int i = 0; i < MR; ++i) acc[i][v].storeu(lanes[i]);
    for (int64_t j = 0, row = r, col = c; j < W && row < o.oh; ++row, col = 0) {
      const int64_t run = W - j < o.width - col ? W - j : o.width - col;
      const int n = static_cast<int>(col < o.ow ? (run < o.ow - col ? run : o.ow - col) : 0);
      if (n > 0)
        for (int i = 0; i < MR; ++i)
          gemm_store_lanes(gemm_load_lanes<V>(lanes[i] + j, n), o.out + i * o.N + row * o.ow + col, n);
      j += run;
    }
  }
}

// The micro-kernels `nr` wide by height: tiles[m - 1] computes m rows (1 <= m <= GemmShape::mr).
template <typename T>
using ConvShiftTileFn = void (*)(int64_t, const T*, int64_t, const T*, const int64_t*, T*, int64_t, bool, const T*);
template <typename T, typename I, int... Ms>
inline const ConvShiftTileFn<T>* conv_shift_tiles(int64_t nr, std::integer_sequence<int, Ms...>) {
  static const ConvShiftTileFn<T> table[] = {&conv_shift_tile<T, I, Ms + 1, ConvShiftTile<T, I>::nv>...};
  static const ConvShiftTileFn<T> wide[] = {&conv_shift_tile<T, I, Ms + 1, ConvShiftTile<T, I>::nv_wide>...};
  return nr == ConvShiftTile<T, I>::nr ? table : wide;
}
template <typename T>
using ConvShiftOutFn = void (*)(int64_t, const T*, int64_t, const T*, const int64_t*, const ConvShiftOut<T>&, int64_t,
                                const T*);
template <typename T, typename I, int... Ms>
inline const ConvShiftOutFn<T>* conv_shift_out_tiles(int64_t nr, std::integer_sequence<int, Ms...>) {
  static const ConvShiftOutFn<T> table[] = {&conv_shift_tile_out<T, I, Ms + 1, ConvShiftTile<T, I>::nv>...};
  static const ConvShiftOutFn<T> wide[] = {&conv_shift_tile_out<T, I, Ms + 1, ConvShiftTile<T, I>::nv_wide>...};
  return nr == ConvShiftTile<T, I>::nr ? table : wide;
}

// Rows [m0, m1) of the block of C in shifted positions [p0, p0 + nb) (cbuf, rows ldc apart) into
// the output, the bias added, then the epilogue on each output row's part of them; with cbuf
// null, only the epilogue (the tiles wrote the output: conv_shift_tile_out).
template <typename T, typename E>
inline void conv_shift_store(const ConvProblem<T>& q, const ConvShifted& L, const T* cbuf, int64_t ldc, int64_t m0,
                             int64_t m1, int64_t p0, int64_t nb, const E& ep) {
  const ConvShape& s = *q.s;
  const int64_t N = s.spatial(), end = p0 + nb < L.positions ? p0 + nb : L.positions;
  for (int64_t p = p0; p < end;) {
    const int64_t oh = p / L.width, ow = p % L.width, row_end = (oh + 1) * L.width;
    const int64_t stop = row_end < end ? row_end : end, ow1 = stop - oh * L.width < s.ow ? stop - oh * L.width : s.ow;
    if (ow < ow1) {
      const int64_t j0 = oh * s.ow + ow, len = ow1 - ow;
      if (cbuf != nullptr)
        for (int64_t i = m0; i < m1; ++i) {
          const T* src = cbuf + (i - m0) * ldc + (p - p0);
          T* dst = q.out + i * N + j0;
          if (q.bias == nullptr) {
            for (int64_t j = 0; j < len; ++j) dst[j] = src[j];
          } else {
            const T bias = q.bias[i];
            for (int64_t j = 0; j < len; ++j) dst[j] = src[j] + bias;
          }
        }
      ep(q.image, q.channel0 + m0, q.channel0 + m1, j0, j0 + len, q.out + m0 * N + j0, N);
    }
    p = stop;
  }
}

// Where the tiles read B: row k of the patches at positions [p, p + nr) is the run at
// base + p + off[k], except for the positions from `tail_from` on (a pointwise convolution's
// input read in place, whose last tile would read past its end), which are the run at
// tail + p - tail_from + tail_off[k] (a zero-padded copy of that last tile's columns).
template <typename T> struct ConvShiftSource {
  const T* base;
  const int64_t* off;
  int64_t tail_from;
  const T* tail;
  const int64_t* tail_off;
};

// Rows [m0, m1) x shifted positions [p0, p1) of one image and group (p0, p1 whole tiles), B read
// from `src`: block by block of NC positions and MC rows, the K blocks accumulating into cbuf
// (mc x nc), then stored; weights not packed ahead are packed per block into abuf.
// A pointwise convolution of one KC block (K = Cin/g at most KC: ResNet-50's 64 -> 256 and
// MobileNet-V2's expansions) has nothing to accumulate and its shifted positions are its output
// positions: its tiles that end inside the output write there directly, the bias added, and only
// the last, partial one goes through cbuf. (Through cbuf, the copy of every sum to the output was
// a second pass as long as the tiles' own stores, for 64 to 96 multiply-adds per sum.) A kernel of
// several taps with one KC block (ResNet's 7 x 7 / 2 stem, K = 147) writes every tile straight into
// the output rows (conv_shift_tile_out), dropping the shifted positions that are not output ones.
template <typename T, typename I, typename E>
inline void conv_shift_block(const GemmPlan& plan, const ConvProblem<T>& q, const ConvShifted& L,
                             const ConvShiftSource<T>& src, int64_t m0, int64_t m1, int64_t p0, int64_t p1, const E& ep,
                             T* abuf, T* cbuf) {
  using S = GemmShape<T, I>;
  const int64_t K = q.s->k(), N = q.s->spatial(), mp = (q.s->cout_g() + plan.mr - 1) / plan.mr * plan.mr;
  const ConvShiftTileFn<T>* tiles = conv_shift_tiles<T, I>(L.nr, std::make_integer_sequence<int, S::mr>());
  const ConvShiftOutFn<T>* out_tiles = conv_shift_out_tiles<T, I>(L.nr, std::make_integer_sequence<int, S::mr>());
  const bool straight = K <= plan.kc && q.s->pointwise(), by_rows = K <= plan.kc && !q.s->pointwise();
  for (int64_t jc = p0; jc < p1; jc += plan.nc) {
    const int64_t nb = plan.nc < p1 - jc ? plan.nc : p1 - jc;
    // Positions [jc, jc + whole): the block's tiles that end inside the output, written straight.
    const int64_t inside = straight && jc < N ? (N - jc) / L.nr * L.nr : 0;
    const int64_t whole = inside < nb ? inside : nb;
    for (int64_t ic = m0; ic < m1; ic += plan.mc) {
      const int64_t mb = plan.mc < m1 - ic ? plan.mc : m1 - ic;
      for (int64_t pc = 0; pc < K; pc += plan.kc) {
        const int64_t kb = plan.kc < K - pc ? plan.kc : K - pc;
        if (q.packed == nullptr) gemm_pack_a_fast<T, I>(q.w + ic * K + pc, K, 1, mb, kb, plan.mr, abuf);
        auto tile = [&](int64_t ir, int64_t jr) {
          const int64_t p = jc + jr;
          const T* b = p < src.tail_from ? src.base + p : src.tail + (p - src.tail_from);
          const int64_t* off = (p < src.tail_from ? src.off : src.tail_off) + pc;
          const int m = static_cast<int>(plan.mr < mb - ir ? plan.mr : mb - ir);
          const T* a = q.packed != nullptr ? q.packed + pc * mp + (ic + ir) * kb : abuf + ir * kb;
          if (by_rows)
            out_tiles[m - 1](kb, a, plan.mr, b, off, ConvShiftOut<T>{q.out + (ic + ir) * N, N, L.width, q.s->ow, q.s->oh},
                             p, q.bias != nullptr ? q.bias + ic + ir : nullptr);
          else if (jr < whole)
            tiles[m - 1](kb, a, plan.mr, b, off, q.out + (ic + ir) * N + p, N, false,
                         q.bias != nullptr ? q.bias + ic + ir : nullptr);
          else
            tiles[m - 1](kb, a, plan.mr, b, off, cbuf + ir * nb + jr, nb, pc > 0, nullptr);
        };
        for (int64_t jr = 0; jr < nb; jr += L.nr)
          for (int64_t ir = 0; ir < mb; ir += plan.mr) tile(ir, jr);
      }
      if (whole > 0) ep(q.image, q.channel0 + ic, q.channel0 + ic + mb, jc, jc + whole, q.out + ic * N + jc, N);
      if (whole < nb)
        conv_shift_store(q, L, by_rows ? nullptr : cbuf + whole, nb, ic, ic + mb, jc + whole, nb - whole, ep);
    }
  }
}

// Rows [m0, m1) x shifted positions [p0, p1) (whole tiles) on the calling thread, with its own
// buffers (or blocks of one tile in buffers on the stack when they cannot be allocated).
template <typename T, typename I, typename E>
inline void conv_shift_thread(GemmPlan plan, const ConvProblem<T>& q, const ConvShifted& L,
                              const ConvShiftSource<T>& src, int64_t m0, int64_t m1, int64_t p0, int64_t p1,
                              const E& ep) {
  using S = GemmShape<T, I>;
  if (m0 >= m1 || p0 >= p1) return;
  // The block of C: its rows (an MC block, at most the thread's) by as many positions as half of
  // L2 holds.
  const int64_t rows = plan.mc < m1 - m0 ? plan.mc : m1 - m0;
  plan.nc = gemm_clamp(gemm_caches().l2 / 2 / (rows * int64_t(sizeof(T))) / L.nr * L.nr, L.nr, 256 * L.nr);
  const int64_t a_elements = (plan.mc + plan.mr - 1) / plan.mr * plan.mr * plan.kc;
  const std::size_t abytes = q.packed != nullptr ? 0 : sizeof(T) * static_cast<std::size_t>(a_elements);
  T* abuf = abytes > 0 ? static_cast<T*>(gemm_buffer(0).get(abytes)) : nullptr;
  T* cbuf = static_cast<T*>(gemm_buffer(1).get(sizeof(T) * static_cast<std::size_t>(rows * plan.nc)));
  if (cbuf != nullptr && (abuf != nullptr || abytes == 0))
    return conv_shift_block<T, I>(plan, q, L, src, m0, m1, p0, p1, ep, abuf, cbuf);
  alignas(64) T a_small[S::mr * 64];
  alignas(64) T c_small[S::mr * ConvShiftTile<T, I>::nr_wide];
  GemmPlan small = plan;
  small.kc = 64, small.mc = plan.mr, small.nc = L.nr;
  ConvProblem<T> unpacked = q;  // weights packed ahead are blocked by plan.kc: pack them per block
  unpacked.packed = nullptr;
  conv_shift_block<T, I>(small, unpacked, L, src, m0, m1, p0, p1, ep, a_small, c_small);
}

// The buffer of one image and group: the tap offsets (K), then either the shifted input or, for
// a pointwise convolution read in place, the offsets of its last tile's copy (K) and that copy
// (K x nr); null when it cannot be allocated.
template <typename T> struct ConvShiftBuffer {
  int64_t *off, *tail_off;
  T* data;
};
template <typename T> inline ConvShiftBuffer<T> conv_shift_buffer(const ConvShape& s, const ConvShifted& L) {
  const int64_t K = s.k(), nr = L.nr;
  const bool in_place = s.pointwise();
  const std::size_t off_bytes = (sizeof(int64_t) * static_cast<std::size_t>(in_place ? 2 * K : K) + 63) / 64 * 64;
  const std::size_t data = static_cast<std::size_t>(in_place ? K * nr : L.size);
  char* p = static_cast<char*>(gemm_buffer(2).get(off_bytes + sizeof(T) * data));
  if (p == nullptr) return {nullptr, nullptr, nullptr};
  int64_t* off = reinterpret_cast<int64_t*>(p);
  T* rest = reinterpret_cast<T*>(p + off_bytes);
  conv_shift_offsets(s, L, off);
  if (!in_place) return {off, nullptr, rest};
  for (int64_t k = 0; k < K; ++k) off[K + k] = k * nr;
  return {off, off + K, rest};
}

// Rows [r0, r1) of each phase of input channels [c0, c1) of one image and group (x: its first
// channel) into the buffer's shifted copy (with the last row, of the last channel, also the
// slack after it), or for a pointwise convolution the columns of its last, partial tile,
// zero-padded to a whole one.
template <typename T, typename I>
inline void conv_shift_fill(const ConvShape& s, const ConvShifted& L, const T* x, int64_t c0, int64_t c1, int64_t r0,
                            int64_t r1, const ConvShiftBuffer<T>& buf) {
  const int64_t plane = s.h * s.w;
  if (buf.tail_off != nullptr) {
    const int64_t nr = L.nr, from = L.positions / nr * nr;
    for (int64_t k = c0; k < c1; ++k) {
      conv_copy(x + k * plane + from, 1, L.positions - from, buf.data + k * nr);
      conv_zero(buf.data + k * nr + (L.positions - from), nr - (L.positions - from));
    }
    return;
  }
  conv_shift_channels<T, I>(s, L, x, c0, c1, r0, r1, buf.data);
  if (c1 == s.cin_g() && r1 == L.rows) conv_zero(buf.data + s.cin_g() * L.channel, L.size - s.cin_g() * L.channel);
}

// The rows [r0, r1) of each phase that the tiles of shifted positions [p0, p1) read (p1 a whole
// number of tiles): from p0's row to the farthest tap of p1 - 1; for the last tile, whose
// dropped positions read past the last row, every row to the end.
inline void conv_shift_rows(const ConvShape& s, const ConvShifted& L, int64_t p0, int64_t p1, int64_t& r0,
                            int64_t& r1) {
  r0 = p0 / L.width;
  r1 = p1 >= L.positions ? L.rows : (p1 - 1 + (s.kw - 1) * s.dw / s.sw) / L.width + (s.kh - 1) * s.dh / s.sh + 1;
  if (r1 > L.rows) r1 = L.rows;
}

// Where one image and group's tiles read B from (x: its first channel).
template <typename T>
inline ConvShiftSource<T> conv_shift_source(const ConvShifted& L, const T* x, const ConvShiftBuffer<T>& buf) {
  if (buf.tail_off == nullptr) return {buf.data, buf.off, int64_t(1) << 62, nullptr, nullptr};
  return {x, buf.off, L.positions / L.nr * L.nr, buf.data, buf.tail_off};
}

// Called by every thread of a parallel region, `lacking` whether its own buffer could not be
// allocated: whether any thread's could not, the same answer on every thread (after a barrier).
// `flag` is shared by the team, false before the region.
inline bool conv_team_short(bool lacking, bool& flag) {
  if (lacking) {
#pragma omp atomic write
    flag = true;
  }
#pragma omp barrier
  bool any = false;
#pragma omp atomic read
  any = flag;
  return any;
}

// How a team of `threads` splits one image and group's product on the shifted path: by bands of
// shifted positions over every output channel when there are four tiles of positions per thread
// (each thread then reads and fills only its band's rows of the input, and leaves the next layer
// its positions of every channel, which that layer's own split by positions reads in the same
// core), else in the direction gemm_grid splits it, or (when the grid splits only the channels)
// by blocks of channels over every position; four chunks per thread, so that a thread running
// behind takes fewer of them (GemmChunks). (Split as gemm_grid chose, by channels for ResNet-50's
// pointwise layers on 56 x 56 and 28 x 28, those layers took 6% longer on 2 threads: 5.54-5.90
// against 5.22-5.67 ms in all, four alternating runs.)
struct ConvShiftSplit {
  bool by_positions;
  int64_t chunks;
};
inline ConvShiftSplit conv_shift_split(const GemmPlan& plan, const ConvShape& s, const ConvShifted& L, int threads) {
  const int64_t mt = (s.cout_g() + plan.mr - 1) / plan.mr, nt = L.tiled() / L.nr;
  const GemmGrid g = gemm_grid(mt, nt, plan.mr, L.nr, threads);
  const int64_t wanted = threads > 1 ? 4 * threads : 1;  // (alone: no one to wait for)
  const bool by_positions = nt >= wanted || g.tn > 1 || g.tm == 1;
  const int64_t tiles = by_positions ? nt : mt;
  return {by_positions, tiles < wanted ? tiles : wanted};
}

// Thread t's chunks of one image and group's product (`split`'s, dealt out by `chunks`). A band of
// positions is preceded by the rows of the thread's copy its tiles read (conv_shift_rows: a band's
// own rows and the taps' reach); for blocks of channels the thread's copy is filled whole before
// its first.
template <typename T, typename I, typename E>
inline void conv_shift_chunks(const GemmPlan& plan, const ConvProblem<T>& q, const ConvShifted& L,
                              const ConvShiftBuffer<T>& buf, const ConvShiftSplit& split, GemmChunks& chunks, int t,
                              const E& ep) {
  const ConvShape& s = *q.s;
  const int64_t M = s.cout_g(), tiled = L.tiled(), n = split.chunks;
  const ConvShiftSource<T> src = conv_shift_source(L, q.x, buf);
  if (split.by_positions) {
    const int64_t nt = tiled / L.nr;
    for (int64_t c; (c = chunks.take(t)) >= 0;) {
      const int64_t p0 = nt * c / n * L.nr, p1 = nt * (c + 1) / n * L.nr;
      int64_t r0 = 0, r1 = 0;
      conv_shift_rows(s, L, p0, p1, r0, r1);
      if (buf.tail_off == nullptr || p1 >= tiled) conv_shift_fill<T, I>(s, L, q.x, 0, s.cin_g(), r0, r1, buf);
      conv_shift_thread<T, I>(plan, q, L, src, 0, M, p0, p1, ep);
    }
    return;
  }
  const int64_t mt = (M + plan.mr - 1) / plan.mr;
  bool filled = false;
  for (int64_t c; (c = chunks.take(t)) >= 0;) {
    if (!filled) conv_shift_fill<T, I>(s, L, q.x, 0, s.cin_g(), 0, L.rows, buf), filled = true;
    const int64_t m0 = mt * c / n * plan.mr, m1 = mt * (c + 1) / n * plan.mr;
    conv_shift_thread<T, I>(plan, q, L, src, m0, m1 < M ? m1 : M, 0, tiled, ep);
  }
}

// The convolution through the shifted input (conv_run's other path, same contract), over images
// and groups when there are enough of them (each thread its own buffer, the units dealt out one
// at a time), else every thread on each product in chunks (conv_shift_split), each filling in a
// buffer of its own the rows its tiles read: no barrier, and no thread reads what another wrote. Filled by all threads into one buffer, a
// share of the channels each, the copy took ResNet-18's 56 x 56 layers as long on 2 threads as
// on 1 (30 us at -O3), each thread's tiles then reading half of it from the other core. False,
// with nothing written, when the calling thread's buffer cannot be allocated; when another's
// cannot, every thread computes the product through the packed patches (conv_thread).
template <typename T, typename I, typename E>
inline bool conv_shift_run(const ConvCall<T>& call, const GemmPlan& plan, int outer, int inner, const E& ep) {
  const ConvShape& s = *call.s;
  const ConvShifted L(s, conv_shift_nr<T, I>(s));
  const ConvShiftBuffer<T> mine = conv_shift_buffer<T>(s, L);
  if (mine.off == nullptr) return false;
  if (outer > 1 && outer >= inner) {
#pragma omp parallel num_threads(outer)
    {
      const ConvShiftBuffer<T> buf = conv_shift_buffer<T>(s, L);  // each thread's, offsets written once
#pragma omp for schedule(dynamic)
      for (int64_t u = 0; u < s.n * s.groups; ++u) {
        const ConvProblem<T> q = call.unit(u);
        if (buf.off == nullptr) {
          conv_thread<T, I>(plan, q, 0, 1, ep);
          continue;
        }
        conv_shift_fill<T, I>(s, L, q.x, 0, s.cin_g(), 0, L.rows, buf);
        conv_shift_thread<T, I>(plan, q, L, conv_shift_source(L, q.x, buf), 0, s.cout_g(), 0, L.tiled(), ep);
      }
    }
    return true;
  }
  const ConvShiftSplit split = conv_shift_split(plan, s, L, inner);
  for (int64_t u = 0; u < s.n * s.groups; ++u) {
    const ConvProblem<T> q = call.unit(u);
    bool short_of_memory = false;
    GemmChunks chunks(split.chunks, inner);
#pragma omp parallel num_threads(inner) if (inner > 1)
    {
      const GemmTeam team = gemm_team();
      const ConvShiftBuffer<T> buf = conv_shift_buffer<T>(s, L);  // each thread's
      const bool fall_back = conv_team_short(buf.off == nullptr, short_of_memory);
      if (fall_back)  // every thread then through the packed patches, on that path's split
        conv_thread<T, I>(plan, q, team.t, team.threads, ep);
      else
        conv_shift_chunks<T, I>(plan, q, L, buf, split, chunks, team.t, ep);
    }
  }
  return true;
}

// ---- the product transposed ----

// A convolution whose output positions leave vector lanes empty when they are the GEMM's columns
// (7 x 7: 49 positions take 4 vectors of 16, the last with one lane; the shifted path also
// computes and drops KW - 1 positions per row), and a kernel of several taps into channels that
// fill whole vectors, are computed transposed: C^T [positions, channels] = X^T W^T. The output
// channels fill the lanes and the positions are the tiles' rows, which the micro-kernels of every
// height (1 to MR) cover without waste. The weights are packed ahead as that product's B (W^T in
// gemm_pack_b's layout). X^T is read in place: a pointwise convolution's input by its strides
// (its positions contiguous; each finished tile of C^T, in L1, transposed into the output with the
// bias, the epilogue run once the image's output is whole); the patches of a kernel of several
// taps from the shifted copy, each tile broadcasting its positions' elements of tap k from where
// they lie (conv_swap_tile), so that nothing is packed, by units of positions and channels
// (conv_swap_taps). Summation order: the GEMM's, as on every other path (the same bits).
// Taken (kernel by kernel in ResNet-18 and MobileNet-V2, 1 thread, alternating builds):
// - pointwise: for planes of fewer than four vectors' positions and at least 256 output channels.
//   On 14 x 14 (196 of AVX-512's 208 lanes used) the transposed stores cost more than the lanes
//   won; on 7 x 7 (49 of 64) the products of 320 to 1280 channels ran 10-15% faster on 1 thread
//   and 2-14% on 2, those of 160 channels up to 20% slower on 2 (a narrow last strip of channels
//   for one of the two threads);
// - several taps: for 64 output channels or more, a whole number of vectors; else for 128 or more
//   when the GEMM path's tiles would keep under 90% of the positions they compute. First only the
//   latter: ResNet-18's 14 x 14 layers (196 of 224 kept) ran 8-13% faster, its stride-2 layers
//   into 14 x 14 and 7 x 7 12-17%, its 7 x 7 layers of 512 channels 0-9%, while its 28 x 28 and
//   56 x 56 layers ran 2-4% faster. Once the tiles' loop lost its address arithmetic
//   (conv_swap_tile), every convolution of ResNet-18's that the GEMM path still took ran faster
//   transposed, min of 30 calls alternating on Zen 3 (AVX2), 1 / 2 threads: the stem (3 -> 64,
//   7 x 7 / 2) 3.78 -> 3.65 / 2.06 -> 1.77 ms, 64 channels on 56 x 56 3.21 -> 2.86 / 1.65 -> 1.48,
//   64 -> 128 / 2 2.12 -> 1.76 / 1.23 -> 1.03, 128 channels on 28 x 28 4.26 -> 3.92 / 2.05 -> 1.87.
// A stem (at most 4 input channels, several taps, into 64 channels or more, a whole number of
// vectors): alone, with the caches warm, ResNet's 7 x 7 / 2 stem ran as fast either way on Zen 5
// (1.00x on 1 thread, 0.95x on 2 at batch 1, 1.09x at batch 8), but after its data had left the
// caches, as in a network, the shifted path took 4.5x as long (zeroing and filling its phases'
// copy from memory). In the networks on 2 threads, the generated code alternated: ResNet-18's stem
// 0.873-0.883 -> 0.828-0.844 ms, at batch 8 6.37-7.07 -> 5.69-6.63, ResNet-50's 0.873-0.896 ->
// 0.785-0.821.
// A strided 1 x 1 convolution without padding into at most 512 channels (ResNet's downsamples):
// its transposed product's tiles broadcast from the input where it lies, the stride spacing the
// positions, with no copy. `conv_bench`, GFLOP/s against the packed patches, 1 / 2 threads,
// alternating: ResNet-18's 256 -> 512 / 2 on 14 x 14 99 -> 121 / 162 -> 226, ResNet-50's
// 256 -> 512 / 2 on 56 x 56 97-150 -> 119-149 / 167-238 -> 270-292; into 1024 and 2048 channels
// slower (512 -> 1024 on 28 x 28 146-159 -> 133 / 281-286 -> 259, 1024 -> 2048 on 14 x 14
// 110-115 -> 97 / 218-229 -> 180-185: C^T blocks of fewer positions, each input line read for
// fewer of them). With 16 lanes (AVX-512's float) also for K under 256, where the packed
// patches' tiles hold few sums per element they pack: alternating call by call on Zen 5, 1 / 2
// threads, ResNet-18's 64 -> 128 / 2 on 56 x 56 1.13-1.15x / 1.22-1.34x, 128 -> 256 / 2 on
// 28 x 28 1.14-1.20x / 1.21-1.30x, and 16, 32 and 96 input channels 1.10-1.41x / 1.30-1.41x; on
// AVX2 (8 lanes) the same layers moved 0.96-1.10x / 0.96-1.23x, and keep K >= 256.
inline bool conv_swap_in_place(const ConvShape& s) {
  return s.kh == 1 && s.kw == 1 && s.ph == 0 && s.pw == 0 && !s.pointwise() && s.cout <= 512;
}

template <typename T, typename I> inline bool conv_swap_pays(const ConvShape& s) {
  if (s.direct || s.groups != 1) return false;
  const int64_t N = s.spatial();
  if (s.pointwise()) return N % I::width != 0 && N < 4 * I::width && s.cout >= 256;
  if (s.cout < 64) return false;
  if (s.cout % I::width == 0 && conv_swap_in_place(s) && (s.k() >= 256 || I::width >= 16)) return true;
  if (s.cout % I::width == 0 && s.k() >= 256 && s.kh * s.kw > 1) return true;
  if (s.cout % I::width == 0 && s.cin_g() <= 4 && s.kh * s.kw > 1) return true;  // a stem: see below
  if (s.kh * s.kw == 1) return false;
  if (s.cout < 128) return false;
  int64_t computed = (N + ConvShiftTile<T, I>::nr - 1) / ConvShiftTile<T, I>::nr * ConvShiftTile<T, I>::nr;
  if (conv_shift_pays<T, I>(s)) {
    const int64_t nr = conv_shift_nr<T, I>(s), positions = ConvShifted(s, nr).positions;
    computed = (positions + nr - 1) / nr * nr;
  }
  return N * 100 < computed * 90;
}

// The epilogue of one image's C^T tiles: positions [i0, i1) x channels [j0, j1) at c (row
// stride ldc) into the output's channels (each N positions long), the bias added to the tile's
// rows by vectors, then the tile transposed by register blocks (transpose_tile). Against the
// element-by-element loop it replaced (per channel, the sum plus the bias of each position), call
// by call on Zen 5, 1 / 2 threads: the pointwise layers on 7 x 7 of ResNet-50 (2048 -> 512,
// 512 -> 2048) and MobileNet-V2 (960 -> 320) 1.02-1.14x / 1.04-1.21x. The same bits.
template <typename T, typename I> struct ConvSwapEpilogue {
  const T* bias;
  T* out;  // the image's [cout, N] output
  int64_t N;
  void operator()(int64_t i0, int64_t i1, int64_t j0, int64_t j1, T* c, int64_t ldc) const {
    using V = Vec<T, I>;
    constexpr int64_t W = I::width;
    // Without a bias the sum stays as it is (x + 0 would turn -0 into +0).
    if (bias != nullptr)
      for (int64_t i = i0; i < i1; ++i) {
        T* row = c + (i - i0) * ldc;
        int64_t j = j0;
        for (; j + W <= j1; j += W) (V::loadu(row + j - j0) + V::loadu(bias + j)).storeu(row + j - j0);
        for (; j < j1; ++j) row[j - j0] += bias[j];
      }
    transpose_tile<I>(c, ldc, i1 - i0, j1 - j0, out + j0 * N + i0, N);
  }
};

// A finished tile of C^T (MR positions x n channels, the sums in acc) into the output: channel j's
// MR positions at o + j * ldo, the bias (its n channels at `bias`; null for none) added. The
// tile goes through a block on the stack, transposed from there TransposeBlock by block (8 x 8 in
// 256-bit registers for float on AVX2 and AVX-512: each channel's 8 positions one store), the
// rest element by element (a 7 x 7 output's tiles of 7 positions, channels past the last whole
// block). The sum plus the bias as the unit's transposes gave it: the same bits. Against the
// whole unit's C^T transposed out of L2 and its bias added by another pass, alternating call by
// call (Zen 5, ResNet-18's 3 x 3 layers alone, 1 / 2 threads): 56 x 56 1.01-1.02x / 1.02-1.04x,
// 14 x 14 1.00x / 1.06-1.10x, 7 x 7 1.00x / 1.06-1.09x, the stride-2 layers 0.99-1.02x /
// 1.04-1.14x; a 112 x 112 output 1.10x / 1.09-1.12x (an earlier tile-by-tile store cost it 20%,
// put down to its channels 49 KiB apart sharing a quarter of L1's sets).
template <typename T, typename I, int MR, int NV>
__attribute__((always_inline)) inline void conv_swap_tile_out(Vec<T, I> (&acc)[MR][NV], int n, const T* bias, T* o,
                                                              int64_t ldo) {
  using V = Vec<T, I>;
  constexpr int W = I::width, L = NV * W, B = TransposeBlock<T, I>::size;
  alignas(64) T tile[MR * L];
  _Pragma("GCC unroll 32") for (int v = 0; v < NV; ++v) {
    // Without a bias the sum stays as it is (x + 0 would turn -0 into +0).
    const V b = bias != nullptr ? gemm_load_lanes<V>(bias + v * W, n - v * W) : V(T(0));
    _Pragma("GCC unroll 32") for (int i = 0; i < MR; ++i) {
      (bias != nullptr ? acc[i][v] + b : acc[i][v]).storeu(tile + i * L + v * W);
    }
  }
  int j = 0;
  if constexpr (MR % B == 0) {
    for (; j + B <= n; j += B)
      _Pragma("GCC unroll 32") for (int i = 0; i < MR; i += B) {
        TransposeBlock<T, I>::run(tile + i * L + j, L, o + j * ldo + i, ldo);
      }
  }
  for (; j < n; ++j)
    _Pragma("GCC unroll 32") for (int i = 0; i < MR; ++i) o[j * ldo + i] = tile[i * L + j];
}

// The micro-kernel of the transposed product of several taps: C^T[0:MR, 0:n] (positions x
// channels) = (accumulate ? C^T : 0) + X^T W^T over one KC block, element (i, k) of X^T at
// x[off[k] + pos[i]] (tap k of position i in the shifted copy), W^T a packed panel (row k at
// b + k * NV * W). One row of W^T is NV loads, then each of the MR broadcasts of X^T feeds NV fmas
// (gemm_tile's loop, the broadcasts read from the copy rather than from a packed panel). Each row
// of the tile keeps a pointer to its position in the copy, so that a broadcast is one load
// indexed by the tap's offset, with no address arithmetic in the loop (with the offsets added per
// broadcast, the loop was 34 instructions for 12 fmas on AVX2 and ran at 78-84 GFLOP/s on Zen 3;
// with the pointers, 27, and 87-91). Along the way it asks for `pf_lines` cache lines from `pf`
// into L2, spread over the block, one every `kc / pf_lines` rows, between runs of the loop: its
// share of the next panel of W^T (conv_swap_block). With `o` set (the last KC block) the tile is
// final: it goes straight into the output, transposed, the bias added (conv_swap_tile_out);
// else into C^T at c.
template <typename T, typename I, int MR, int NV>
inline void conv_swap_tile(int64_t kc, const T* x, const int64_t* off, const int64_t* pos, const T* b, T* c,
                           int64_t ldc, int n, bool accumulate, const char* pf, int64_t pf_lines, const T* bias, T* o,
                           int64_t ldo) {
  using V = Vec<T, I>;
  constexpr int W = I::width;
  V acc[MR][NV];
  const T* xi[MR];
  _Pragma("GCC unroll 32") for (int i = 0; i < MR; ++i) {
    xi[i] = x + pos[i];
    _Pragma("GCC unroll 32") for (int v = 0; v < NV; ++v) {
      acc[i][v] = accumulate ? gemm_load_lanes<V>(c + i * ldc + v * W, n - v * W) : V(T(0));
    }
  }
  const int64_t pf_every = pf_lines > 0 ? (kc + pf_lines - 1) / pf_lines : kc;
  for (int64_t k0 = 0; k0 < kc; k0 += pf_every) {
    if (pf_lines > 0) {
      __builtin_prefetch(pf, 0, 2);
      pf += 64;
    }
    const int64_t k1 = k0 + pf_every < kc ? k0 + pf_every : kc;
    for (int64_t k = k0; k < k1; ++k) {
      const int64_t o = off[k];
      V bv[NV];
      _Pragma("GCC unroll 32") for (int v = 0; v < NV; ++v) bv[v] = V::loadu(b + v * W);
      _Pragma("GCC unroll 32") for (int i = 0; i < MR; ++i) {
        const V ai(xi[i][o]);
        _Pragma("GCC unroll 32") for (int v = 0; v < NV; ++v) acc[i][v] = fma(ai, bv[v], acc[i][v]);
      }
      b += NV * W;
    }
  }
  if (o != nullptr) return conv_swap_tile_out<T, I, MR, NV>(acc, n, bias, o, ldo);
  _Pragma("GCC unroll 32") for (int i = 0; i < MR; ++i) {
    _Pragma("GCC unroll 32") for (int v = 0; v < NV; ++v) gemm_store_lanes(acc[i][v], c + i * ldc + v * W, n - v * W);
  }
}

// The micro-kernels by height: tiles[m - 1] computes m rows (1 <= m <= GemmShape::mr), one panel
// of W^T wide.
template <typename T>
using ConvSwapTileFn = void (*)(int64_t, const T*, const int64_t*, const int64_t*, const T*, T*, int64_t, int, bool,
                                const char*, int64_t, const T*, T*, int64_t);
template <typename T, typename I, int... Ms>
inline const ConvSwapTileFn<T>* conv_swap_tiles(std::integer_sequence<int, Ms...>) {
  static const ConvSwapTileFn<T> table[] = {&conv_swap_tile<T, I, Ms + 1, GemmShape<T, I>::nv>...};
  return table;
}

// Elements of the panel of W^T the tiles read after the one at `j` of the KC block at `pc` (of
// kb rows), within the channels [n0, n1) of a block: the next channels' panel of the block, or
// the first of the next block; after the last, the first block of the panel at n1 when it is
// before `next_end` (the thread's next block of channels, likely), else null.
template <typename T>
inline const T* conv_swap_next_panel(const T* packed, int64_t K, int64_t P, int64_t kc, int64_t pc, int64_t kb,
                                     int64_t j, int64_t n0, int64_t n1, int64_t next_end, int64_t& elements) {
  if (j + P < n1) {
    elements = kb * P;
    return packed + (j + P) / P * P * K + pc * P;
  }
  if (pc + kb >= K) {
    if (n1 >= next_end) return elements = 0, nullptr;
    elements = (kc < K ? kc : K) * P;
    return packed + n1 / P * P * K;
  }
  elements = (kc < K - pc - kb ? kc : K - pc - kb) * P;
  return packed + n0 / P * P * K + (pc + kb) * P;
}

// Positions [m0, m1) x output channels [n0, n1) of one image's C^T = X^T W^T (ct: N x cout), W^T
// packed ahead (panels of GemmShape::panel columns over the whole K), X^T read in place from the
// shifted copy (pos: each output position's place in it): per KC block, panel of W^T by panel
// (it stays in L1 while the tiles pass over it), the positions in tiles of even heights (49 as 7
// of 7, not 6 of 8 and 1 of 1); `ep` on each tile once its K is complete. With `out` set (the
// output's channel 0 at the block's first position, channels N apart) the tiles of the last KC
// block go straight into it with `bias` (conv_swap_tile_out), C^T holding only the earlier
// blocks' sums. Where K spans several
// KC blocks, each tile asks for its share of the next panel: the first tile of a panel would
// otherwise wait on memory alone (a 7 x 7 output has only 7 tiles to share a panel's loads).
// (Measured again with the weights from memory, the prefetch on and off alternating call by
// call: 1.02-1.04x on 3 x 3 layers on 14 x 14 and 28 x 28 on one thread, the others within 2%;
// but a product of one KC block ran 10-20% slower for it on one thread, ResNet-18's 256 -> 512 / 2
// downsample, and 2-9% on two: it has none.)
template <typename T, typename I, typename E>
inline void conv_swap_block(const GemmPlan& plan, const ConvShape& s, const T* x, const int64_t* off,
                            const int64_t* pos, const T* packed, T* ct, const GemmThreadBlock& tb, int64_t next_end,
                            const E& ep, const T* bias = nullptr, T* out = nullptr, int64_t N = 0) {
  using S = GemmShape<T, I>;
  constexpr int64_t P = S::panel;
  const int64_t K = s.k(), M = s.cout, rows = tb.m1 - tb.m0, row_tiles = (rows + S::mr - 1) / S::mr;
  const ConvSwapTileFn<T>* tiles = conv_swap_tiles<T, I>(std::make_integer_sequence<int, S::mr>());
  for (int64_t pc = 0; pc < K; pc += plan.kc) {
    const int64_t kb = plan.kc < K - pc ? plan.kc : K - pc;
    for (int64_t j = tb.n0; j < tb.n1; j += P) {
      const int n = static_cast<int>(P < tb.n1 - j ? P : tb.n1 - j);
      const T* b = packed + j / P * P * K + pc * P;
      int64_t next_elements = 0;
      const T* next = K > plan.kc ? conv_swap_next_panel(packed, K, P, plan.kc, pc, kb, j, tb.n0, tb.n1, next_end,
                                                         next_elements)
                                  : nullptr;
      const int64_t lines = next_elements * int64_t(sizeof(T)) / 64;
      for (int64_t t = 0; t < row_tiles; ++t) {
        const int64_t i = tb.m0 + rows * t / row_tiles, m = tb.m0 + rows * (t + 1) / row_tiles - i;
        const int64_t l0 = lines * t / row_tiles, l1 = lines * (t + 1) / row_tiles;
        T* c = ct + i * M + j;
        T* o = out != nullptr && pc + kb == K ? out + j * N + i : nullptr;
        tiles[m - 1](kb, x, off + pc, pos + i, b, c, M, n, pc > 0,
                     next != nullptr ? reinterpret_cast<const char*>(next) + l0 * 64 : nullptr, l1 - l0,
                     bias != nullptr ? bias + j : nullptr, o, N);
        if (pc + kb == K) ep(i, i + m, j, j + n, c, M);
      }
    }
  }
}

// How one image's transposed product is dealt out: units of a block of positions by a block of
// whole panels of channels. A block of positions is as many as fill a quarter of L2 with their
// rows of C^T over every channel (at least four tiles' rows), so that the tiles' C^T stays in L2
// between KC blocks and the output they write is still there for the epilogue; its channels are
// split in halves until the team has four units per thread, or the panels run out.
struct ConvSwapUnits {
  int64_t position_blocks, channel_blocks, rows;  // rows: the most positions of a block
  int64_t count() const { return position_blocks * channel_blocks; }
};
template <typename T, typename I> inline ConvSwapUnits conv_swap_units(const ConvShape& s, int threads) {
  using S = GemmShape<T, I>;
  const int64_t N = s.spatial(), M = s.cout;
  const int64_t fit = gemm_caches().l2 / 4 / (M * int64_t(sizeof(T))), tall = fit > 4 * S::mr ? fit : 4 * S::mr;
  ConvSwapUnits u{(N + tall - 1) / tall, 1, 0};
  u.rows = (N + u.position_blocks - 1) / u.position_blocks;
  const int64_t panels = (M + S::panel - 1) / S::panel;
  while (u.count() < 4 * int64_t(threads) && u.channel_blocks * 2 <= panels) u.channel_blocks *= 2;
  return u;
}

// The stride-1 convolution whose shifted copy a transposed product of several taps reads: the
// input zero-padded, whole rows, no phases. Its tiles broadcast each position's taps from where
// they lie (pos, off), so a stride only spaces the positions: output (oh, ow) reads from
// (oh sh, ow sw) on. (The phases of the GEMM's path, which its vector loads need, took stride-2
// layers one element at a time: 12% of ResNet-18's 64 -> 128 / 2 on one thread.)
inline ConvShape conv_swap_padded(const ConvShape& s) {
  ConvShape p = s;
  p.oh = (s.oh - 1) * s.sh + 1, p.ow = (s.ow - 1) * s.sw + 1, p.sh = 1, p.sw = 1;
  return p;
}

// The buffers of a transposed product of several taps: the tap offsets (K, shared), then one
// padded copy per thread (`stride` elements apart), with each output position's place in a copy.
template <typename T> struct ConvSwapCopies {
  ConvShape padded;  // conv_swap_padded
  ConvShifted L;     // its layout
  int64_t* off;
  const int64_t* pos;
  T* data;
  int64_t stride;
  bool in_place;  // conv_swap_in_place: no copies, `off` and `pos` into the input
  ConvShiftBuffer<T> of(int t) const { return {off, nullptr, data + t * stride}; }
};

// The KC block of a transposed product of several taps: the GEMM's (a panel of W^T as large as
// L1), but a quarter of that where a unit has at most eight tiles of positions (a 7 x 7 output,
// whose tiles pass over each panel 7 times) and K spans several blocks anyway. ResNet's 3 x 3
// layers into 7 x 7 (512 -> 512, 256 -> 512 / 2, 512 -> 512 / 2), conv_run alternating call by
// call with the weights from memory, Zen 5: KC 96 against 384 took 7-9% less time on 2 threads
// in every round and 1-15% less on 1 (the larger figures in faster minutes); 64 lost on 1 thread
// (0.93x). On 14 x 14 and larger outputs, and with K of one block (ResNet-18's 256 -> 512 / 2
// downsample), the smaller block lost 0-7%.
template <typename T, typename I> inline int64_t conv_swap_kc(const GemmPlan& plan, int64_t rows, int64_t K) {
  using S = GemmShape<T, I>;
  const int64_t quarter = plan.kc / 4 / 16 * 16;
  if (rows > 8 * S::mr || K <= plan.kc || quarter < 64) return plan.kc;
  return quarter;
}

// Rows [r0, r1) of every channel of a thread's copy, given the rows [f0, f1) it already holds:
// only those it lacks when the two ranges meet (a thread's units go forward through the image),
// else the new range alone; [f0, f1) becomes what the copy holds.
template <typename T, typename I>
inline void conv_swap_fill_rows(const ConvSwapCopies<T>& cp, const ConvShiftBuffer<T>& buf, const T* x, int64_t r0,
                                int64_t r1, int64_t& f0, int64_t& f1) {
  const int64_t C = cp.padded.cin_g();
  if (r1 < f0 || r0 > f1 || f0 == f1) {
    conv_shift_fill<T, I>(cp.padded, cp.L, x, 0, C, r0, r1, buf);
    f0 = r0, f1 = r1;
    return;
  }
  if (r0 < f0) conv_shift_fill<T, I>(cp.padded, cp.L, x, 0, C, r0, f0, buf), f0 = r0;
  if (r1 > f1) conv_shift_fill<T, I>(cp.padded, cp.L, x, 0, C, f1, r1, buf), f1 = r1;
}

// One image's C^T = X^T W^T for a kernel of several taps (x: the image): each thread takes units
// (ConvSwapUnits; its own run first, in order, then the others': GemmChunks), fills the rows of
// its own copy the unit's positions read (those it lacks), computes the unit's tiles (the sums of
// all but the last KC block in its block of C^T, `cts`, one per thread, `rows` x M; the last
// block's tiles straight into the output, conv_swap_tile_out), then runs the convolution's
// epilogue on the unit's channels x positions of the output while they are in L2. No barrier,
// and no copy line written by one core for another: one copy filled by the whole team, a share of the channels each, then read by every
// thread, took 2 threads 11% (56 x 56) to 20% (stride 2) of ResNet-18's layers, and the tiles ran
// 8% slower on lines the other core had written. (C^T of the whole image, then the output by one
// pass and the epilogue by another, cost ResNet-18's stem 40% and its 56 x 56 layers 10-15% on 2
// threads.)
template <typename T, typename I, typename E>
inline void conv_swap_taps(const ConvShape& s, const ConvSwapCopies<T>& cp, const T* x, const T* packed,
                           const T* bias, T* out, int64_t image, const ConvSwapUnits& u, T* cts, int threads,
                           const E& ep) {
  using S = GemmShape<T, I>;
  constexpr int64_t P = S::panel;
  const int64_t N = s.spatial(), M = s.cout, K = s.k(), panels = (M + P - 1) / P;
  GemmPlan plan = gemm_plan<T, I>(N, M, K);
  plan.mr = S::mr, plan.nr = P, plan.kc = conv_swap_kc<T, I>(plan, u.rows, K);
  GemmChunks units(u.count(), threads);
#pragma omp parallel num_threads(threads) if (threads > 1)
  {
    const GemmTeam team = gemm_team();
    const ConvShiftBuffer<T> buf = cp.of(team.t);
    const T* src = cp.in_place ? x : buf.data;
    T* ct = cts + team.t * u.rows * M;
    int64_t f0 = 0, f1 = 0;  // the rows this thread's copy holds
    for (int64_t c; (c = units.take(team.t)) >= 0;) {
      const int64_t b = c / u.channel_blocks, cb = c % u.channel_blocks;
      const int64_t q0 = N * b / u.position_blocks, q1 = N * (b + 1) / u.position_blocks;
      const int64_t n0 = panels * cb / u.channel_blocks * P, n_end = panels * (cb + 1) / u.channel_blocks * P;
      const int64_t n1 = n_end < M ? n_end : M;
      const int64_t r0 = q0 / s.ow * s.sh, r1 = (q1 - 1) / s.ow * s.sh + (s.kh - 1) * s.dh + 1;
      if (!cp.in_place) conv_swap_fill_rows<T, I>(cp, buf, x, r0, r1, f0, f1);
      const GemmThreadBlock tb{GemmGrid{}, 0, q1 - q0, n0, n1};
      conv_swap_block<T, I>(plan, s, src, cp.off, cp.pos + q0, packed, ct, tb, n1, GemmNoEpilogue(), bias,
                            out + q0, N);
      ep(image, n0, n1, q0, q1, out + n0 * N + q0, N);
    }
  }
}

// A batch's images dealt out to the threads whole (GemmChunks), each thread with its own copy and
// block of C^T. No barrier and no sharing inside an image: ResNet-18 at batch 8 on 2 threads
// 185.4 -> 175.7 ms, its transposed layers 3-11% faster. Not for outputs of at most eight tiles of
// positions (conv_swap_by_images).
template <typename T, typename I, typename E>
inline void conv_swap_images(const ConvShape& s, const ConvSwapCopies<T>& cp, const T* x, const T* packed,
                             const T* bias, T* out, T* cts, int threads, const E& ep) {
  const int64_t N = s.spatial(), M = s.cout;
  const ConvSwapUnits u = conv_swap_units<T, I>(s, 1);
  GemmChunks images(s.n, threads);
#pragma omp parallel num_threads(threads)
  {
    const int t = gemm_team().t;
    ConvSwapCopies<T> mine = cp;
    mine.data = cp.data + t * cp.stride, mine.stride = 0;
    for (int64_t i; (i = images.take(t)) >= 0;)
      conv_swap_taps<T, I>(s, mine, x + i * s.c * s.h * s.w, packed, bias, out + i * M * N, i, u,
                           cts + t * u.rows * M, 1, ep);
  }
}

// Whether a batch's transposed product goes by whole images per thread (conv_swap_images) rather
// than by each image's units over the team: for several images and threads, unless an image has
// at most eight tiles of positions (a 7 x 7 output). There the weights outweigh the rest: a thread
// per image reads all of them for each image, while the team's units read each panel of W^T once
// per image between the two threads. ResNet-18 at batch 8, 2 threads, its generated code built
// both ways and run alternately (three pairs): layer 4's four 3 x 3 layers 19.9-20.2 -> 18.2-18.7
// ms, all kernels 83.2-85.6 -> 81.5-84.0; by units, the larger outputs' layers were within 2% of
// whole images either way.
template <typename T, typename I> inline bool conv_swap_by_images(const ConvShape& s, int threads) {
  return s.n > 1 && threads > 1 && s.spatial() > 8 * GemmShape<T, I>::mr;
}

// The convolution as C^T = X^T W^T per image, the weights packed ahead (conv_pack_weights); false,
// with nothing written, when a buffer cannot be allocated. A pointwise one reads its input in
// place, its C^T in the calling thread's buffer, and runs the epilogue once the image's output is
// whole, on its whole rows (a tile's rows of 8 positions are shorter than a vector: the
// epilogue's loops would run them element by element), over the threads by blocks of channels.
// One of several taps goes by units (conv_swap_taps).
template <typename T, typename I, typename E>
inline bool conv_swap_run(const ConvShape& s, const T* x, const T* packed, const T* bias, T* out, const E& ep) {
  const int64_t N = s.spatial(), M = s.cout, K = s.k();
  if (!s.pointwise()) {
    const GemmPlan plan = gemm_plan<T, I>(N, M, K);
    const int threads = gemm_threads(N, M, K, gemm_tile_count(plan, N, M));
    const bool by_images = s.n > 1 && threads > 1;
    const ConvSwapUnits u = conv_swap_units<T, I>(s, by_images ? 1 : threads);
    const bool in_place = conv_swap_in_place(s);
    const ConvShape padded = conv_swap_padded(s);
    const ConvShifted L(padded, GemmShape<T, I>::panel);
    const std::size_t off_bytes = (sizeof(int64_t) * static_cast<std::size_t>(K) + 63) / 64 * 64;
    const int64_t stride = in_place ? 0 : (L.size + 15) / 16 * 16;
    char* p = static_cast<char*>(gemm_buffer(2).get(off_bytes + sizeof(T) * static_cast<std::size_t>(threads * stride)));
    int64_t* pos = static_cast<int64_t*>(gemm_buffer(3).get(sizeof(int64_t) * static_cast<std::size_t>(N)));
    T* cts = static_cast<T*>(gemm_buffer(1).get(sizeof(T) * static_cast<std::size_t>(threads * u.rows * M)));
    if (p == nullptr || pos == nullptr || cts == nullptr) return false;
    const ConvSwapCopies<T> cp{padded, L, reinterpret_cast<int64_t*>(p), pos, reinterpret_cast<T*>(p + off_bytes),
                               stride, in_place};
    const int64_t width = in_place ? s.w : L.width;  // of the rows the tiles read
    if (in_place)
      for (int64_t k = 0; k < K; ++k) cp.off[k] = k * s.h * s.w;
    else
      conv_shift_offsets(padded, L, cp.off);
    for (int64_t oh = 0, q = 0; oh < s.oh; ++oh)
      for (int64_t ow = 0; ow < s.ow; ++ow) pos[q++] = oh * s.sh * width + ow * s.sw;
    if (by_images) {
      conv_swap_images<T, I>(s, cp, x, packed, bias, out, cts, threads, ep);
      return true;
    }
    for (int64_t image = 0; image < s.n; ++image)
      conv_swap_taps<T, I>(s, cp, x + image * s.c * s.h * s.w, packed, bias, out + image * M * N, image, u, cts,
                           threads, ep);
    return true;
  }
  T* ct = static_cast<T*>(gemm_buffer(3).get(sizeof(T) * static_cast<std::size_t>(N * M)));
  if (ct == nullptr) return false;
  for (int64_t image = 0; image < s.n; ++image) {
    T* o = out + image * M * N;
    gemm_prepacked<T, I>(x + image * s.c * s.h * s.w, 1, N, packed, ct, M, N, M, K,
                         ConvSwapEpilogue<T, I>{bias, o, N});
    if constexpr (!std::is_same_v<E, ConvNoEpilogue>) {
      constexpr int64_t kChannels = 64;
      const int64_t blocks = (M + kChannels - 1) / kChannels;
#pragma omp parallel for schedule(static) if (M * N >= (int64_t(1) << 15))
      for (int64_t b = 0; b < blocks; ++b) {
        const int64_t j0 = b * kChannels, j1 = j0 + kChannels < M ? j0 + kChannels : M;
        ep(image, j0, j1, int64_t(0), N, o + j0 * N, N);
      }
    }
  }
  return true;
}

}  // namespace stax_rt
}  // namespace
#endif  // STAX_RT_CONV_SHIFT
// @end-sections
