// Convolutions of generated code (conv1d, conv2d; NCHW, PyTorch 2.x semantics: stride, padding,
// dilation, groups, bias), float32 and float64 (design.md, "CPU code": the GEMM's micro-kernels
// without an im2col buffer; depthwise and other small-group convolutions as direct vector
// loops). Same section rules as stax_prelude.h.
//
// Per image and group, the output is a matrix: out[Cout/g, OH*OW] (NCHW is exactly that,
// row-major) = W[Cout/g, K] x patches[K, OH*OW] with K = Cin/g * KH * KW, row k = (ci, kh, kw)
// of the patches holding x[ci, oh * sh - ph + kh * dh, ow * sw - pw + kw * dw] (0 outside the
// input) at column oh * OW + ow. The patches are never stored whole: where that pays, the tiles
// read them in place from a shifted copy of the input, or from the input itself for a pointwise
// convolution (stax_conv_shift.h); else each KC x NC block of them is packed straight from the
// input into the panels the micro-kernels read (conv_pack_b; a 1x1 convolution of stride 1
// without padding packs the input itself, which is that matrix). Where the positions would
// leave vector lanes empty (a pointwise convolution of a plane smaller than four vectors, a
// kernel of several taps on a 14 x 14 or 7 x 7 output) the product is computed transposed, the
// output channels in the lanes (conv_swap_run, conv_swap_pays).
// Summation order: that of the GEMM (stax_gemm_kernel.h), one fma per k in increasing k, the
// bias added to the finished sum; the bits do not depend on the thread count. A grouped
// convolution with few channels per group (depthwise: one) is no product worth packing (K =
// Cin/g * KH * KW, M = Cout/g are small): with `direct` set (the kernel plan's choice) its
// output rows are sums of Cin/g * KH * KW shifted input rows scaled by one weight each, in
// vector loops.
// A conv1d is a conv2d with H = KH = 1.
#include "stax_gemm.h"  // (not emitted) the sections these require, so this header compiles alone

// @section conv requires gemm conv_shift conv_wino
#ifndef STAX_RT_CONV
#define STAX_RT_CONV
namespace {
namespace stax_rt {

// One convolution: input [n, c, h, w], weight [cout, c / groups, kh, kw], output [n, cout, oh, ow];
// strides sh, sw, the padding before each spatial dim ph, pw (the padding after is implied by
// oh, ow), dilations dh, dw; `direct` (0 or 1): direct loops rather than the GEMM.
struct ConvShape {
  int64_t n, c, h, w, cout, kh, kw, oh, ow, sh, sw, ph, pw, dh, dw, groups, direct;
  int64_t cin_g() const { return c / groups; }
  int64_t cout_g() const { return cout / groups; }
  int64_t k() const { return cin_g() * kh * kw; }  // the GEMM's K
  int64_t spatial() const { return oh * ow; }      // the GEMM's N
  bool pointwise() const { return kh == 1 && kw == 1 && sh == 1 && sw == 1 && ph == 0 && pw == 0 && oh == h && ow == w; }
};

// The epilogue of a convolution: called as ep(image, i0, i1, j0, j1, c, ldc) on every block of
// output channels [i0, i1) x output positions [j0, j1) of one image once its values are final
// (the bias added), c pointing at element (i0, j0) of that image's [cout, oh * ow] matrix and
// ldc its row stride. The blocks cover the output exactly once; each runs on the thread that
// computed it, in L1 (GemmNoEpilogue's rules).
struct ConvNoEpilogue {
  template <typename T> void operator()(int64_t, int64_t, int64_t, int64_t, int64_t, T*, int64_t) const {}
};

// ---- the patches: a block of them packed for the micro-kernels ----

// dst[t] = src[t * step] for t < n (step 1 and 2 as loops the compiler vectorizes).
template <typename T> inline void conv_copy(const T* src, int64_t step, int64_t n, T* dst) {
  if (step == 1) {
    for (int64_t t = 0; t < n; ++t) dst[t] = src[t];
  } else if (step == 2) {
    for (int64_t t = 0; t < n; ++t) dst[t] = src[2 * t];
  } else {
    for (int64_t t = 0; t < n; ++t) dst[t] = src[t * step];
  }
}

// dst[t] = src[2 t] for t < n: whole vectors by stride-2 loads (EvenLoad: two loads and a
// shuffle), then one element at a time. (The compiler's loop for it took 60% of a stride-2
// depthwise plane's time on AVX2: 5200 of 8300 cycles on 112 x 112.)
template <typename T, typename I> inline void conv_copy_even(const T* src, int64_t n, T* dst) {
  using V = Vec<T, I>;
  int64_t t = 0;
  for (; t + V::size <= n; t += V::size) EvenLoad<T, I>::load(src + 2 * t).storeu(dst + t);
  for (; t < n; ++t) dst[t] = src[2 * t];
}

template <typename T> inline void conv_zero(T* dst, int64_t n) {
  for (int64_t t = 0; t < n; ++t) dst[t] = T(0);
}

// conv_zero by whole vectors, the last one masked.
template <typename T, typename I> inline void conv_zero_vectors(T* dst, int64_t n) {
  using V = Vec<T, I>;
  int64_t t = 0;
  for (; t + V::size <= n; t += V::size) V(T(0)).storeu(dst + t);
  if (t < n) V(T(0)).storeu(dst + t, static_cast<int>(n - t));
}

// `rows` runs of n elements each read with the column stride sw from src (rows src_stride
// apart) into dst (rows dst_stride apart): at stride 1 as (masked) vectors (the compiler's loop
// would leave a row of 7 or 14 to its scalar remainder), at stride 2 by stride-2 loads
// (conv_copy_even).
template <typename T, typename I>
inline void conv_copy_rows(const T* src, int64_t src_stride, int64_t sw, int64_t n, int64_t rows, T* dst,
                           int64_t dst_stride) {
  if (sw == 1)
    for (int64_t r = 0; r < rows; ++r, src += src_stride, dst += dst_stride) gemm_copy_row<T, I>(src, n, dst, n);
  else if (sw == 2)
    for (int64_t r = 0; r < rows; ++r, src += src_stride, dst += dst_stride) conv_copy_even<T, I>(src, n, dst);
  else
    for (int64_t r = 0; r < rows; ++r, src += src_stride, dst += dst_stride) conv_copy(src, sw, n, dst);
}

// Positions t in [0, n) with 0 <= first + t * step < size: [lo, hi) (empty when lo >= hi).
inline void conv_inside(int64_t first, int64_t step, int64_t n, int64_t size, int64_t& lo, int64_t& hi) {
  lo = first >= 0 ? 0 : (-first + step - 1) / step;
  hi = first > size - 1 ? 0 : (size - 1 - first) / step + 1;
  if (hi > n) hi = n;
  if (lo > hi) lo = hi;
}

// A per-tap offset table of `channels` channels of `taps` entries, channel 0's already in
// off[0, taps): each other channel's are channel 0's moved by its place, ci * channel_stride
// (one addition per entry, not a division: the tables are built per thread and call).
inline void conv_offsets_by_channel(int64_t* off, int64_t taps, int64_t channels, int64_t channel_stride) {
  for (int64_t ci = 1; ci < channels; ++ci)
    for (int64_t t = 0; t < taps; ++t) off[ci * taps + t] = ci * channel_stride + off[t];
}

// Row k of the patches over columns [j0, j0 + nb), contiguous into row[0:nb]: one segment per
// output row the columns cross, each the input row of tap (ki, kj) read with the stride (its
// inside part, the same for every output row, computed once) and zeros outside.
template <typename T>
inline void conv_patch_row(const ConvShape& s, const T* x, int64_t k, int64_t j0, int64_t nb, T* row) {
  const int64_t taps = s.kh * s.kw, ci = k / taps, ki = k % taps / s.kw, kj = k % s.kw;
  const T* plane = x + ci * s.h * s.w;
  const int64_t first = kj * s.dw - s.pw;  // the input column of output column 0
  int64_t lo = 0, hi = 0;
  conv_inside(first, s.sw, s.ow, s.w, lo, hi);
  int64_t oh = j0 / s.ow, ow = j0 % s.ow;
  for (int64_t d = 0; d < nb; ++oh, ow = 0) {
    const int64_t len = s.ow - ow < nb - d ? s.ow - ow : nb - d, end = ow + len;
    T* dst = row + d - ow;  // indexed by output column
    const int64_t ih = oh * s.sh - s.ph + ki * s.dh;
    if (ih < 0 || ih >= s.h || lo >= hi || hi <= ow || lo >= end) {
      conv_zero(dst + ow, len);
    } else {
      const int64_t a = lo > ow ? lo : ow, b = hi < end ? hi : end;
      conv_zero(dst + ow, a - ow);
      conv_copy(plane + ih * s.w + first + a * s.sw, s.sw, b - a, dst + a);
      conv_zero(dst + b, end - b);
    }
    d += len;
  }
}

// Rows [k0, k0 + kb) x columns [j0, j0 + nb) of the patches of image-and-group input x (its
// first channel at x) in panels of P columns (gemm_pack_b's layout for that block): each row
// gathered contiguously into `row` (nb elements of scratch), then dealt out to the panels.
template <typename T, typename I>
inline void conv_pack_b(const ConvShape& s, const T* x, int64_t k0, int64_t kb, int64_t j0, int64_t nb, int64_t P,
                        T* out, T* row) {
  if (s.pointwise()) return gemm_pack_b_fast<T, I>(x + k0 * s.h * s.w + j0, s.h * s.w, 1, kb, nb, P, out);
  for (int64_t k = 0; k < kb; ++k) {
    conv_patch_row(s, x, k0 + k, j0, nb, row);
    for (int64_t d = 0; d < nb; d += P) gemm_copy_row<T, I>(row + d, P < nb - d ? P : nb - d, out + d * kb + k * P, P);
  }
}

// ---- the weights: A packed ahead ----

// Elements of the weights packed for the GEMM on I: each group's [cout_g, K] matrix in panels of
// GemmTile<T, I>::mr rows (gemm_pack_a's layout) per KC block of the plan, one group after the
// other; for a product computed transposed (conv_swap_pays), W^T in gemm_pack_b's layout; for
// F(2 x 2, 3 x 3) (conv_wino_pays, unless `wino` is false), the transformed weights.
template <typename T, typename I> inline bool conv_swap_pays(const ConvShape& s);
template <typename T, typename I> inline bool conv_wino_pays(const ConvShape& s);
template <typename T, typename I> inline int64_t conv_wino_weights_size(const ConvShape& s);
template <typename T, typename I> inline void conv_wino_pack(const ConvShape& s, const T* w, T* out);
template <typename T, typename I> inline int64_t conv_packed_weights_size(const ConvShape& s, bool wino = true) {
  if (wino && conv_wino_pays<T, I>(s)) return conv_wino_weights_size<T, I>(s);
  if (conv_swap_pays<T, I>(s)) return gemm_packed_b_size(s.k(), s.cout, gemm_panel_width<T>(I::width));
  return s.groups * gemm_packed_a_size(s.cout_g(), s.k(), GemmTile<T, I>::mr);
}

// The weights packed once for the life of the process (generated code calls it for a constant
// weight, whose packing would otherwise be repeated on every call); null for direct loops,
// which read the weights as they are, or when memory runs out (the weights are then packed per
// call).
template <typename T, typename I> inline GemmPlan conv_plan(const ConvShape& s, bool packed);

template <typename T, typename I> inline const T* conv_pack_weights(const ConvShape& s, const T* w, bool wino = true) {
  if (s.direct) return nullptr;
  const int64_t size = conv_packed_weights_size<T, I>(s, wino);
  T* out = static_cast<T*>(::operator new(sizeof(T) * static_cast<std::size_t>(size), std::align_val_t(64), std::nothrow));
  if (out == nullptr) return nullptr;
  if (wino && conv_wino_pays<T, I>(s)) {  // U = G g G^T of F(2 x 2, 3 x 3) (stax_conv_wino.h)
    conv_wino_pack<T, I>(s, w, out);
    return out;
  }
  if (conv_swap_pays<T, I>(s)) {  // W^T as the B of C^T = X^T W^T: element (k, c) at w[c * K + k]
    gemm_pack_b(w, 1, s.k(), s.k(), s.cout, gemm_panel_width<T>(I::width), out);
    return out;
  }
  const GemmPlan plan = conv_plan<T, I>(s, true);
  const int64_t M = s.cout_g(), K = s.k(), mp = (M + plan.mr - 1) / plan.mr * plan.mr;
  const int64_t per_group = gemm_packed_a_size(M, K, plan.mr);
  // KC block by KC block (the plan's), each block's panels one after the other: the tiles of a
  // block then read the weights as one forward stream (conv_block).
  for (int64_t g = 0; g < s.groups; ++g)
    for (int64_t pc = 0; pc < K; pc += plan.kc) {
      const int64_t kb = plan.kc < K - pc ? plan.kc : K - pc;
      gemm_pack_a_fast<T, I>(w + g * M * K + pc, K, 1, M, kb, plan.mr, out + g * per_group + pc * mp);
    }
  return out;
}

// ---- one image and group as a GEMM ----

// What a thread needs for one image and group: the shape, its input channels, its weights (or
// packed weights), its bias, its output rows, where its output channels start, and the image.
template <typename T> struct ConvProblem {
  const ConvShape* s;
  const T* x;
  const T* w;
  const T* packed;  // [cout_g, K] in panels of GemmTile::mr rows, or null
  const T* bias;    // cout_g values, or null
  T* out;
  int64_t channel0, image;
};

// Adds the bias to a finished tile, then runs the epilogue.
template <typename T, typename E>
inline void conv_finish(const ConvProblem<T>& q, int64_t i0, int64_t i1, int64_t j0, int64_t j1, T* c, int64_t ldc,
                        const E& ep) {
  if (q.bias != nullptr)
    for (int64_t i = i0; i < i1; ++i) {
      const T b = q.bias[i];
      T* row = c + (i - i0) * ldc;
      for (int64_t j = 0; j < j1 - j0; ++j) row[j] += b;
    }
  ep(q.image, q.channel0 + i0, q.channel0 + i1, j0, j1, c, ldc);
}

// Rows [m0, m1) x columns [n0, n1) of one image and group's output (a thread's block of the tile
// grid), its patches packed block by block into bbuf and, unless packed ahead, its weights into
// abuf (the loops of gemm_block and gemm_rows with the patches as B).
template <typename T, typename I, typename E>
inline void conv_block(const GemmPlan& plan, const ConvProblem<T>& q, int64_t m0, int64_t m1, int64_t n0, int64_t n1,
                       const E& ep, T* abuf, T* bbuf, T* row) {
  const ConvShape& s = *q.s;
  const int64_t K = s.k(), N = s.spatial(), P = plan.nr, mp = (s.cout_g() + plan.mr - 1) / plan.mr * plan.mr;
  using S = GemmShape<T, I>;
  const GemmTileFn<T>* tiles = S::tiles(plan.nr, false);
  // A last panel of at most one vector's columns (196 positions: 6 panels of 32 and 4) by the
  // tiles one vector wide, which read the same panels.
  const GemmTileFn<T>* narrow =
      P == S::nr && S::nv > 1 ? gemm_tiles<T, I, 1, S::nv>(std::make_integer_sequence<int, S::mr>()) : tiles;
  for (int64_t jc = n0; jc < n1; jc += plan.nc) {
    const int64_t nb = plan.nc < n1 - jc ? plan.nc : n1 - jc;
    for (int64_t pc = 0; pc < K; pc += plan.kc) {
      const int64_t kb = plan.kc < K - pc ? plan.kc : K - pc;
      conv_pack_b<T, I>(s, q.x, pc, kb, jc, nb, P, bbuf, row);
      // Weights packed ahead are read where they lie, not from an L2-sized block: when the
      // patches' block fits half of L2 (few output positions: ResNet's last stage has 49),
      // each weight panel is read once and passed over every column panel, instead of every
      // column panel streaming all the weights again from memory.
      const bool stream_a = q.packed != nullptr && kb * nb * int64_t(sizeof(T)) <= gemm_caches().l2 / 2;
      for (int64_t ic = m0; ic < m1; ic += plan.mc) {
        const int64_t mb = plan.mc < m1 - ic ? plan.mc : m1 - ic;
        if (q.packed == nullptr) gemm_pack_a_fast<T, I>(q.w + ic * K + pc, K, 1, mb, kb, plan.mr, abuf);
        auto tile = [&](int64_t ir, int64_t jr) {
          const int m = static_cast<int>(plan.mr < mb - ir ? plan.mr : mb - ir);
          const int n = static_cast<int>(P < nb - jr ? P : nb - jr);
          const T* a = q.packed != nullptr ? q.packed + pc * mp + (ic + ir) * kb : abuf + ir * kb;
          T* ct = q.out + (ic + ir) * N + jc + jr;
          (n <= I::width ? narrow : tiles)[m - 1](kb, a, plan.mr, bbuf + jr * kb, P, P * kb, ct, N, n, pc > 0);
          if (pc + kb == K) conv_finish(q, ic + ir, ic + ir + m, jc + jr, jc + jr + n, ct, N, ep);
        };
        if (stream_a) {
          for (int64_t ir = 0; ir < mb; ir += plan.mr)
            for (int64_t jr = 0; jr < nb; jr += P) tile(ir, jr);
        } else {
          for (int64_t jr = 0; jr < nb; jr += P)
            for (int64_t ir = 0; ir < mb; ir += plan.mr) tile(ir, jr);
        }
      }
    }
  }
}

// The plan of one image and group's product: gemm_plan's, with the tile height of the packed
// weights when they are packed ahead (their panels are GemmTile::mr rows).
template <typename T, typename I> inline GemmPlan conv_plan(const ConvShape& s, bool packed) {
  GemmPlan p = gemm_plan<T, I>(s.cout_g(), s.spatial(), s.k());
  if (packed) {
    p.mr = GemmShape<T, I>::mr;
    p.mc = (p.mc + p.mr - 1) / p.mr * p.mr;
  }
  p.direct_b = false;
  return p;
}

// Thread t of `threads` computes its block of the tile grid (gemm_grid), with its own buffers
// (or small blocks packed on the stack when they cannot be allocated: the same results).
template <typename T, typename I, typename E>
inline void conv_thread(const GemmPlan& plan, const ConvProblem<T>& q, int t, int threads, const E& ep) {
  using S = GemmShape<T, I>;
  const GemmThreadBlock tb = gemm_thread_block(q.s->cout_g(), q.s->spatial(), plan.mr, plan.nr, t, threads);
  const int64_t m0 = tb.m0, m1 = tb.m1, n0 = tb.n0, n1 = tb.n1;
  if (m0 >= m1 || n0 >= n1) return;
  const std::size_t abytes = sizeof(T) * static_cast<std::size_t>((plan.mc + plan.mr - 1) / plan.mr * plan.mr * plan.kc);
  // B's panels, then one row of patches (nc elements) gathered before it is dealt out.
  const std::size_t bbytes = sizeof(T) * static_cast<std::size_t>((plan.nc + plan.nr) * plan.kc + plan.nc);
  T* abuf = static_cast<T*>(gemm_buffer(0).get(abytes));
  T* bbuf = static_cast<T*>(gemm_buffer(1).get(bbytes));
  if (abuf != nullptr && bbuf != nullptr)
    return conv_block<T, I>(plan, q, m0, m1, n0, n1, ep, abuf, bbuf, bbuf + (plan.nc + plan.nr) * plan.kc);
  alignas(64) T a_small[S::mr * 64];
  alignas(64) T b_small[S::nr_short * 64];
  alignas(64) T row_small[S::nr_short];
  GemmPlan small = plan;
  small.kc = 64, small.mc = plan.mr, small.nc = plan.nr;
  ConvProblem<T> unpacked = q;  // weights packed ahead are blocked by plan.kc: pack them per block
  unpacked.packed = nullptr;
  conv_block<T, I>(small, unpacked, m0, m1, n0, n1, ep, a_small, b_small, row_small);
}

// ---- direct loops (depthwise and other small groups) ----

// The input channels of one group, zero-padded and split by column phase so that every tap of
// every output position is an unmasked, contiguous vector load: element (r, t) of phase q of
// channel ci is the padded input's (r, t * sw + q), the padded input being x shifted by (ph, pw)
// with zeros around it. Tap (ki, kj) of output (oh, ow) is then element (oh * sh + ki * dh,
// ow + kj * dw / sw) of phase kj * dw % sw. Rows are `width` long: the output row rounded up to
// whole vectors plus the taps' reach, so the last vector's loads stay inside with zeros.
struct ConvPadded {
  int64_t rows, width, phases;
  ConvPadded(const ConvShape& s, int64_t lanes)
      : rows((s.oh - 1) * s.sh + (s.kh - 1) * s.dh + 1),
        width(((s.ow + lanes - 1) / lanes * lanes + (s.kw - 1) * s.dw / s.sw + lanes) / lanes * lanes),
        phases(s.sw) {}
  int64_t plane() const { return rows * width * phases; }
};

// For each phase q, the columns t whose padded column t * sw + q, input column t * sw + q - pw,
// is inside: [bounds[2q], bounds[2q + 1]) (computed once per call, not per plane).
inline void conv_pad_bounds(const ConvShape& s, const ConvPadded& pd, int64_t* bounds) {
  for (int64_t q = 0; q < pd.phases; ++q) conv_inside(q - s.pw, s.sw, pd.width, s.w, bounds[2 * q], bounds[2 * q + 1]);
}

// Channel `plane_in` of the image (its [h, w] plane) into padded phases at dst, whose padding
// (everything outside the input) is already zero: only the input's own elements are written,
// so the padding, zeroed once per call, stays zero from plane to plane.
template <typename T, typename I>
inline void conv_pad_plane(const ConvShape& s, const ConvPadded& pd, const int64_t* bounds, const T* plane_in, T* dst) {
  const int64_t r0 = s.ph, r1 = s.ph + s.h < pd.rows ? s.ph + s.h : pd.rows;
  for (int64_t q = 0; q < pd.phases; ++q) {
    const int64_t lo = bounds[2 * q], hi = bounds[2 * q + 1];
    if (lo >= hi) continue;
    conv_copy_rows<T, I>(plane_in + (r0 - s.ph) * s.w + lo * s.sw + q - s.pw, s.w, s.sw, hi - lo, r1 - r0,
                         dst + (q * pd.rows + r0) * pd.width + lo, pd.width);
  }
}

// R output rows from oh of output channel oc (the group's padded channels at `padded`), vector
// `v0` of each row: the sum over the group's input channels and their taps in increasing (ci,
// kh, kw) order (the GEMM's k), one fma each, then the bias; R independent chains.
// `taps` holds, for each k = (ci, kh, kw) of the group, where its first load lies in `padded`
// for output (0, 0) (conv_tap_offsets).
// K: s.k(), passed down (a division each time it is computed).
template <typename T, typename I, int R>
inline void conv_direct_rows(const ConvShape& s, const ConvPadded& pd, int64_t K, const T* padded, const int64_t* taps,
                             const T* w, const T* bias, int64_t oc, int64_t oh, T* o) {
  using V = Vec<T, I>;
  const int64_t N = s.ow, row_step = s.sh * pd.width;
  const T* wk = w + oc * K;
  const T* base = padded + oh * row_step;
  for (int64_t v0 = 0; v0 < N; v0 += V::size) {
    V acc[R];
    for (int r = 0; r < R; ++r) acc[r] = V(T(0));
    for (int64_t k = 0; k < K; ++k) {
      const T* at = base + taps[k] + v0;
      const V wv(wk[k]);
      for (int r = 0; r < R; ++r) acc[r] = fma(wv, V::loadu(at + r * row_step), acc[r]);
    }
    const int rest = static_cast<int>(N - v0 < V::size ? N - v0 : V::size);
    for (int r = 0; r < R; ++r) {
      // Without a bias the sum stays as it is (x + 0 would turn -0 into +0).
      const V y = bias != nullptr ? acc[r] + V(*bias) : acc[r];
      if (rest == V::size) y.storeu(o + (oh + r) * N + v0);
      else y.storeu(o + (oh + r) * N + v0, rest);
    }
  }
}

// Output channel oc of one image from its group's padded input channels, four rows at a time.
template <typename T, typename I>
inline void conv_direct_plane(const ConvShape& s, const ConvPadded& pd, int64_t K, const T* padded,
                              const int64_t* taps, const T* w, const T* bias, int64_t oc, T* o) {
  const T* b = bias != nullptr ? bias + oc : nullptr;
  int64_t oh = 0;
  for (; oh + 4 <= s.oh; oh += 4) conv_direct_rows<T, I, 4>(s, pd, K, padded, taps, w, b, oc, oh, o);
  switch (s.oh - oh) {  // the last rows at once, as independent chains
    case 1: return conv_direct_rows<T, I, 1>(s, pd, K, padded, taps, w, b, oc, oh, o);
    case 2: return conv_direct_rows<T, I, 2>(s, pd, K, padded, taps, w, b, oc, oh, o);
    case 3: return conv_direct_rows<T, I, 3>(s, pd, K, padded, taps, w, b, oc, oh, o);
    default: return;
  }
}

// Where tap k = (ci, ki, kj) of output (0, 0) lies among the padded channels of a group.
inline void conv_tap_offsets(const ConvShape& s, const ConvPadded& pd, int64_t* taps) {
  for (int64_t ki = 0; ki < s.kh; ++ki)
    for (int64_t kj = 0; kj < s.kw; ++kj)
      taps[ki * s.kw + kj] = (kj * s.dw % s.sw * pd.rows + ki * s.dh) * pd.width + kj * s.dw / s.sw;
  conv_offsets_by_channel(taps, s.kh * s.kw, s.cin_g(), pd.plane());
}

// The same without the padded copy (when its buffer cannot be allocated): each output row the
// sum of the group's shifted input rows scaled by one weight each, in the same order.
template <typename T, typename I>
inline void conv_direct_plane_unpadded(const ConvShape& s, const T* x, const T* w, const T* bias, int64_t oc, T* o) {
  for (int64_t oh = 0; oh < s.oh; ++oh) {
    T* orow = o + oh * s.ow;
    for (int64_t ow = 0; ow < s.ow; ++ow) orow[ow] = T(0);
    for (int64_t ci = 0; ci < s.cin_g(); ++ci) {
      const T* plane = x + (oc / s.cout_g() * s.cin_g() + ci) * s.h * s.w;
      const T* wk = w + (oc * s.cin_g() + ci) * s.kh * s.kw;
      for (int64_t ki = 0; ki < s.kh; ++ki) {
        const int64_t ih = oh * s.sh - s.ph + ki * s.dh;
        if (ih < 0 || ih >= s.h) continue;
        for (int64_t kj = 0; kj < s.kw; ++kj) {
          int64_t lo = 0, hi = 0;
          conv_inside(kj * s.dw - s.pw, s.sw, s.ow, s.w, lo, hi);
          const T* src = plane + ih * s.w + kj * s.dw - s.pw;
          for (int64_t t = lo; t < hi; ++t) orow[t] += wk[ki * s.kw + kj] * src[t * s.sw];
        }
      }
    }
    if (bias != nullptr)
      for (int64_t ow = 0; ow < s.ow; ++ow) orow[ow] += bias[oc];
  }
}

// Units (image-and-group pairs) [u0, u1) of the direct loops on the calling thread: each one's
// input channels copied into the thread's padded buffer (`padded`, its padding zero; null when it
// could not be allocated: the unpadded loops), then each of its output channels' planes, the
// epilogue on each plane as it is finished. `taps`: conv_tap_offsets, then conv_pad_bounds.
template <typename T, typename I, typename E>
inline void conv_direct_units(const ConvShape& s, const ConvPadded& pd, const T* x, const T* w, const T* bias, T* out,
                              const E& ep, T* padded, const int64_t* taps, int64_t u0, int64_t u1) {
  const int64_t N = s.spatial(), K = s.k(), cin_g = s.cin_g(), cout_g = s.cout_g(), in_plane = s.h * s.w;
  int64_t image = u0 / s.groups, g = u0 % s.groups;
  for (int64_t u = u0; u < u1; ++u) {
    const T* xg = x + (image * s.c + g * cin_g) * in_plane;
    if (padded != nullptr)
      for (int64_t ci = 0; ci < cin_g; ++ci)
        conv_pad_plane<T, I>(s, pd, taps + K, xg + ci * in_plane, padded + ci * pd.plane());
    for (int64_t oc = g * cout_g; oc < (g + 1) * cout_g; ++oc) {
      T* o = out + (image * s.cout + oc) * N;
      if (padded != nullptr) conv_direct_plane<T, I>(s, pd, K, padded, taps, w, bias, oc, o);
      else conv_direct_plane_unpadded<T, I>(s, x + image * s.c * in_plane, w, bias, oc, o);
      ep(image, oc, oc + 1, int64_t(0), N, o, N);
    }
    if (++g == s.groups) g = 0, ++image;
  }
}

// The threads of direct loops over `units` (image-and-group pairs, blocks of channels) of `macs`
// multiply-adds in all: every one when there are two units and at least 2^16 multiply-adds (a
// plane of 56 x 56 with a 3 x 3 kernel is 2^15), else one.
inline int conv_direct_threads(int64_t units, int64_t macs) {
#ifdef _OPENMP
  return units > 1 && macs >= (int64_t(1) << 16) ? omp_get_max_threads() : 1;
#else
  (void)units, (void)macs;
  return 1;
#endif
}

// ---- depthwise on small planes: the channels in the lanes ----
// With positions in the lanes a depthwise plane of 7 x 7 fills 7 of 16 lanes per row and pays a
// padded copy, the chains of its few rows and its epilogue per channel: in MobileNet-V2, one
// thread, 64-70 us for 960 channels on 7 x 7 where ONNX Runtime's blocked layout takes 26 (now
// 34). The channels are independent (Proposition 8.1 (1)), so a block of V::size of them is
// computed with a channel in each lane instead: its input transposed tile by tile (§8.2) into
// a zero-padded [rows][cols][lanes] copy, where every tap of every output position, whatever the
// stride and dilation, is one whole vector; the outputs, [positions][lanes], transposed back into
// the block's planes. Per tap the sums are those of the direct loops (one fma per tap in
// increasing (kh, kw) from 0 on the zero-padded input, then the bias): the bits are the same.

// transpose_tile whose ragged edges are whole blocks overlapping the last full ones (their
// elements written twice, the same), when rows and cols are at least a block: the edges of a 14
// or 28 wide row, element by element, took as long as the rest.
template <typename I, typename T>
inline void conv_transpose_overlapped(const T* src, int64_t src_stride, int64_t rows, int64_t cols, T* dst,
                                      int64_t dst_stride) {
  using Block = TransposeBlock<T, I>;
  constexpr int64_t b = Block::size;
  if (rows < b || cols < b) return transpose_tile<I>(src, src_stride, rows, cols, dst, dst_stride);
  for (int64_t r = 0; r < rows; r += b) {
    const int64_t r0 = r < rows - b ? r : rows - b;
    for (int64_t c = 0; c < cols; c += b) {
      const int64_t c0 = c < cols - b ? c : cols - b;
      Block::run(src + r0 * src_stride + c0, src_stride, dst + c0 * dst_stride + r0, dst_stride);
    }
  }
}

// The buffers of one thread for conv_lanes, in elements, each a multiple of the lanes: the padded
// input [rows][cols][lanes], a whole-plane staging [h * w][lanes] for rows narrower than a
// transpose block, the outputs [oh * ow][lanes], the weights [kh * kw][lanes] and the bias.
struct ConvLanes {
  int64_t rows, cols, padded, staged, outputs, weights, bias;
  template <typename T, typename I>
  static ConvLanes of(const ConvShape& s) {
    constexpr int64_t L = Vec<T, I>::size;
    ConvLanes b{};
    b.rows = (s.oh - 1) * s.sh + (s.kh - 1) * s.dh + 1;
    b.cols = (s.ow - 1) * s.sw + (s.kw - 1) * s.dw + 1;
    b.padded = b.rows * b.cols * L;
    b.staged = s.w < TransposeBlock<T, I>::size ? s.h * s.w * L : 0;
    b.outputs = s.spatial() * L;
    b.weights = s.kh * s.kw * L;
    b.bias = L;
    return b;
  }
  int64_t total() const { return padded + staged + outputs + weights + bias; }
};

// Positions [ow0, ow0 + R) of output row oh for the block's lanes: R independent chains.
template <typename T, typename I, int R>
inline void conv_lanes_positions(const ConvShape& s, int64_t cols, const T* padded, const T* wl, const T* bl,
                                 int64_t oh, int64_t ow0, T* outputs) {
  using V = Vec<T, I>;
  constexpr int64_t L = V::size;
  V acc[R];
  for (int r = 0; r < R; ++r) acc[r] = V(T(0));
  for (int64_t ki = 0; ki < s.kh; ++ki) {
    const T* row = padded + ((oh * s.sh + ki * s.dh) * cols + ow0 * s.sw) * L;
    for (int64_t kj = 0; kj < s.kw; ++kj) {
      const V wv = V::loadu(wl + (ki * s.kw + kj) * L);
      const T* at = row + kj * s.dw * L;
      for (int r = 0; r < R; ++r) acc[r] = fma(wv, V::loadu(at + r * s.sw * L), acc[r]);
    }
  }
  T* o = outputs + (oh * s.ow + ow0) * L;
  if (bl != nullptr) {  // without a bias the sum stays as it is (x + 0 would turn -0 into +0)
    const V b = V::loadu(bl);
    for (int r = 0; r < R; ++r) (acc[r] + b).storeu(o + r * L);
  } else {
    for (int r = 0; r < R; ++r) acc[r].storeu(o + r * L);
  }
}

// Output row oh in pieces of at most 8 positions, as even as can be (14 = 7 + 7: a piece of one
// position is a chain of K fmas, each waiting for the last).
template <typename T, typename I>
inline void conv_lanes_row(const ConvShape& s, int64_t cols, const T* padded, const T* wl, const T* bl, int64_t oh,
                           T* outputs) {
  const int64_t pieces = (s.ow + 7) / 8;
  for (int64_t p = 0; p < pieces; ++p) {
    const int64_t a = s.ow * p / pieces, n = s.ow * (p + 1) / pieces - a;
    switch (n) {
      case 8: conv_lanes_positions<T, I, 8>(s, cols, padded, wl, bl, oh, a, outputs); break;
      case 7: conv_lanes_positions<T, I, 7>(s, cols, padded, wl, bl, oh, a, outputs); break;
      case 6: conv_lanes_positions<T, I, 6>(s, cols, padded, wl, bl, oh, a, outputs); break;
      case 5: conv_lanes_positions<T, I, 5>(s, cols, padded, wl, bl, oh, a, outputs); break;
      case 4: conv_lanes_positions<T, I, 4>(s, cols, padded, wl, bl, oh, a, outputs); break;
      case 3: conv_lanes_positions<T, I, 3>(s, cols, padded, wl, bl, oh, a, outputs); break;
      case 2: conv_lanes_positions<T, I, 2>(s, cols, padded, wl, bl, oh, a, outputs); break;
      default: conv_lanes_positions<T, I, 1>(s, cols, padded, wl, bl, oh, a, outputs); break;
    }
  }
}

// Channels [c0, c0 + nc) of the image at x into the padded buffer's lanes (its padding, zeroed
// once per call, stays zero: only the input's own positions are written).
template <typename T, typename I>
inline void conv_lanes_stage(const ConvShape& s, const ConvLanes& b, const T* x, int64_t nc, T* buf) {
  constexpr int64_t L = Vec<T, I>::size;
  const int64_t plane = s.h * s.w, r1 = s.h < b.rows - s.ph ? s.h : b.rows - s.ph;
  int64_t lo = 0, hi = 0;
  conv_inside(-s.pw, 1, b.cols, s.w, lo, hi);  // the padded columns t with 0 <= t - pw < w
  T* padded = buf;
  if (b.staged == 0) {  // row by row, straight into place
    for (int64_t ih = 0; ih < r1; ++ih)
      conv_transpose_overlapped<I>(x + ih * s.w + lo - s.pw, plane, nc, hi - lo, padded + ((ih + s.ph) * b.cols + lo) * L, L);
    return;
  }
  T* staged = buf + b.padded;  // narrow rows: the whole plane at once, then each row's positions
  conv_transpose_overlapped<I>(x, plane, nc, plane, staged, L);
  for (int64_t ih = 0; ih < r1; ++ih)
    gemm_copy_row<T, I>(staged + (ih * s.w + lo - s.pw) * L, (hi - lo) * L, padded + ((ih + s.ph) * b.cols + lo) * L,
                        (hi - lo) * L);
}

// One block of channels [c0, c0 + nc) of one image, its epilogue on the finished planes.
template <typename T, typename I, typename E>
inline void conv_lanes_block(const ConvShape& s, const ConvLanes& b, const T* x, const T* w, const T* bias, T* out,
                             const E& ep, T* buf, int64_t image, int64_t c0, int64_t nc) {
  constexpr int64_t L = Vec<T, I>::size;
  const int64_t K = s.kh * s.kw, N = s.spatial();
  T* outputs = buf + b.padded + b.staged;
  T* wl = outputs + b.outputs;
  T* bl = wl + b.weights;
  if (nc < L) conv_zero(wl, K * L);  // the lanes past the last channel
  conv_transpose_overlapped<I>(w + c0 * K, K, nc, K, wl, L);  // (element by element: 5-7% of a 7 x 7 layer)
  if (bias != nullptr)
    for (int64_t l = 0; l < L; ++l) bl[l] = l < nc ? bias[c0 + l] : T(0);
  conv_lanes_stage<T, I>(s, b, x + (image * s.c + c0) * s.h * s.w, nc, buf);
  for (int64_t oh = 0; oh < s.oh; ++oh) conv_lanes_row<T, I>(s, b.cols, buf, wl, bias != nullptr ? bl : nullptr, oh, outputs);
  T* o = out + (image * s.cout + c0) * N;
  conv_transpose_overlapped<I>(outputs, L, N, nc, o, N);
  ep(image, c0, c0 + nc, int64_t(0), N, o, N);
}

// A depthwise convolution whose output rows are narrow (conv_lanes_pays) by blocks of V::size
// channels, dealt out to the threads as conv_direct deals its planes. A thread whose buffer
// cannot be allocated computes its blocks' planes with the unpadded direct loops
// (conv_direct_units without a padded buffer).
template <typename T, typename I, typename E>
inline void conv_lanes(const ConvShape& s, const T* x, const T* w, const T* bias, T* out, const E& ep) {
  constexpr int64_t L = Vec<T, I>::size;
  const ConvLanes b = ConvLanes::of<T, I>(s);
  const int64_t blocks = (s.c + L - 1) / L, units = s.n * blocks;
  const int threads = conv_direct_threads(units, s.n * s.cout * s.spatial() * s.kh * s.kw);
  const int64_t chunks = units < 4 * threads ? units : 4 * threads;
  GemmChunks runs(chunks, threads);
#pragma omp parallel if (threads > 1)
  {
    const int t = gemm_team().t;
    T* buf = nullptr;
    bool prepared = false;
    for (int64_t c; (c = runs.take(t)) >= 0;)
      for (int64_t u = units * c / chunks; u < units * (c + 1) / chunks; ++u) {
        if (!prepared) {  // the thread's first block: its buffer, the padding zeroed once per call
          prepared = true;
          buf = static_cast<T*>(gemm_buffer(1).get(sizeof(T) * static_cast<std::size_t>(b.total())));
          if (buf != nullptr) conv_zero(buf, b.padded);
        }
        const int64_t image = u / blocks, c0 = u % blocks * L, nc = s.c - c0 < L ? s.c - c0 : L;
        if (buf != nullptr) conv_lanes_block<T, I>(s, b, x, w, bias, out, ep, buf, image, c0, nc);
        else  // the block's (image, group) units, one channel each, unpadded
          conv_direct_units<T, I>(s, ConvPadded(s, L), x, w, bias, out, ep, nullptr, nullptr, image * s.groups + c0,
                                  image * s.groups + c0 + nc);
      }
  }
}

// Depthwise (one input and one output channel per group) with output rows under 32 wide:
// MobileNet-V2's layers on 28 x 28 and smaller took 0.3-0.85x the time of conv_direct's (the
// 56 x 56 ones the same, those on 112 x 112 1.2-1.6x).
inline bool conv_lanes_pays(const ConvShape& s) { return s.cin_g() == 1 && s.cout_g() == 1 && s.ow < 32; }

// Every (image, group) through the direct loops, dealt out to the threads in runs of consecutive
// units, four runs per thread (GemmChunks), each thread's padded buffer zeroed once per call
// before its first run. Nothing per plane divides: the shape's derived sizes (K, Cin/g,
// Cout/g), the padded rows' bounds and the (image, group) of each unit, computed per plane, took
// 8-14% of MobileNet-V2's depthwise layers (7 x 7 to 56 x 56 planes, a few hundred cycles each).
template <typename T, typename I, typename E>
inline void conv_direct(const ConvShape& s, const T* x, const T* w, const T* bias, T* out, const E& ep) {
  const ConvPadded pd(s, Vec<T, I>::size);
  const int64_t units = s.n * s.groups, K = s.k();
  const int threads = conv_direct_threads(units, s.n * s.cout * s.spatial() * K);
  const int64_t chunks = units < 4 * threads ? units : 4 * threads;
  GemmChunks runs(chunks, threads);
#pragma omp parallel if (threads > 1)
  {
    const int t = gemm_team().t;
    T* padded = nullptr;
    int64_t* taps = nullptr;
    bool prepared = false;
    for (int64_t c; (c = runs.take(t)) >= 0;) {
      if (!prepared) {  // the thread's first run
        prepared = true;
        const std::size_t elements = static_cast<std::size_t>(s.cin_g() * pd.plane());
        // The tap offsets (K), then the phases' bounds (2 sw).
        taps = static_cast<int64_t*>(gemm_buffer(0).get(sizeof(int64_t) * static_cast<std::size_t>(K + 2 * pd.phases)));
        padded = taps != nullptr ? static_cast<T*>(gemm_buffer(1).get(sizeof(T) * elements)) : nullptr;
        if (padded != nullptr) {
          conv_zero(padded, static_cast<int64_t>(elements));
          conv_tap_offsets(s, pd, taps);
          conv_pad_bounds(s, pd, taps + K);
        }
      }
      conv_direct_units<T, I>(s, pd, x, w, bias, out, ep, padded, taps, units * c / chunks, units * (c + 1) / chunks);
    }
  }
}

// ---- few positions: the product transposed (stax_conv_shift.h, conv_swap_run) ----

template <typename T, typename I, typename E>
inline bool conv_swap_run(const ConvShape& s, const T* x, const T* packed, const T* bias, T* out, const E& ep);
template <typename T, typename I, typename E>
inline bool conv_wino_run(const ConvShape& s, const T* x, const T* U, const T* bias, T* out, const E& ep);

// ---- the entry ----

// One call's operands, and its (image, group) products as ConvProblems.
template <typename T> struct ConvCall {
  const ConvShape* s;
  const T *x, *w, *packed, *bias;  // packed: from conv_pack_weights, or null
  T* out;
  int64_t per_group;  // elements of the packed weights per group
  ConvProblem<T> unit(int64_t u) const {
    const int64_t image = u / s->groups, g = u % s->groups, M = s->cout_g(), N = s->spatial();
    return ConvProblem<T>{s,
                          x + (image * s->c + g * s->cin_g()) * s->h * s->w,
                          w + g * M * s->k(),
                          packed != nullptr ? packed + g * per_group : nullptr,
                          bias != nullptr ? bias + g * M : nullptr,
                          out + (image * s->cout + g * M) * N,
                          g * M,
                          image};
  }
};

template <typename T, typename I, typename E>
inline bool conv_shift_run(const ConvCall<T>& call, const GemmPlan& plan, int outer, int inner, const E& ep);
template <typename T, typename I> inline bool conv_shift_pays(const ConvShape& s);

// out = conv(x, w) + bias on instruction set I: x [n, c, h, w], w [cout, c / groups, kh, kw]
// (`packed`: the same weights from conv_pack_weights<T, I>, or null to pack them per call), bias
// [cout] or null, out [n, cout, oh, ow], all dense; `ep` as ConvNoEpilogue describes. Direct
// loops (s.direct) spread the planes over the threads. A convolution whose positions would leave
// lanes empty, with its weights packed ahead, is computed transposed (conv_swap_pays). A 3 x 3
// kernel of stride 1 whose weights are packed ahead goes by F(2 x 2, 3 x 3) where that pays
// (conv_wino_pays; `wino` false, with the weights packed for the GEMM, keeps the GEMM's paths:
// the benchmarks and checks compare the two). Else the GEMM reads
// the patches in place (a pointwise convolution's input as it lies, a kernel of several taps
// from a shifted copy of the input: stax_conv_shift.h) where that pays (conv_shift_pays; `shift`
// < 0), or when `shift` > 0 forces it; else it packs them block by block (shift == 0 forces
// that). It runs over images and groups when there are enough of them (dealt out one at a time:
// GemmChunks' reason), else every thread on each product (its tiles split by rows and
// columns).
template <typename T, typename I, typename E = ConvNoEpilogue>
inline void conv_run(const ConvShape& s, const T* x, const T* w, const T* packed, const T* bias, T* out,
                     const E& ep = E(), int shift = -1, bool wino = true) {
  if (s.direct) {
    if (conv_lanes_pays(s)) return conv_lanes<T, I>(s, x, w, bias, out, ep);
    return conv_direct<T, I>(s, x, w, bias, out, ep);
  }
  if (packed != nullptr && wino && conv_wino_pays<T, I>(s)) {
    if (conv_wino_run<T, I>(s, x, packed, bias, out, ep)) return;
    packed = nullptr;  // (transformed for F(2 x 2, 3 x 3): the weights are packed per call below)
  }
  if (packed != nullptr && conv_swap_pays<T, I>(s)) {
    if (conv_swap_run<T, I>(s, x, packed, bias, out, ep)) return;
    packed = nullptr;  // (packed for the transposed product: the weights are packed per call below)
  }
  const int64_t M = s.cout_g(), N = s.spatial(), K = s.k(), units = s.n * s.groups;
  const GemmPlan plan = conv_plan<T, I>(s, packed != nullptr);
  const ConvCall<T> call{&s, x, w, packed, bias, out, packed != nullptr ? gemm_packed_a_size(M, K, plan.mr) : 0};
  const int inner = gemm_threads(M, N, K, gemm_tile_count(plan, M, N));
  const int outer = gemm_threads(units * M, N, K, units);
  const bool shifted = shift > 0 || (shift < 0 && conv_shift_pays<T, I>(s));
  if (shifted && (s.kh * s.kw > 1 || s.pointwise()) && conv_shift_run<T, I>(call, plan, outer, inner, ep)) return;
  if (outer > 1 && outer >= inner) {
#pragma omp parallel for schedule(dynamic) num_threads(outer)
    for (int64_t u = 0; u < units; ++u) conv_thread<T, I>(plan, call.unit(u), 0, 1, ep);
    return;
  }
  for (int64_t u = 0; u < units; ++u) {
    const ConvProblem<T> q = call.unit(u);
#pragma omp parallel num_threads(inner) if (inner > 1)
    {
      const GemmTeam team = gemm_team();
      const int t = team.t, threads = team.threads;
      conv_thread<T, I>(plan, q, t, threads, ep);
    }
  }
}

// What generated code calls: conv_run on the widest instruction set the compiler targets (or the
// one the translation unit pins).
template <typename T, typename E = ConvNoEpilogue>
inline void conv(const ConvShape& s, const T* x, const T* w, const T* packed, const T* bias, T* out,
                 const E& ep = E()) {
  if constexpr (std::is_same_v<E, ConvNoEpilogue>) conv_run<T, IsaNative>(s, x, w, packed, bias, out, ep);
  else conv_run<T, IsaNative>(s, x, w, packed, bias, out, EpilogueRef<T, 1>(ep));
}

// conv_pack_weights on that instruction set.
template <typename T> inline const T* conv_pack_weights_native(const ConvShape& s, const T* w) {
  return conv_pack_weights<T, IsaNative>(s, w);
}

}  // namespace stax_rt
}  // namespace
#endif  // STAX_RT_CONV
// @end-sections
#include "stax_conv_shift.h"  // (not emitted) conv_run's shifted path, which generated code gets by its section
#include "stax_conv_wino.h"   // (not emitted) its F(2 x 2, 3 x 3) path, likewise
