// The runtime's convolution (lib/codegen/runtime/stax_conv.h) against im2col + OpenBLAS's
// cblas_sgemm on ResNet-18's convolutions at batch 1 (224 x 224) and some pointwise ones of
// ResNet-50 and MobileNet-V2, then MobileNet-V2's depthwise layers (the channels in the lanes
// against the loops over planes), the benchmark behind scripts/bench_conv.sh.
//
//   conv_bench [--threads 1,2] [--reps N] [--seconds S] [--only TEXT] [--check] [--cold]
//
// staxc's side is what generated code runs for a constant weight: stax_rt::conv_run with the
// weights packed ahead (once, outside the timing), the bias added in its tiles; "other path"
// is the same call made to pack the patches block by block (conv_run's `shift` = 0) where the
// default reads them from the shifted input (stax_conv_shift.h), or, for a layer the default
// computes by F(2 x 2, 3 x 3) (stax_conv_wino.h), the GEMM's own path for it (`wino` false,
// the weights packed for the GEMM). OpenBLAS's side
// is the classic lowering: the patches written whole into an im2col buffer (allocated once,
// written on every call and timed: it is part of that method), one sgemm, then the bias. Both
// sides are called alternately (one call of each in turn), the median of N calls after two
// warm-up calls each (N from --seconds per side, between 5 and --reps). GFLOP/s counts
// 2 Cout K OH OW per convolution, K = Cin KH KW (F(2 x 2, 3 x 3) counted as the direct sum's
// work). `--check` compares the results with OpenBLAS's and the two paths of staxc with each
// other (the same summation order, equal bits, unless one is F(2 x 2, 3 x 3)).
//
// Build (scripts/bench_conv.sh does it; -O2 as generated code is built):
//   g++ -std=c++17 -O2 -march=native -fopenmp -Ilib/codegen/runtime
//     -I/usr/include/x86_64-linux-gnu/openblas-openmp bench/conv_bench.cpp
//     /usr/lib/x86_64-linux-gnu/openblas-openmp/libopenblas.so.0
//     -Wl,-rpath,/usr/lib/x86_64-linux-gnu/openblas-openmp -lsleef -o conv_bench
#include "stax_conv.h"

#include <cblas.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

extern "C" void openblas_set_num_threads(int);

namespace {

using Isa = stax_rt::IsaNative;
using stax_rt::ConvShape;

struct Options {
  std::vector<int> threads = {1, 2};
  int reps = 30;
  double seconds = 0.4;
  std::string only;
  bool check = false;
  bool cold = false;  // weights from memory, as in a model: each call reads another copy of them
};

[[noreturn]] void usage(const char* why) {
  std::fprintf(stderr, "conv_bench: %s\nusage: conv_bench [--threads 1,2] [--reps N] [--seconds S] [--only TEXT] [--check] [--cold]\n", why);
  std::exit(1);
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const bool has_value = i + 1 < argc;
    if (a == "--cold") {
      o.cold = true;
    } else if (a == "--check") {
      o.check = true;
    } else if (a == "--threads" && has_value) {
      o.threads.clear();
      for (const char* p = argv[++i]; *p != '\0';) {
        char* end = nullptr;
        const long t = std::strtol(p, &end, 10);
        if (end == p || t <= 0) usage("--threads needs positive integers, comma-separated");
        o.threads.push_back(static_cast<int>(t));
        p = *end == ',' ? end + 1 : end;
      }
    } else if (a == "--reps" && has_value) {
      o.reps = std::atoi(argv[++i]);
    } else if (a == "--seconds" && has_value) {
      o.seconds = std::atof(argv[++i]);
    } else if (a == "--only" && has_value) {
      o.only = argv[++i];
    } else {
      usage(("unknown argument " + a).c_str());
    }
  }
  return o;
}

struct Layer {
  const char* name;
  int64_t c, hw, cout, k, stride, pad;
};

// ResNet-18's distinct convolutions at 224 x 224 (each 3x3 of layer1 appears 4 times, ...), then
// a few pointwise ones of ResNet-50 and MobileNet-V2.
const Layer kLayers[] = {
    {"conv1 7x7/2", 3, 224, 64, 7, 2, 3},          {"layer1 3x3", 64, 56, 64, 3, 1, 1},
    {"layer2.0 3x3/2", 64, 56, 128, 3, 2, 1},      {"layer2 3x3", 128, 28, 128, 3, 1, 1},
    {"layer2 down 1x1/2", 64, 56, 128, 1, 2, 0},   {"layer3.0 3x3/2", 128, 28, 256, 3, 2, 1},
    {"layer3 3x3", 256, 14, 256, 3, 1, 1},         {"layer3 down 1x1/2", 128, 28, 256, 1, 2, 0},
    {"layer4.0 3x3/2", 256, 14, 512, 3, 2, 1},     {"layer4 3x3", 512, 7, 512, 3, 1, 1},
    {"layer4 down 1x1/2", 256, 14, 512, 1, 2, 0},
    // Pointwise convolutions of ResNet-50's bottlenecks (and its strided downsamples) and
    // MobileNet-V2's inverted residuals.
    {"r50 l1 1x1 256>64", 256, 56, 64, 1, 1, 0},   {"r50 l1 1x1 64>256", 64, 56, 256, 1, 1, 0},
    {"r50 l3 1x1 1024>256", 1024, 14, 256, 1, 1, 0}, {"r50 l3 1x1 256>1024", 256, 14, 1024, 1, 1, 0},
    {"r50 l4 1x1 2048>512", 2048, 7, 512, 1, 1, 0}, {"r50 l4 1x1 512>2048", 512, 7, 2048, 1, 1, 0},
    {"r50 l2 down 1x1/2", 256, 56, 512, 1, 2, 0},  {"r50 l3 down 1x1/2", 512, 28, 1024, 1, 2, 0},
    {"r50 l4 down 1x1/2", 1024, 14, 2048, 1, 2, 0},
    {"mbv2 stem 3x3/2", 3, 224, 32, 3, 2, 1},     {"mbv2 1x1 32>16", 32, 112, 16, 1, 1, 0},
    {"mbv2 1x1 16>96", 16, 112, 96, 1, 1, 0},     {"mbv2 1x1 24>144", 24, 56, 144, 1, 1, 0},     {"mbv2 1x1 144>24", 144, 56, 24, 1, 1, 0},
    {"mbv2 1x1 384>64", 384, 14, 64, 1, 1, 0},     {"mbv2 1x1 96>576", 96, 14, 576, 1, 1, 0},
    {"mbv2 1x1 576>96", 576, 14, 96, 1, 1, 0},     {"mbv2 1x1 160>960", 160, 7, 960, 1, 1, 0},
    {"mbv2 1x1 960>160", 960, 7, 160, 1, 1, 0},    {"mbv2 1x1 320>1280", 320, 7, 1280, 1, 1, 0},
};

ConvShape shape_of(const Layer& l) {
  const int64_t o = (l.hw + 2 * l.pad - l.k) / l.stride + 1;
  return ConvShape{1, l.c, l.hw, l.hw, l.cout, l.k, l.k, o, o, l.stride, l.stride, l.pad, l.pad, 1, 1, 1, 0};
}

// The patches [K, OH*OW] written whole (the classic im2col), then C = W x patches, then the bias.
void im2col_sgemm(const ConvShape& s, const float* x, const float* w, const float* bias, float* col, float* out) {
  const int64_t N = s.oh * s.ow, K = s.k();
#pragma omp parallel for schedule(static)
  for (int64_t k = 0; k < K; ++k) {
    const int64_t ci = k / (s.kh * s.kw), ki = k / s.kw % s.kh, kj = k % s.kw;
    float* row = col + k * N;
    for (int64_t oh = 0; oh < s.oh; ++oh) {
      const int64_t ih = oh * s.sh - s.ph + ki;
      for (int64_t ow = 0; ow < s.ow; ++ow) {
        const int64_t iw = ow * s.sw - s.pw + kj;
        row[oh * s.ow + ow] = ih >= 0 && ih < s.h && iw >= 0 && iw < s.w ? x[(ci * s.h + ih) * s.w + iw] : 0.0f;
      }
    }
  }
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<int>(s.cout), static_cast<int>(N),
              static_cast<int>(K), 1.0f, w, static_cast<int>(K), col, static_cast<int>(N), 0.0f, out, static_cast<int>(N));
#pragma omp parallel for schedule(static)
  for (int64_t o = 0; o < s.cout; ++o)
    for (int64_t j = 0; j < N; ++j) out[o * N + j] += bias[o];
}

double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

std::vector<float> random_floats(std::size_t n, unsigned seed) {
  std::vector<float> v(n);
  for (float& x : v) {
    seed = seed * 1664525u + 1013904223u;
    x = static_cast<float>(static_cast<int>(seed >> 9) % 4096 - 2048) / 2048.0f;
  }
  return v;
}

void run_layer(const Layer& l, int threads, const Options& o) {
  const ConvShape s = shape_of(l);
  const int64_t N = s.oh * s.ow, K = s.k();
  const std::vector<float> x = random_floats(static_cast<std::size_t>(s.c * s.h * s.w), 1);
  const std::vector<float> w0 = random_floats(static_cast<std::size_t>(s.cout * K), 2);
  const std::vector<float> bias = random_floats(static_cast<std::size_t>(s.cout), 3);
  std::vector<float> col(static_cast<std::size_t>(K * N)), a(static_cast<std::size_t>(s.cout * N)), b(a.size());
  // --cold: enough copies of the weights (raw and packed) that each call finds its own in memory,
  // not in the caches (128 MiB of them), as a model's layers do.
  const std::size_t wbytes = sizeof(float) * w0.size();
  const std::size_t copies = o.cold ? std::max<std::size_t>(2, (std::size_t(128) << 20) / wbytes + 1) : 1;
  std::vector<std::vector<float>> ws(copies, w0);
  const bool wino = stax_rt::conv_wino_pays<float, Isa>(s);
  std::vector<const float*> packs, gemm_packs;
  for (const auto& w : ws) packs.push_back(stax_rt::conv_pack_weights<float, Isa>(s, w.data()));
  for (const auto& w : ws) gemm_packs.push_back(stax_rt::conv_pack_weights<float, Isa>(s, w.data(), false));
  // (Each of the three reads its own third of the copies: reading the copy another had just read,
  // the second and third found it in L3.)
  std::size_t call_a = 0, call_b = 2 * copies / 3, call_c = copies / 3;
  omp_set_num_threads(threads);
  openblas_set_num_threads(threads);
  std::vector<float> c(a.size());
  auto ours = [&] {
    const std::size_t i = call_a++ % copies;
    stax_rt::conv_run<float, Isa>(s, x.data(), ws[i].data(), packs[i], bias.data(), a.data());
  };
  auto packing = [&] {  // the patches packed block by block, or the GEMM's path for F(2 x 2, 3 x 3)
    const std::size_t i = call_c++ % copies;
    stax_rt::conv_run<float, Isa>(s, x.data(), ws[i].data(), gemm_packs[i], bias.data(), c.data(),
                                  stax_rt::ConvNoEpilogue(), wino ? -1 : 0, false);
  };
  auto theirs = [&] { im2col_sgemm(s, x.data(), ws[call_b++ % copies].data(), bias.data(), col.data(), b.data()); };
  for (int i = 0; i < 2; ++i) ours(), packing(), theirs();
  const double t0 = now();
  ours();
  const double once = std::max(now() - t0, 1e-7);
  const int n = std::max(5, std::min(o.reps, static_cast<int>(o.seconds / once)));
  std::vector<double> ta, tb, tc;
  for (int i = 0; i < n; ++i) {
    double t = now();
    ours();
    ta.push_back(now() - t);
    t = now();
    packing();
    tc.push_back(now() - t);
    t = now();
    theirs();
    tb.push_back(now() - t);
  }
  const double flops = 2.0 * static_cast<double>(s.cout) * static_cast<double>(K) * static_cast<double>(N);
  const double ga = flops / median(ta) * 1e-9, gb = flops / median(tb) * 1e-9, gc = flops / median(tc) * 1e-9;
  std::printf("%-20s %4lld %4lld %4lld %6lld %7d %10.1f %10.1f %10.1f %7.2f", l.name, static_cast<long long>(s.c),
              static_cast<long long>(s.cout), static_cast<long long>(s.oh), static_cast<long long>(K), threads, ga, gc,
              gb, ga / gb);
  if (o.check) {
    double worst = 0;
    for (std::size_t i = 0; i < a.size(); ++i) worst = std::max(worst, static_cast<double>(std::fabs(a[i] - b[i])));
    double other = 0;
    for (std::size_t i = 0; i < a.size(); ++i) other = std::max(other, static_cast<double>(std::fabs(a[i] - c[i])));
    if (wino) std::printf("   max |diff| %.2g, F(2x2,3x3) against the GEMM's path %.2g", worst, other);
    else
      std::printf("   max |diff| %.2g, packed path %s", worst,
                  std::memcmp(a.data(), c.data(), a.size() * sizeof(float)) == 0 ? "bitwise equal" : "DIFFERS");
  }
  std::printf("\n");
  for (const float* p : packs) ::operator delete(const_cast<float*>(p), std::align_val_t(64));
  for (const float* p : gemm_packs) ::operator delete(const_cast<float*>(p), std::align_val_t(64));
}

// ---- depthwise: the channels in the lanes against the loops over planes ----

// ReLU6 over each finished block, as MobileNet-V2's generated epilogues do.
struct Relu6 {
  void operator()(int64_t, int64_t i0, int64_t i1, int64_t, int64_t j1, float* c, int64_t ldc) const {
    using V = stax_rt::Vec<float, Isa>;
    for (int64_t i = 0; i < i1 - i0; ++i) {
      float* row = c + i * ldc;
      int64_t j = 0;
      for (; j + V::size <= j1; j += V::size) stax_rt::minimum(stax_rt::maximum(V::loadu(row + j), V(0.0f)), V(6.0f)).storeu(row + j);
      for (; j < j1; ++j) row[j] = std::min(std::max(row[j], 0.0f), 6.0f);
    }
  }
};

// One depthwise 3 x 3 layer (padding 1) of MobileNet-V2, its shape a constant as in generated
// code (whose loops the compiler then specializes: with the shape a variable the loops over
// planes ran several times slower): conv_run (the channels in the lanes where
// conv_lanes_pays) against conv_direct (the loops over planes), called alternately.
template <int64_t C, int64_t HW, int64_t S>
void run_depthwise(const char* name, int threads, const Options& o) {
  static constexpr int64_t OHW = (HW + 2 - 3) / S + 1;
  static constexpr ConvShape s{1, C, HW, HW, C, 3, 3, OHW, OHW, S, S, 1, 1, 1, 1, C, 1};
  const std::vector<float> x = random_floats(static_cast<std::size_t>(C * HW * HW), 1);
  const std::vector<float> w = random_floats(static_cast<std::size_t>(C * 9), 2), bias = random_floats(C, 3);
  std::vector<float> a(static_cast<std::size_t>(C * OHW * OHW)), b(a.size());
  omp_set_num_threads(threads);
  auto lanes = [&] { stax_rt::conv_run<float, Isa>(s, x.data(), w.data(), nullptr, bias.data(), a.data(), Relu6()); };
  auto planes = [&] { stax_rt::conv_direct<float, Isa>(s, x.data(), w.data(), bias.data(), b.data(), Relu6()); };
  for (int i = 0; i < 2; ++i) lanes(), planes();
  const double t0 = now();
  lanes();
  const int n = std::max(5, std::min(o.reps * 10, static_cast<int>(o.seconds / std::max(now() - t0, 1e-7))));
  std::vector<double> ta, tb;
  for (int i = 0; i < n; ++i) {
    double t = now();
    lanes();
    ta.push_back(now() - t);
    t = now();
    planes();
    tb.push_back(now() - t);
  }
  const double us_a = median(ta) * 1e6, us_b = median(tb) * 1e6;
  std::printf("%-20s %4lld %4lld %4lld %7d %10s %10.1f %10.1f %7.2f%s\n", name, static_cast<long long>(C),
              static_cast<long long>(HW), static_cast<long long>(OHW), threads,
              stax_rt::conv_lanes_pays(s) ? "lanes" : "planes", us_a, us_b, us_b / us_a,
              o.check && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) != 0 ? "   DIFFERS" : "");
}

void run_depthwise_table(const Options& o) {
  std::printf("\nMobileNet-V2's depthwise 3 x 3 layers with ReLU6, median us per call\n");
  std::printf("%-20s %4s %4s %4s %7s %10s %10s %10s %7s\n", "layer", "C", "H", "OH", "threads", "path", "conv_run",
              "planes", "ratio");
  for (int threads : o.threads) {
    auto want = [&](const char* name) { return o.only.empty() || std::string(name).find(o.only) != std::string::npos; };
    if (want("mbv2 dw 32@112")) run_depthwise<32, 112, 1>("mbv2 dw 32@112", threads, o);
    if (want("mbv2 dw 96@112/2")) run_depthwise<96, 112, 2>("mbv2 dw 96@112/2", threads, o);
    if (want("mbv2 dw 144@56")) run_depthwise<144, 56, 1>("mbv2 dw 144@56", threads, o);
    if (want("mbv2 dw 144@56/2")) run_depthwise<144, 56, 2>("mbv2 dw 144@56/2", threads, o);
    if (want("mbv2 dw 192@28")) run_depthwise<192, 28, 1>("mbv2 dw 192@28", threads, o);
    if (want("mbv2 dw 192@28/2")) run_depthwise<192, 28, 2>("mbv2 dw 192@28/2", threads, o);
    if (want("mbv2 dw 384@14")) run_depthwise<384, 14, 1>("mbv2 dw 384@14", threads, o);
    if (want("mbv2 dw 576@14")) run_depthwise<576, 14, 1>("mbv2 dw 576@14", threads, o);
    if (want("mbv2 dw 576@14/2")) run_depthwise<576, 14, 2>("mbv2 dw 576@14/2", threads, o);
    if (want("mbv2 dw 960@7")) run_depthwise<960, 7, 1>("mbv2 dw 960@7", threads, o);
  }
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse(argc, argv);
  // The OpenMP build of OpenBLAS only (see bench/gemm_bench.cpp: the pthreads one, Debian's
  // default libopenblas.so.0, keeps threads spinning beside libgomp's).
  if (openblas_get_parallel() != 2) {
    std::fprintf(stderr, "conv_bench: OpenBLAS is not its OpenMP build (openblas_get_parallel() = %d): link with "
                 "-Wl,-rpath,/usr/lib/x86_64-linux-gnu/openblas-openmp, as scripts/bench_conv.sh does\n",
                 openblas_get_parallel());
    return 1;
  }
  const char* policy = std::getenv("OMP_WAIT_POLICY");
  std::printf("ResNet-18 convolutions, batch 1, float32, %s; OMP_WAIT_POLICY=%s; weights %s\n", Isa::name,
              policy ? policy : "(default)", o.cold ? "from memory (--cold)" : "in the caches");
  std::printf("%-20s %4s %4s %4s %6s %7s %10s %10s %10s %7s\n", "layer", "Cin", "Cout", "OH", "K", "threads", "staxc GF/s",
              "other path",
              "im2col+BLAS", "ratio");
  for (int threads : o.threads)
    for (const Layer& l : kLayers)
      if (o.only.empty() || std::string(l.name).find(o.only) != std::string::npos) run_layer(l, threads, o);
  run_depthwise_table(o);
  return 0;
}
