// Convolution checks (runtime/stax_conv.h), built per instruction set with the GEMM checks: every
// output against a naive loop in long double within the GEMM's bound (K + 1 roundings: the sum
// and the bias), over strides, paddings, dilations, groups (depthwise included), 1x1, conv1d,
// odd sizes and batches, through the GEMM (weights packed per call and ahead; the patches packed
// and read in place from the shifted input, with the same bits) and the direct loops; the same
// bits on 1 and 2 threads; the epilogue called once per output element with the bias added.
#include "gemm_checks.h"

#include "stax_conv.h"

#include <omp.h>

#include <string>

extern "C" int stax_gemm_checks_fail_alloc;  // gemm_test_main.cpp

namespace gemm_checks {

namespace {

using stax_rt::ConvShape;

// PyTorch's output size.
int64_t out_size(int64_t size, int64_t k, int64_t s, int64_t p, int64_t d) { return (size + 2 * p - d * (k - 1) - 1) / s + 1; }

ConvShape shape(int64_t n, int64_t c, int64_t h, int64_t w, int64_t cout, int64_t kh, int64_t kw, int64_t s, int64_t p,
                int64_t d, int64_t groups) {
  const int64_t sh = h == 1 && kh == 1 ? 1 : s, ph = h == 1 && kh == 1 ? 0 : p, dh = h == 1 && kh == 1 ? 1 : d;
  return ConvShape{n, c, h, w, cout, kh, kw, out_size(h, kh, sh, ph, dh), out_size(w, kw, s, p, d), sh, s, ph, p, dh, d, groups, 0};
}

std::string describe(const ConvShape& s) {
  char text[256];
  std::snprintf(text, sizeof text, "n %lld c %lld %lldx%lld cout %lld k %lldx%lld s %lld,%lld p %lld,%lld d %lld,%lld g %lld",
                static_cast<long long>(s.n), static_cast<long long>(s.c), static_cast<long long>(s.h),
                static_cast<long long>(s.w), static_cast<long long>(s.cout), static_cast<long long>(s.kh),
                static_cast<long long>(s.kw), static_cast<long long>(s.sh), static_cast<long long>(s.sw),
                static_cast<long long>(s.ph), static_cast<long long>(s.pw), static_cast<long long>(s.dh),
                static_cast<long long>(s.dw), static_cast<long long>(s.groups));
  return text;
}

template <typename T> struct ConvData {
  std::vector<T> x, w, bias;
};

template <typename T> ConvData<T> data_for(const ConvShape& s, uint64_t seed) {
  ConvData<T> d;
  d.x = random_vector<T>(static_cast<std::size_t>(s.n * s.c * s.h * s.w), seed);
  d.w = random_vector<T>(static_cast<std::size_t>(s.cout * s.cin_g() * s.kh * s.kw), seed + 1);
  d.bias = random_vector<T>(static_cast<std::size_t>(s.cout), seed + 2);
  return d;
}

// The magnitude F(2 x 2, 3 x 3) bounds its error by (docs/graph-format.md, "Precise rules"):
// |bias| + the sum over input channels of (sum of |x| over the 4 x 4 input patch of the output's
// 2 x 2 tile) x (sum of |w| over the 3 x 3 kernel).
template <typename T>
long double wino_magnitude(const ConvShape& s, const ConvData<T>& d, bool with_bias, int64_t n, int64_t o, int64_t oh,
                           int64_t ow) {
  long double mag = with_bias ? std::fabs(static_cast<long double>(d.bias[static_cast<std::size_t>(o)])) : 0;
  const int64_t y0 = oh / 2 * 2 - s.ph, x0 = ow / 2 * 2 - s.pw;
  for (int64_t ci = 0; ci < s.c; ++ci) {
    long double patch = 0, kernel = 0;
    for (int64_t y = y0; y < y0 + 4; ++y)
      for (int64_t x = x0; x < x0 + 4; ++x)
        if (y >= 0 && y < s.h && x >= 0 && x < s.w)
          patch += std::fabs(static_cast<long double>(d.x[static_cast<std::size_t>(((n * s.c + ci) * s.h + y) * s.w + x)]));
    for (int64_t k = 0; k < 9; ++k) kernel += std::fabs(static_cast<long double>(d.w[static_cast<std::size_t>((o * s.c + ci) * 9 + k)]));
    mag += patch * kernel;
  }
  return mag;
}

// Checks out against the naive sum; returns the number of bad elements. `wino`: within F(2 x 2,
// 3 x 3)'s bound rather than the direct sum's.
template <typename T>
int check_against_naive(const ConvShape& s, const ConvData<T>& d, bool with_bias, const std::vector<T>& out,
                        const char* how, bool wino = false) {
  int bad = 0;
  const int64_t K = s.k();
  for (int64_t n = 0; n < s.n; ++n)
    for (int64_t o = 0; o < s.cout; ++o)
      for (int64_t oh = 0; oh < s.oh; ++oh)
        for (int64_t ow = 0; ow < s.ow; ++ow) {
          const int64_t g = o / s.cout_g();
          long double sum = with_bias ? d.bias[static_cast<std::size_t>(o)] : 0, mag = std::fabs(sum);
          for (int64_t ci = 0; ci < s.cin_g(); ++ci)
            for (int64_t ki = 0; ki < s.kh; ++ki)
              for (int64_t kj = 0; kj < s.kw; ++kj) {
                const int64_t ih = oh * s.sh - s.ph + ki * s.dh, iw = ow * s.sw - s.pw + kj * s.dw;
                if (ih < 0 || ih >= s.h || iw < 0 || iw >= s.w) continue;
                const long double p =
                    static_cast<long double>(d.x[static_cast<std::size_t>(((n * s.c + g * s.cin_g() + ci) * s.h + ih) * s.w + iw)]) *
                    d.w[static_cast<std::size_t>(((o * s.cin_g() + ci) * s.kh + ki) * s.kw + kj)];
                sum += p;
                mag += std::fabs(p);
              }
          const T got = out[static_cast<std::size_t>(((n * s.cout + o) * s.oh + oh) * s.ow + ow)];
          if (wino) mag = wino_magnitude(s, d, with_bias, n, o, oh, ow);
          if (!(std::fabs(static_cast<long double>(got) - sum) <= error_bound<T>(K + 1, mag))) {
            if (bad == 0)
              CHECK(false, "%s (%s): out[%lld][%lld][%lld][%lld] = %.9g, exact %.9Lg", describe(s).c_str(), how,
                    static_cast<long long>(n), static_cast<long long>(o), static_cast<long long>(oh),
                    static_cast<long long>(ow), static_cast<double>(got), sum);
            ++bad;
          }
        }
  if (bad == 0) CHECK(true, "%s", how);
  return bad;
}

// `shift`: conv_run's choice of path for the patches (-1 its own, 0 packed, 1 read in place from
// the shifted input where the kernel has several taps).
// `wino` false: the GEMM's paths where F(2 x 2, 3 x 3) would pay.
template <typename T>
std::vector<T> run(const ConvShape& s, const ConvData<T>& d, bool bias, bool packed, int shift = -1, bool wino = true) {
  std::vector<T> out(static_cast<std::size_t>(s.n * s.cout * s.oh * s.ow), T(12345));
  const T* wp = packed ? stax_rt::conv_pack_weights<T, Isa>(s, d.w.data(), wino) : nullptr;
  stax_rt::conv_run<T, Isa>(s, d.x.data(), d.w.data(), wp, bias ? d.bias.data() : nullptr, out.data(),
                            stax_rt::ConvNoEpilogue(), shift, wino);
  ::operator delete(const_cast<T*>(wp), std::align_val_t(64));
  return out;
}

// Through the GEMM (weights packed per call and ahead; the patches packed and read from the
// shifted input, which give the same bits) and through the direct loops.
template <typename T> void check_shape(ConvShape s, uint64_t seed) {
  const ConvData<T> d = data_for<T>(s, seed);
  const bool wino = stax_rt::conv_wino_pays<T, Isa>(s);  // weights packed ahead: F(2 x 2, 3 x 3)
  for (int shift : {0, 1}) {
    const char* how = shift == 0 ? "patches packed" : "patches read in place";
    const std::vector<T> per_call = run(s, d, true, false, shift), ahead = run(s, d, false, true, shift);
    check_against_naive(s, d, true, per_call, (std::string("GEMM, bias, weights packed per call, ") + how).c_str());
    check_against_naive(s, d, false, ahead,
                        (std::string(wino ? "F(2 x 2, 3 x 3), no bias, " : "GEMM, no bias, weights packed ahead, ") + how).c_str(),
                        wino);
    const std::vector<T> other = run(s, d, true, false, 1 - shift);
    CHECK(std::memcmp(per_call.data(), other.data(), other.size() * sizeof(T)) == 0,
          "%s: the bits differ between the patches packed and read in place", describe(s).c_str());
    if (wino) {  // the GEMM's paths with the weights packed ahead: the bits of packing them per call
      const std::vector<T> gemm = run(s, d, true, true, shift, false);
      CHECK(std::memcmp(per_call.data(), gemm.data(), gemm.size() * sizeof(T)) == 0,
            "%s: without F(2 x 2, 3 x 3) the bits differ between the weights packed ahead and per call",
            describe(s).c_str());
    }
  }
  s.direct = 1;
  const std::vector<T> direct = run(s, d, true, true);
  check_against_naive(s, d, true, direct, "direct loops, bias");
  if (stax_rt::conv_lanes_pays(s)) {  // the channels in the lanes: the bits of the loops over planes
    std::vector<T> planes(direct.size(), T(12345));
    stax_rt::conv_direct<T, Isa>(s, d.x.data(), d.w.data(), d.bias.data(), planes.data(), stax_rt::ConvNoEpilogue());
    CHECK(std::memcmp(planes.data(), direct.data(), direct.size() * sizeof(T)) == 0,
          "%s: the bits differ between the channels in the lanes and the loops over planes", describe(s).c_str());
  }
}

// n, c, h, w, cout, kh, kw, stride, padding, dilation, groups
const int64_t kShapes[][11] = {
    {1, 3, 17, 19, 8, 3, 3, 1, 1, 1, 1},       // odd sizes, padding
    {1, 16, 14, 14, 33, 3, 3, 2, 1, 1, 1},     // stride 2, rows beyond a tile
    {2, 8, 9, 11, 12, 1, 1, 1, 0, 1, 1},       // 1x1 (the input is the matrix), batch 2
    {1, 8, 9, 11, 12, 1, 1, 2, 0, 1, 1},       // 1x1 stride 2 (a downsample)
    {1, 3, 40, 40, 64, 7, 7, 2, 3, 1, 1},      // ResNet's stem, smaller
    {1, 4, 12, 13, 5, 3, 2, 1, 2, 2, 1},       // dilation, asymmetric kernel, wide padding
    {3, 6, 10, 10, 9, 3, 3, 1, 1, 1, 3},       // groups of 2 channels, batch 3
    {1, 16, 9, 9, 12, 3, 3, 1, 1, 1, 2},       // groups of 8 channels
    {2, 12, 15, 16, 12, 3, 3, 1, 1, 1, 12},    // depthwise
    {1, 8, 15, 17, 16, 5, 5, 2, 2, 1, 8},      // depthwise, multiplier 2, stride 2
    {1, 5, 9, 9, 5, 3, 3, 1, 2, 2, 5},         // depthwise, dilated
    {1, 20, 7, 7, 20, 3, 3, 1, 1, 1, 20},      // depthwise on rows shorter than a vector: 3 rows at once after 4
    {1, 6, 14, 40, 6, 3, 3, 1, 1, 1, 6},       // depthwise: rows of 2.5 vectors, 2 rows at once after 12
    {2, 20, 3, 3, 264, 1, 1, 1, 0, 1, 1},      // pointwise on 9 positions: with weights packed ahead, C^T = X^T W^T
    {1, 24, 7, 7, 300, 1, 1, 1, 0, 1, 1},      // the same on 49 (AVX-512), channels not whole vectors
    {1, 1, 6, 5, 7, 3, 3, 1, 0, 1, 1},         // one input channel, no padding
    {1, 256, 7, 7, 300, 3, 3, 1, 1, 1, 1},     // long K, few columns (ResNet's last stage)
    {1, 64, 30, 30, 64, 3, 3, 1, 1, 1, 1},     // many columns: both threads
    {1, 8, 60, 62, 13, 3, 3, 2, 1, 1, 1},      // 960 shifted positions (AVX-512's wide tiles), ragged rows
    {1, 24, 32, 36, 10, 1, 1, 1, 0, 1, 1},     // pointwise read in place, wide tiles, a ragged last one
    {2, 5, 1, 50, 7, 1, 4, 3, 2, 2, 1},        // conv1d: stride, padding, dilation
    {1, 6, 1, 33, 6, 1, 3, 1, 1, 1, 6},        // conv1d depthwise
    {1, 2, 3, 3, 2, 3, 3, 1, 0, 1, 1},         // one output position
    {1, 4, 5, 5, 3, 3, 3, 3, 1, 1, 1},         // stride 3 = the kernel: windows side by side
    {1, 40, 7, 7, 136, 3, 3, 1, 1, 1, 1},      // 3x3 on 49 positions into 136 channels: ahead, C^T = X^T W^T
    {2, 24, 14, 13, 160, 3, 3, 2, 1, 1, 1},    // the same with stride 2 (7 x 7 outputs), batch 2
    {1, 16, 11, 11, 128, 3, 3, 1, 2, 2, 1},    // the same dilated, wide padding
    {1, 16, 9, 10, 130, 1, 3, 1, 1, 1, 1},     // a 1 x 3 kernel padded on both dims, 130 channels
    {1, 32, 33, 35, 96, 3, 3, 1, 1, 1, 1},     // 1155 positions into 96 channels: C^T by blocks of positions and channels
    {1, 32, 15, 17, 64, 3, 3, 2, 1, 1, 1},     // C^T with stride 2, odd sizes: positions spaced in the padded copy
    {1, 32, 20, 19, 64, 3, 3, 2, 2, 2, 1},     // the same dilated, wide padding
    {2, 256, 9, 11, 64, 1, 1, 2, 0, 1, 1},     // C^T of a 1x1 stride 2 (a downsample): read in place, no copy
    {1, 40, 15, 13, 40, 3, 3, 2, 1, 1, 40},    // depthwise, channels in lanes: stride 2, a last block of channels short
    {2, 24, 11, 9, 24, 5, 5, 2, 2, 1, 24},     // the same, 5 x 5, batch 2
    {1, 17, 5, 6, 17, 3, 3, 1, 1, 2, 17},      // the same, dilated, rows narrower than a transpose block
    {1, 6, 1, 20, 6, 1, 3, 1, 1, 1, 6},        // the same, conv1d
    {2, 48, 21, 19, 64, 1, 1, 2, 0, 1, 1},     // a downsample of K under 256: C^T read in place on 16 lanes
    {1, 16, 23, 37, 20, 3, 3, 1, 1, 1, 1},     // F(2 x 2, 3 x 3) ahead: odd output sides, rows of 19 tiles across units
    {3, 24, 11, 11, 17, 3, 3, 1, 0, 1, 1},     // the same without padding (9 x 9 outputs), batch 3, a short panel of rows
    {2, 20, 8, 40, 33, 3, 3, 1, 2, 1, 1},      // the same, padding 2 (10 x 42), rows of 21 tiles over a vector
    {1, 256, 30, 10, 24, 3, 3, 1, 1, 1, 1},    // the same, the most input channels (a unit of one panel)
};

// When a thread's buffers cannot be allocated: on the worker threads (the calling thread's
// then serve, or every thread takes the packed patches) or on every thread (the packed patches,
// weights packed per call). Each shape's copy of the input is larger than any earlier check's
// (900 KB, then 1.1 and 1.3 MB per thread), so that the threads' kept buffers must grow: first
// the shifted path split over the threads (a copy in each thread's buffer), then the transposed
// product of several taps (the calling thread's buffer holds every thread's copy), then the same
// over a batch's images. The results against the naive sum, and the same bits as once the
// buffers can be allocated.
void check_short_of_memory() {
  const ConvShape swapped = shape(1, 320, 27, 27, 96, 3, 3, 2, 1, 1, 1), shifted = shape(1, 128, 40, 40, 32, 3, 3, 1, 1, 1, 1);
  const ConvShape images = shape(2, 384, 27, 27, 96, 3, 3, 2, 1, 1, 1);  // whole images per thread
  for (const ConvShape& s : {shifted, swapped, images}) {
    const ConvData<float> d = data_for<float>(s, 31);
    std::vector<std::vector<float>> outs;
    for (int mode : {2, 1, 0}) {
      // Before the failures; per call where packing ahead would take F(2 x 2, 3 x 3) (checked below).
      const float* wp = stax_rt::conv_wino_pays<float, Isa>(s) ? nullptr : stax_rt::conv_pack_weights<float, Isa>(s, d.w.data());
      __atomic_store_n(&stax_gemm_checks_fail_alloc, mode, __ATOMIC_RELAXED);
      std::vector<float> out(static_cast<std::size_t>(s.n * s.cout * s.oh * s.ow), 12345.0f);
      stax_rt::conv_run<float, Isa>(s, d.x.data(), d.w.data(), wp, d.bias.data(), out.data());
      __atomic_store_n(&stax_gemm_checks_fail_alloc, 0, __ATOMIC_RELAXED);
      ::operator delete(const_cast<float*>(wp), std::align_val_t(64));
      const std::string how = mode == 2 ? "no buffer on any thread" : mode == 1 ? "no buffer on the workers" : "buffers";
      check_against_naive(s, d, true, out, how.c_str());
      outs.push_back(out);
    }
    CHECK(outs[0] == outs[2] && outs[1] == outs[2], "%s: the bits differ when buffers cannot be allocated",
          describe(s).c_str());
  }
  // F(2 x 2, 3 x 3) without its buffers: the GEMM with the weights packed per call, its bits. On 8
  // threads the calling thread's buffer must hold 8 units' transforms, more than any check before.
  const ConvShape wino = shape(1, 64, 64, 64, 32, 3, 3, 1, 1, 1, 1);
  const ConvData<float> dw = data_for<float>(wino, 41);
  CHECK((stax_rt::conv_wino_pays<float, Isa>(wino)), "%s: not F(2 x 2, 3 x 3)", describe(wino).c_str());
  const int threads = omp_get_max_threads();
  omp_set_num_threads(8);
  const std::vector<float> per_call = run(wino, dw, true, false);
  for (int mode : {2, 0}) {
    const float* wp = stax_rt::conv_pack_weights<float, Isa>(wino, dw.w.data());
    __atomic_store_n(&stax_gemm_checks_fail_alloc, mode, __ATOMIC_RELAXED);
    std::vector<float> out(static_cast<std::size_t>(wino.cout * wino.oh * wino.ow), 12345.0f);
    stax_rt::conv_run<float, Isa>(wino, dw.x.data(), dw.w.data(), wp, dw.bias.data(), out.data());
    __atomic_store_n(&stax_gemm_checks_fail_alloc, 0, __ATOMIC_RELAXED);
    ::operator delete(const_cast<float*>(wp), std::align_val_t(64));
    check_against_naive(wino, dw, true, out, mode == 2 ? "F(2 x 2, 3 x 3) without buffers" : "F(2 x 2, 3 x 3)", mode == 0);
    CHECK((out == per_call) == (mode == 2), "%s: without buffers the GEMM's bits (%d), with them F(2 x 2, 3 x 3)'s",
          describe(wino).c_str(), mode);
  }
  omp_set_num_threads(threads);
  // A depthwise convolution with the channels in the lanes, its padded copy of 2 MB per thread
  // (AVX2) or 4 (AVX-512): a thread without one computes its blocks' planes unpadded.
  ConvShape depthwise = shape(1, 48, 256, 256, 48, 3, 3, 9, 1, 1, 48);
  depthwise.direct = 1;
  const ConvData<float> d = data_for<float>(depthwise, 37);
  for (int mode : {2, 1, 0}) {
    __atomic_store_n(&stax_gemm_checks_fail_alloc, mode, __ATOMIC_RELAXED);
    std::vector<float> out(static_cast<std::size_t>(depthwise.cout * depthwise.oh * depthwise.ow), 12345.0f);
    stax_rt::conv_run<float, Isa>(depthwise, d.x.data(), d.w.data(), nullptr, d.bias.data(), out.data());
    __atomic_store_n(&stax_gemm_checks_fail_alloc, 0, __ATOMIC_RELAXED);
    check_against_naive(depthwise, d, true, out, mode == 2 ? "no buffer on any thread" : mode == 1 ? "no buffer on the workers" : "buffers");
  }
}

}  // namespace

void check_conv() {
  uint64_t seed = 4000;
  for (const auto& v : kShapes) {
    const ConvShape s = shape(v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9], v[10]);
    check_shape<float>(s, seed);
    check_shape<double>(s, seed);
    seed += 3;
  }
  // The same bits on 1, 2 and 3 threads (the chunks dealt out to them differ), batch 1 (threads
  // within the product) and 4 (over images): a shifted copy of the input split by positions and
  // by channels, a pointwise input read in place, C^T, and the direct loops.
  const int threads = omp_get_max_threads();
  const int64_t kThreadShapes[][11] = {
      {1, 32, 28, 28, 48, 3, 3, 1, 1, 1, 1},     {1, 64, 28, 28, 128, 3, 3, 1, 1, 1, 1},
      {1, 32, 28, 28, 48, 1, 1, 1, 0, 1, 1},     {1, 32, 14, 14, 160, 3, 3, 1, 1, 1, 1},
      {1, 96, 28, 28, 96, 3, 3, 2, 1, 1, 96},    {1, 32, 33, 35, 96, 3, 3, 1, 1, 1, 1},
      {1, 32, 100, 99, 64, 3, 3, 2, 1, 1, 1},    // C^T by blocks of positions, each thread filling its copy's rows
      {1, 512, 4, 4, 100, 3, 3, 1, 1, 1, 1},     // one tile of positions, long K: the shifted path split by channels
      {1, 256, 40, 38, 128, 1, 1, 2, 0, 1, 1},   // C^T of a downsample read in place by blocks of positions
      {1, 160, 7, 7, 160, 3, 3, 1, 1, 1, 160},   // depthwise, channels in lanes, narrow rows
      {1, 128, 7, 7, 64, 3, 3, 1, 1, 1, 1},      // C^T on 7 x 7, K of several blocks: the quarter block (conv_swap_kc)
      {1, 64, 14, 14, 200, 1, 1, 1, 0, 1, 1},    // pointwise of one KC block on 196 positions: in place, a ragged last tile
      {1, 48, 30, 26, 40, 3, 3, 1, 1, 1, 1},     // F(2 x 2, 3 x 3): units dealt out over images and threads
  };
  for (int64_t n : {1, 4})
    for (const auto& v : kThreadShapes) {
      ConvShape s = shape(n, v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9], v[10]);
      s.direct = v[10] > 1;
      const ConvData<float> d = data_for<float>(s, 99);
      omp_set_num_threads(1);
      const std::vector<float> one = run(s, d, true, true);
      for (int t : {2, 3}) {
        omp_set_num_threads(t);
        const std::vector<float> many = run(s, d, true, true), per_call = run(s, d, true, false);
        // (F(2 x 2, 3 x 3), which only weights packed ahead take, rounds otherwise than the GEMM.)
        const bool wino = stax_rt::conv_wino_pays<float, Isa>(s);
        CHECK(std::memcmp(one.data(), many.data(), one.size() * sizeof(float)) == 0 &&
                  (wino || std::memcmp(one.data(), per_call.data(), one.size() * sizeof(float)) == 0),
              "%s: the bits differ between 1 and %d threads or packed ahead and per call", describe(s).c_str(), t);
      }
    }
  omp_set_num_threads(threads);
  // The epilogue: each element once, after the bias; channels and positions of the whole output;
  // through the GEMM (both paths of the patches) and the direct loops.
  for (int shift : {0, 1})
  for (bool ahead : {false, true})
  for (const auto& v : {kShapes[1], kShapes[2], kShapes[6], kShapes[7], kShapes[8], kShapes[13], kShapes[14],
                        kShapes[17], kShapes[25], kShapes[28], kShapes[30], kShapes[31], kShapes[37], kShapes[38]}) {
    ConvShape s = shape(v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9], v[10]);
    s.direct = v[10] > 1 && v[1] / v[10] <= 4;
    const ConvData<float> d = data_for<float>(s, 7);
    const std::vector<float> want = run(s, d, true, ahead);
    std::vector<float> out(want.size());
    std::vector<int> seen(want.size(), 0);
    int wrong = 0;
    const int64_t N = s.spatial();
    auto ep = [&](int64_t image, int64_t i0, int64_t i1, int64_t j0, int64_t j1, float* c, int64_t ldc) {
      for (int64_t i = i0; i < i1; ++i)
        for (int64_t j = j0; j < j1; ++j) {
          const std::size_t at = static_cast<std::size_t>((image * s.cout + i) * N + j);
          float& x = c[(i - i0) * ldc + (j - j0)];
#pragma omp atomic
          ++seen[at];
          if (&x != &out[at] || x != want[at]) {
#pragma omp atomic
            ++wrong;
          }
          x = -x;
        }
    };
    const float* wp = ahead ? stax_rt::conv_pack_weights<float, Isa>(s, d.w.data()) : nullptr;
    stax_rt::conv_run<float, Isa>(s, d.x.data(), d.w.data(), wp, d.bias.data(), out.data(), ep, shift);
    ::operator delete(const_cast<float*>(wp), std::align_val_t(64));
    bool once = true, negated = true;
    for (std::size_t i = 0; i < out.size(); ++i) once = once && seen[i] == 1, negated = negated && out[i] == -want[i];
    CHECK(once && negated && wrong == 0,
          "%s (shift %d, weights packed %s): epilogue once %d, rewrites kept %d, %d elements wrong",
          describe(s).c_str(), shift, ahead ? "ahead" : "per call", once, negated, wrong);
  }
  check_short_of_memory();
  // The transposed product's KC block: a quarter of the GEMM's for units of at most eight tiles of
  // positions whose K spans several of its blocks, else the GEMM's own.
  stax_rt::GemmPlan plan;
  plan.kc = 384;
  const int64_t few = 8 * stax_rt::GemmShape<float, Isa>::mr;
  const int64_t kc_few = stax_rt::conv_swap_kc<float, Isa>(plan, few, 4608);
  const int64_t kc_many = stax_rt::conv_swap_kc<float, Isa>(plan, few + 1, 4608);
  const int64_t kc_short = stax_rt::conv_swap_kc<float, Isa>(plan, few, 384);
  CHECK(kc_few == 96 && kc_many == 384 && kc_short == 384,
        "conv_swap_kc: %lld for %lld positions (want 96), %lld for %lld (want 384), %lld for K of one block (want 384)",
        static_cast<long long>(kc_few), static_cast<long long>(few), static_cast<long long>(kc_many),
        static_cast<long long>(few + 1), static_cast<long long>(kc_short));
  // A strided 1 x 1 kernel is computed transposed, read in place, from K = 256 on, and with 16
  // lanes (AVX-512's float) for any K.
  const bool small_k = stax_rt::conv_swap_pays<float, Isa>(shape(1, 64, 56, 56, 128, 1, 1, 2, 0, 1, 1));
  const bool large_k = stax_rt::conv_swap_pays<float, Isa>(shape(1, 256, 56, 56, 128, 1, 1, 2, 0, 1, 1));
  CHECK(small_k == (Isa::width >= 16) && large_k,
        "conv_swap_pays for 1 x 1 / 2 downsamples: %d for K = 64 (want %d), %d for K = 256 (want 1)", small_k,
        Isa::width >= 16, large_k);
  // A stem (3 input channels, 7 x 7 / 2) into 64 channels is computed transposed; into 32 (fewer
  // than 64), or 3 x 3 from 16 channels on 7 x 7 into 64 (no stem, K under 256), it is not.
  const bool stem = stax_rt::conv_swap_pays<float, Isa>(shape(1, 3, 224, 224, 64, 7, 7, 2, 3, 1, 1));
  const bool narrow_stem = stax_rt::conv_swap_pays<float, Isa>(shape(1, 3, 224, 224, 32, 3, 3, 2, 1, 1, 1));
  const bool not_stem = stax_rt::conv_swap_pays<float, Isa>(shape(1, 16, 7, 7, 64, 3, 3, 1, 1, 1, 1));
  CHECK(stem && !narrow_stem && !not_stem, "conv_swap_pays for stems: %d into 64 (want 1), %d into 32 (want 0), %d for "
        "16 input channels (want 0)", stem, narrow_stem, not_stem);
  // A pointwise kernel reads its input in place when its plane is whole vectors or its K is one
  // KC block of the plan (its tiles then write straight into the output); else the patches are
  // packed (K = 4096 is several blocks: KC is at most 1024).
  const auto in_place = [](int64_t c, int64_t side) {
    return stax_rt::conv_shift_pays<float, Isa>(shape(1, c, side, side, 64, 1, 1, 1, 0, 1, 1));
  };
  const bool whole_vectors = 14 * 14 % Isa::width == 0;
  CHECK(in_place(64, 14) && in_place(4096, 14) == whole_vectors && in_place(4096, 16),
        "conv_shift_pays for pointwise kernels: %d for K = 64 on 14 x 14 (want 1), %d for K = 4096 (want %d), %d for "
        "K = 4096 on 16 x 16 (want 1)",
        in_place(64, 14), in_place(4096, 14), whole_vectors, in_place(4096, 16));
  // A batch goes by whole images per thread unless an image's output has at most eight tiles of
  // positions; one image or one thread never does.
  const auto by_images = [](int64_t n, int64_t side, int threads) {
    return stax_rt::conv_swap_by_images<float, Isa>(shape(n, 64, side, side, 64, 3, 3, 1, 1, 1, 1), threads);
  };
  const int64_t mr = stax_rt::GemmShape<float, Isa>::mr;
  int64_t side = 1;
  while ((side + 1) * (side + 1) <= 8 * mr) ++side;  // the widest square output of at most 8 tiles
  CHECK(!by_images(4, side, 2) && by_images(4, side + 1, 2) && !by_images(1, side + 1, 2) && !by_images(4, side + 1, 1),
        "conv_swap_by_images: %d for %lld x %lld outputs (want 0), %d for %lld x %lld (want 1), %d for one image, %d for one "
        "thread (want 0)",
        by_images(4, side, 2), static_cast<long long>(side), static_cast<long long>(side), by_images(4, side + 1, 2),
        static_cast<long long>(side + 1), static_cast<long long>(side + 1), by_images(1, side + 1, 2),
        by_images(4, side + 1, 1));
}

}  // namespace gemm_checks
