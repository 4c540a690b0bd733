// Convolutions of generated code (conv1d, conv2d; NCHW, PyTorch 2.x semantics: stride, padding,
// dilation, groups, bias), float32 and float64 (design.md, "CPU code": the GEMM's micro-kernels
// without an im2col buffer; depthwise and other small-group convolutions as direct vector
// loops). Same section rules as stax_prelude.h.
//
// Per image and group, the output is a matrix: out[Cout/g, OH*OW] (NCHW is exactly that,
// row-major) = W[Cout/g, K] x patches[K, OH*OW] with K = Cin/g * KH * KW, row k = (ci, kh, kw)
// of the patches holding x[ci, oh * sh - ph + kh * dh, ow * sw - pw + kw * dw] (0 outside the
// input) at column oh * OW + ow. The patches are never stored whole: each KC x NC block of them
// is packed straight from the input into the panels the micro-kernels read (conv_pack_b), and a
// 1x1 convolution of stride 1 without padding packs the input itself, which is that matrix.
// Summation order: that of the GEMM (stax_gemm_kernel.h), one fma per k in increasing k, the
// bias added to the finished sum; the bits do not depend on the thread count. A grouped
// convolution with few channels per group (depthwise: one) is no product worth packing (K =
// Cin/g * KH * KW, M = Cout/g are small): with `direct` set (the kernel plan's choice) its
// output rows are sums of Cin/g * KH * KW shifted input rows scaled by one weight each, in
// vector loops.
// A conv1d is a conv2d with H = KH = 1.
#include "stax_gemm.h"  // (not emitted) the sections these require, so this header compiles alone

// @section conv requires gemm
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

// dst[0:n] = src[t * step] for t < n.
template <typename T, typename I> inline void conv_copy(const T* src, int64_t step, int64_t n, T* dst, int64_t width) {
  if (step == 1) return gemm_copy_row<T, I>(src, n, dst, width);
  for (int64_t t = 0; t < n; ++t) dst[t] = src[t * step];
  for (int64_t t = n; t < width; ++t) dst[t] = T(0);
}

// Positions t in [0, n) with 0 <= first + t * step < size: [lo, hi) (empty when lo >= hi).
inline void conv_inside(int64_t first, int64_t step, int64_t n, int64_t size, int64_t& lo, int64_t& hi) {
  lo = first >= 0 ? 0 : (-first + step - 1) / step;
  hi = first > size - 1 ? 0 : (size - 1 - first) / step + 1;
  if (hi > n) hi = n;
  if (lo > hi) lo = hi;
}

// Row k of the patches over columns [j0, j0 + nb) into the panels of P columns at `out` (the
// layout of gemm_pack_b for a block of kb rows: column j at (j - j0) / P * P * kb + row * P).
template <typename T, typename I>
inline void conv_pack_row(const ConvShape& s, const T* x, int64_t k, int64_t j0, int64_t nb, int64_t P, int64_t kb,
                          T* out) {
  const int64_t taps = s.kh * s.kw, ci = k / taps, ki = k % taps / s.kw, kj = k % s.kw;
  const T* plane = x + ci * s.h * s.w;
  int64_t oh = j0 / s.ow, ow = j0 % s.ow;
  for (int64_t d = 0; d < nb;) {
    // One segment: one output row, one panel.
    const int64_t in_panel = P - d % P, in_row = s.ow - ow, left = nb - d;
    const int64_t len = in_panel < in_row ? (in_panel < left ? in_panel : left) : (in_row < left ? in_row : left);
    T* dst = out + d / P * P * kb + d % P;
    const int64_t ih = oh * s.sh - s.ph + ki * s.dh, iw = ow * s.sw - s.pw + kj * s.dw;
    int64_t lo = 0, hi = 0;
    if (ih >= 0 && ih < s.h) conv_inside(iw, s.sw, len, s.w, lo, hi);
    for (int64_t t = 0; t < lo; ++t) dst[t] = T(0);
    if (hi > lo) conv_copy<T, I>(plane + ih * s.w + iw + lo * s.sw, s.sw, hi - lo, dst + lo, len - lo);
    else for (int64_t t = lo; t < len; ++t) dst[t] = T(0);
    d += len;
    ow += len;
    if (ow == s.ow) ow = 0, ++oh;
  }
  const int64_t tail = nb % P;  // the last panel's columns beyond the block
  if (tail != 0)
    for (int64_t t = tail; t < P; ++t) out[(nb - 1) / P * P * kb + t] = T(0);
}

// Rows [k0, k0 + kb) x columns [j0, j0 + nb) of the patches of image-and-group input x (its
// first channel at x) in panels of P columns (gemm_pack_b's layout for that block).
template <typename T, typename I>
inline void conv_pack_b(const ConvShape& s, const T* x, int64_t k0, int64_t kb, int64_t j0, int64_t nb, int64_t P,
                        T* out) {
  if (s.pointwise()) return gemm_pack_b_fast<T, I>(x + k0 * s.h * s.w + j0, s.h * s.w, 1, kb, nb, P, out);
  for (int64_t k = 0; k < kb; ++k) conv_pack_row<T, I>(s, x, k0 + k, j0, nb, P, kb, out + k * P);
}

// ---- the weights: A packed ahead ----

// Elements of the weights packed for the GEMM on I: each group's [cout_g, K] matrix in panels of
// GemmTile<T, I>::mr rows (gemm_pack_a's layout), one group after the other.
template <typename T, typename I> inline int64_t conv_packed_weights_size(const ConvShape& s) {
  return s.groups * gemm_packed_a_size(s.cout_g(), s.k(), GemmTile<T, I>::mr);
}

// The weights packed once for the life of the process (generated code calls it for a constant
// weight, whose packing would otherwise be repeated on every call); null for direct loops,
// which read the weights as they are, or when memory runs out (the weights are then packed per
// call).
template <typename T, typename I> inline const T* conv_pack_weights(const ConvShape& s, const T* w) {
  if (s.direct) return nullptr;
  const int64_t size = conv_packed_weights_size<T, I>(s), mr = GemmTile<T, I>::mr;
  T* out = static_cast<T*>(::operator new(sizeof(T) * static_cast<std::size_t>(size), std::align_val_t(64), std::nothrow));
  if (out == nullptr) return nullptr;
  const int64_t per_group = gemm_packed_a_size(s.cout_g(), s.k(), mr);
  for (int64_t g = 0; g < s.groups; ++g)
    gemm_pack_a_fast<T, I>(w + g * s.cout_g() * s.k(), s.k(), 1, s.cout_g(), s.k(), mr, out + g * per_group);
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
                       const E& ep, T* abuf, T* bbuf) {
  const ConvShape& s = *q.s;
  const int64_t K = s.k(), N = s.spatial(), P = plan.nr;
  const GemmTileFn<T>* tiles = GemmShape<T, I>::tiles(plan.nr, false);
  for (int64_t jc = n0; jc < n1; jc += plan.nc) {
    const int64_t nb = plan.nc < n1 - jc ? plan.nc : n1 - jc;
    for (int64_t pc = 0; pc < K; pc += plan.kc) {
      const int64_t kb = plan.kc < K - pc ? plan.kc : K - pc;
      conv_pack_b<T, I>(s, q.x, pc, kb, jc, nb, P, bbuf);
      for (int64_t ic = m0; ic < m1; ic += plan.mc) {
        const int64_t mb = plan.mc < m1 - ic ? plan.mc : m1 - ic;
        if (q.packed == nullptr) gemm_pack_a_fast<T, I>(q.w + ic * K + pc, K, 1, mb, kb, plan.mr, abuf);
        for (int64_t jr = 0; jr < nb; jr += P) {
          const int n = static_cast<int>(P < nb - jr ? P : nb - jr);
          for (int64_t ir = 0; ir < mb; ir += plan.mr) {
            const int m = static_cast<int>(plan.mr < mb - ir ? plan.mr : mb - ir);
            const T* a = q.packed != nullptr ? q.packed + (ic + ir) * K + pc * plan.mr : abuf + ir * kb;
            T* ct = q.out + (ic + ir) * N + jc + jr;
            tiles[m - 1](kb, a, plan.mr, bbuf + jr * kb, P, P * kb, ct, N, n, pc > 0);
            if (pc + kb == K) conv_finish(q, ic + ir, ic + ir + m, jc + jr, jc + jr + n, ct, N, ep);
          }
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
  const int64_t M = q.s->cout_g(), N = q.s->spatial();
  const int64_t mt = (M + plan.mr - 1) / plan.mr, nt = (N + plan.nr - 1) / plan.nr;
  const GemmGrid g = gemm_grid(mt, nt, threads);
  const int r = t / g.tn, c = t % g.tn;
  const int64_t m0 = mt * r / g.tm * plan.mr, m_end = mt * (r + 1) / g.tm * plan.mr, m1 = m_end < M ? m_end : M;
  const int64_t n0 = nt * c / g.tn * plan.nr, n_end = nt * (c + 1) / g.tn * plan.nr, n1 = n_end < N ? n_end : N;
  if (m0 >= m1 || n0 >= n1) return;
  const std::size_t abytes = sizeof(T) * static_cast<std::size_t>((plan.mc + plan.mr - 1) / plan.mr * plan.mr * plan.kc);
  const std::size_t bbytes = sizeof(T) * static_cast<std::size_t>((plan.nc + plan.nr) * plan.kc);
  T* abuf = static_cast<T*>(gemm_buffer(0).get(abytes));
  T* bbuf = static_cast<T*>(gemm_buffer(1).get(bbytes));
  if (abuf != nullptr && bbuf != nullptr) return conv_block<T, I>(plan, q, m0, m1, n0, n1, ep, abuf, bbuf);
  alignas(64) T a_small[S::mr * 64];
  alignas(64) T b_small[S::nr_short * 64];
  GemmPlan small = plan;
  small.kc = 64, small.mc = plan.mr, small.nc = plan.nr;
  conv_block<T, I>(small, q, m0, m1, n0, n1, ep, a_small, b_small);
}

// ---- direct loops (depthwise and other small groups) ----

// o[t] += wv * src[t * step] for t < n.
template <typename T, typename I> inline void conv_axpy(T* o, const T* src, int64_t step, int64_t n, T wv) {
  using V = Vec<T, I>;
  if (step != 1) {
    for (int64_t t = 0; t < n; ++t) o[t] += wv * src[t * step];
    return;
  }
  const V wvec(wv);
  int64_t t = 0;
  for (; t + V::size <= n; t += V::size) fma(wvec, V::loadu(src + t), V::loadu(o + t)).storeu(o + t);
  if (t < n) {
    const int rest = static_cast<int>(n - t);
    fma(wvec, V::loadu(src + t, rest), V::loadu(o + t, rest)).storeu(o + t, rest);
  }
}

// orow += the taps of input channel ci (of oc's group) for output row oh, each a shifted input
// row scaled by its weight, in increasing (kh, kw) order. x: the image.
template <typename T, typename I>
inline void conv_direct_row(const ConvShape& s, const T* x, const T* w, int64_t oc, int64_t ci, int64_t oh, T* orow) {
  const T* plane = x + (oc / s.cout_g() * s.cin_g() + ci) * s.h * s.w;
  const T* wk = w + (oc * s.cin_g() + ci) * s.kh * s.kw;
  for (int64_t ki = 0; ki < s.kh; ++ki) {
    const int64_t ih = oh * s.sh - s.ph + ki * s.dh;
    if (ih < 0 || ih >= s.h) continue;
    for (int64_t kj = 0; kj < s.kw; ++kj) {
      const int64_t iw = -s.pw + kj * s.dw;
      int64_t lo = 0, hi = 0;
      conv_inside(iw, s.sw, s.ow, s.w, lo, hi);
      if (lo < hi) conv_axpy<T, I>(orow + lo, plane + ih * s.w + iw + lo * s.sw, s.sw, hi - lo, wk[ki * s.kw + kj]);
    }
  }
}

// Output channel oc of one image: row by row, each row the sum over the group's input channels
// and their taps (increasing (ci, kh, kw) order, the GEMM's k), then the bias.
template <typename T, typename I>
inline void conv_direct_plane(const ConvShape& s, const T* x, const T* w, const T* bias, int64_t oc, T* o) {
  for (int64_t oh = 0; oh < s.oh; ++oh) {
    T* orow = o + oh * s.ow;
    for (int64_t ow = 0; ow < s.ow; ++ow) orow[ow] = T(0);
    for (int64_t ci = 0; ci < s.cin_g(); ++ci) conv_direct_row<T, I>(s, x, w, oc, ci, oh, orow);
    if (bias != nullptr)
      for (int64_t ow = 0; ow < s.ow; ++ow) orow[ow] += bias[oc];
  }
}

// Every (image, output channel) plane, the planes spread over the threads.
template <typename T, typename I, typename E>
inline void conv_direct(const ConvShape& s, const T* x, const T* w, const T* bias, T* out, const E& ep) {
  const int64_t planes = s.n * s.cout, N = s.spatial();
  // A thread takes at least ~2^16 multiply-adds (a plane of 56 x 56 with a 3 x 3 kernel is 2^15).
  const bool parallel = planes > 1 && planes * N * s.k() >= (int64_t(1) << 16);
#pragma omp parallel for schedule(static) if (parallel)
  for (int64_t p = 0; p < planes; ++p) {
    const int64_t image = p / s.cout, oc = p % s.cout;
    T* o = out + p * N;
    conv_direct_plane<T, I>(s, x + image * s.c * s.h * s.w, w, bias, oc, o);
    ep(image, oc, oc + 1, int64_t(0), N, o, N);
  }
}

// ---- the entry ----

// out = conv(x, w) + bias on instruction set I: x [n, c, h, w], w [cout, c / groups, kh, kw]
// (`packed`: the same weights from conv_pack_weights<T, I>, or null to pack them per call), bias
// [cout] or null, out [n, cout, oh, ow], all dense; `ep` as ConvNoEpilogue describes. Direct
// loops (s.direct) spread the planes over the threads; the GEMM runs over images and groups when
// there are enough of them, else every thread on each product (its tiles split by rows and
// columns, each thread packing the patches of its columns).
template <typename T, typename I, typename E = ConvNoEpilogue>
inline void conv_run(const ConvShape& s, const T* x, const T* w, const T* packed, const T* bias, T* out,
                     const E& ep = E()) {
  if (s.direct) return conv_direct<T, I>(s, x, w, bias, out, ep);
  const int64_t M = s.cout_g(), N = s.spatial(), K = s.k(), units = s.n * s.groups;
  const GemmPlan plan = conv_plan<T, I>(s, packed != nullptr);
  const int64_t per_group = packed != nullptr ? gemm_packed_a_size(M, K, plan.mr) : 0;
  auto problem = [&](int64_t u) {
    const int64_t image = u / s.groups, g = u % s.groups;
    return ConvProblem<T>{&s,
                          x + (image * s.c + g * s.cin_g()) * s.h * s.w,
                          w + g * M * K,
                          packed != nullptr ? packed + g * per_group : nullptr,
                          bias != nullptr ? bias + g * M : nullptr,
                          out + (image * s.cout + g * M) * N,
                          g * M,
                          image};
  };
  const int inner = gemm_threads(M, N, K, gemm_tile_count(plan, M, N));
  const int outer = gemm_threads(units * M, N, K, units);
  if (outer > 1 && outer >= inner) {
#pragma omp parallel for schedule(static) num_threads(outer)
    for (int64_t u = 0; u < units; ++u) conv_thread<T, I>(plan, problem(u), 0, 1, ep);
    return;
  }
  for (int64_t u = 0; u < units; ++u) {
    const ConvProblem<T> q = problem(u);
#pragma omp parallel num_threads(inner) if (inner > 1)
    {
      int t = 0, threads = 1;
#ifdef _OPENMP
      t = omp_get_thread_num();
      threads = omp_get_num_threads();
#endif
      conv_thread<T, I>(plan, q, t, threads, ep);
    }
  }
}

// What generated code calls: conv_run on the widest instruction set the compiler targets (or the
// one the translation unit pins).
template <typename T, typename E = ConvNoEpilogue>
inline void conv(const ConvShape& s, const T* x, const T* w, const T* packed, const T* bias, T* out,
                 const E& ep = E()) {
  conv_run<T, IsaNative>(s, x, w, packed, bias, out, ep);
}

// conv_pack_weights on that instruction set.
template <typename T> inline const T* conv_pack_weights_native(const ConvShape& s, const T* w) {
  return conv_pack_weights<T, IsaNative>(s, w);
}

}  // namespace stax_rt
}  // namespace
#endif  // STAX_RT_CONV
// @end-sections
