// The runtime's GEMM (lib/codegen/runtime/stax_gemm.h) against OpenBLAS's cblas_sgemm on the
// shapes of real models, the benchmark behind scripts/bench_gemm.sh.
//
//   gemm_bench [--threads 1,2] [--reps N] [--seconds S] [--only TEXT] [--check]
//
// Every shape is timed for staxc and OpenBLAS alternately (one call of each in turn, so that a
// drift of the machine hits both), buffers allocated once and reused; the median of N calls after
// two warm-up calls each (N from --seconds per side, between 5 and --reps). GFLOP/s counts 2 M N
// K per product. The peak is measured by the program itself:
//   clock    a chain of dependent integer adds (one cycle each on every x86-64 core);
//   FMA/cycle  vfmadd on 16 independent register accumulators, of the width of the instruction
//            set the runtime uses (512-bit for AVX-512, 256-bit for AVX2), per core;
//   peak     threads x FMA/cycle x lanes x 2 flops x clock.
// On Zen 4 a 512-bit FMA issues as one op per cycle on each of its two 256-bit pipes, so FMA/cycle
// measures about 1 for 512 bits and 2 for 256 bits (both 32 float flops per cycle); Zen 5 server
// parts have 512-bit pipes and measure about 2 for both widths. The run prints what it measured.
// `%cpu` divides instead by the CPU time the process used during the call (all its threads): on
// a shared machine, where the threads get less than whole cores, it tells how well the cycles
// they did get were used. OpenBLAS is its OpenMP build (libopenblas-openmp-dev), so both sides share libgomp's threads
// and OMP_WAIT_POLICY. `--check` compares every result with OpenBLAS's.
//
// Build (scripts/bench_gemm.sh does it; -O2 as generated code is built):
//   g++ -std=c++17 -O2 -march=native -fopenmp -Ilib/codegen/runtime
//     -I/usr/include/x86_64-linux-gnu/openblas-openmp bench/gemm_bench.cpp
//     /usr/lib/x86_64-linux-gnu/openblas-openmp/libopenblas.so.0
//     -Wl,-rpath,/usr/lib/x86_64-linux-gnu/openblas-openmp -lsleef -o gemm_bench
#include "stax_gemm.h"

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

#include <time.h>

extern "C" char* openblas_get_corename(void);
extern "C" char* openblas_get_config(void);
extern "C" void openblas_set_num_threads(int);

namespace {

using Isa = stax_rt::IsaNative;

struct Options {
  std::vector<int> threads = {1, 2};
  int reps = 50;
  double seconds = 0.4;
  std::string only;
  bool check = false;
};

[[noreturn]] void usage(const char* why) {
  std::fprintf(stderr, "gemm_bench: %s\nusage: gemm_bench [--threads 1,2] [--reps N] [--seconds S] [--only TEXT] [--check]\n", why);
  std::exit(1);
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const bool has_value = i + 1 < argc;
    if (a == "--check") {
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
      if (o.reps < 5) usage("--reps needs an integer >= 5");
    } else if (a == "--seconds" && has_value) {
      o.seconds = std::atof(argv[++i]);
      if (!(o.seconds > 0)) usage("--seconds needs a positive number");
    } else if (a == "--only" && has_value) {
      o.only = argv[++i];
    } else {
      usage(("unknown or incomplete argument '" + a + "'").c_str());
    }
  }
  return o;
}

double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

// ---- the machine's peak ----
// Seconds of CPU time of this thread: the clock and FMA rates are measured on it, so that other
// processes sharing the core do not lower them (the wall-clock rate is printed too).
double cpu_now() {
  timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

// Dependent register-register adds per second (an add whose operand is an immediate may be folded
// by the renamer of recent cores; one with a register operand takes its cycle).
struct Clock {
  double ghz, wall_ghz;
};
Clock measure_clock() {
  Clock best{0, 0};
  for (int r = 0; r < 5; ++r) {
    const long n = 10000000;
    long x = 0;
    const long one = 1;
    const double c0 = cpu_now(), w0 = now();
    for (long i = 0; i < n; ++i) {
      asm volatile(
          "add %1, %0\n\tadd %1, %0\n\tadd %1, %0\n\tadd %1, %0\n\t"
          "add %1, %0\n\tadd %1, %0\n\tadd %1, %0\n\tadd %1, %0"
          : "+r"(x)
          : "r"(one));
    }
    const double c1 = cpu_now(), w1 = now();
    best.ghz = std::max(best.ghz, 8.0 * n / (c1 - c0) / 1e9);
    best.wall_ghz = std::max(best.wall_ghz, 8.0 * n / (w1 - w0) / 1e9);
  }
  return best;
}

// FMA instructions per cycle on 16 independent accumulators of the runtime's float vector (its
// register width); an empty asm per step keeps each accumulator in its register.
double measure_fma_per_cycle(double ghz) {
  using V = stax_rt::Vec<float, Isa>;
  double best = 0;
  for (int r = 0; r < 5; ++r) {
    V a0(0.f), a1(1.f), a2(2.f), a3(3.f), a4(4.f), a5(5.f), a6(6.f), a7(7.f);
    V a8(8.f), a9(9.f), a10(10.f), a11(11.f), a12(12.f), a13(13.f), a14(14.f), a15(15.f);
    const V x(0.999999f), y(1e-7f);
    const long n = 2000000;
    const double t0 = cpu_now();
    for (long k = 0; k < n; ++k) {
#define STAX_BENCH_FMA4(A, B, C, D)                                                         \
  A = stax_rt::fma(A, x, y), B = stax_rt::fma(B, x, y), C = stax_rt::fma(C, x, y), D = stax_rt::fma(D, x, y); \
  asm volatile("" : "+v"(A.v), "+v"(B.v), "+v"(C.v), "+v"(D.v));
      STAX_BENCH_FMA4(a0, a1, a2, a3)
      STAX_BENCH_FMA4(a4, a5, a6, a7)
      STAX_BENCH_FMA4(a8, a9, a10, a11)
      STAX_BENCH_FMA4(a12, a13, a14, a15)
#undef STAX_BENCH_FMA4
    }
    const double t = cpu_now() - t0;
    best = std::max(best, 16.0 * static_cast<double>(n) / (t * ghz * 1e9));
  }
  return best;
}

// ---- shapes ----
enum class Kind { Plain, TransposedB, Prepacked, Batched, Mlp, MlpConst };

struct Shape {
  const char* name;
  int64_t batch, M, N, K;
  Kind kind;
};

const Shape kShapes[] = {
    {"square 1024", 1, 1024, 1024, 1024, Kind::Plain},
    {"square 2048", 1, 2048, 2048, 2048, Kind::Plain},
    {"MLP up [512,1024]x[1024,4096]", 1, 512, 4096, 1024, Kind::Plain},
    {"MLP down [512,4096]x[4096,1024]", 1, 512, 1024, 4096, Kind::Plain},
    {"MLP up, B prepacked", 1, 512, 4096, 1024, Kind::Prepacked},
    {"attn [128,256]x[256,256]", 1, 128, 256, 256, Kind::Plain},
    {"ffn [128,256]x[256,1024]", 1, 128, 1024, 256, Kind::Plain},
    {"ffn [128,1024]x[1024,256]", 1, 128, 256, 1024, Kind::Plain},
    {"M=1 [1,4096]x[4096,4096]", 1, 1, 4096, 4096, Kind::Plain},
    {"M=16 [16,4096]x[4096,4096]", 1, 16, 4096, 4096, Kind::Plain},
    {"M=1, W^T (linear)", 1, 1, 4096, 4096, Kind::TransposedB},
    {"M=16, W^T (linear)", 1, 16, 4096, 4096, Kind::TransposedB},
    {"M=16, B prepacked", 1, 16, 4096, 4096, Kind::Prepacked},
    {"batched [8,128,64]x[8,64,128]", 8, 128, 128, 64, Kind::Batched},
#ifdef STAX_BENCH_MLP
    // x[512,1024] @ W1[1024,4096] + b1 -> gelu -> @ W2[4096,1024] + b2: staxc's generated code
    // (bench/mlp.json: two GEMMs, each with its epilogue) against OpenBLAS's two sgemm calls and
    // the pointwise kernels between and after them (OpenMP loops, erff). M N K of one product;
    // the flops count both.
    {"MLP + epilogues (generated)", 2, 512, 4096, 1024, Kind::Mlp},
    // The same with the weights and biases constants of the graph (bench/mlp_const.json, read
    // from STAX_BENCH_MLP_WEIGHTS), as in a model: the generated code packs each W once for the
    // process, where a runtime library's sgemm packs it on every call.
    {"MLP + epilogues, constant weights (generated)", 2, 512, 4096, 1024, Kind::MlpConst},
#endif
};

#ifdef STAX_BENCH_MLP
// The generated code of bench/mlp.json (staxc --name bench_mlp), built on its own.
extern "C" int bench_mlp_run(const void* const* inputs, void* const* outputs, void* workspace);
extern "C" size_t bench_mlp_workspace_size(void);
extern "C" int bench_mlp_const_run(const void* const* inputs, void* const* outputs, void* workspace);
extern "C" size_t bench_mlp_const_workspace_size(void);

// W1, b1, W2, b2 of the MLP from the raw float32 file bench/mlp_const.json names.
void read_mlp_weights(std::vector<float>* const (&parts)[4]) {
  std::FILE* f = std::fopen(STAX_BENCH_MLP_WEIGHTS, "rb");
  bool ok = f != nullptr;
  for (std::vector<float>* v : parts) ok = ok && std::fread(v->data(), sizeof(float), v->size(), f) == v->size();
  if (f != nullptr) std::fclose(f);
  if (!ok) {
    std::fprintf(stderr, "gemm_bench: cannot read the MLP's weights from %s\n", STAX_BENCH_MLP_WEIGHTS);
    std::exit(1);
  }
}
#endif

struct Buffers {
  std::vector<float> a, b, packed, c_stax, c_blas;
  std::vector<float> w2, b1, b2, h;  // the MLP's
  std::vector<unsigned char> workspace;
};

Buffers make_buffers(const Shape& s) {
  Buffers buf;
  buf.a.resize(static_cast<std::size_t>(s.batch * s.M * s.K));
  buf.b.resize(static_cast<std::size_t>(s.batch * s.K * s.N));
  buf.c_stax.assign(static_cast<std::size_t>(s.batch * s.M * s.N), 0.0f);
  buf.c_blas = buf.c_stax;
  unsigned state = 12345;
  auto next = [&] {
    state = state * 1664525u + 1013904223u;
    return static_cast<float>(static_cast<int>(state >> 9) % 2001 - 1000) / 1000.0f;
  };
  const bool mlp = s.kind == Kind::Mlp || s.kind == Kind::MlpConst;
  if (mlp) {  // one batch of x, W1 [K, N]; W2 [N, K]; the result [M, K]
    buf.a.resize(static_cast<std::size_t>(s.M * s.K));
    buf.b.resize(static_cast<std::size_t>(s.K * s.N));
    buf.w2.resize(static_cast<std::size_t>(s.N * s.K));
    buf.b1.resize(static_cast<std::size_t>(s.N));
    buf.b2.resize(static_cast<std::size_t>(s.K));
    buf.h.resize(static_cast<std::size_t>(s.M * s.N));
    buf.c_stax.assign(static_cast<std::size_t>(s.M * s.K), 0.0f);
    buf.c_blas = buf.c_stax;
    for (std::vector<float>* v : {&buf.w2, &buf.b1, &buf.b2})
      for (float& x : *v) x = next() * 0.05f;
#ifdef STAX_BENCH_MLP
    buf.workspace.resize(s.kind == Kind::Mlp ? bench_mlp_workspace_size() : bench_mlp_const_workspace_size());
#endif
  }
  for (float& x : buf.a) x = next();
  for (float& x : buf.b) x = next() * 0.05f;
#ifdef STAX_BENCH_MLP
  if (s.kind == Kind::MlpConst) read_mlp_weights({&buf.b, &buf.b1, &buf.w2, &buf.b2});
#endif
  if (s.kind == Kind::Prepacked) {
    const int64_t P = stax_rt::gemm_panel_width<float>(Isa::width);
    buf.packed.resize(static_cast<std::size_t>(stax_rt::gemm_packed_b_size(s.K, s.N, P)));
    stax_rt::gemm_pack_b(buf.b.data(), s.N, int64_t(1), s.K, s.N, P, buf.packed.data());
  }
  return buf;
}

void run_stax(const Shape& s, Buffers& buf) {
  const float* a = buf.a.data();
  const float* b = buf.b.data();
  float* c = buf.c_stax.data();
  switch (s.kind) {
    case Kind::Plain: stax_rt::gemm<float, Isa>(a, s.K, 1, b, s.N, 1, c, s.N, s.M, s.N, s.K); break;
    case Kind::TransposedB: stax_rt::gemm<float, Isa>(a, s.K, 1, b, 1, s.K, c, s.N, s.M, s.N, s.K); break;
    case Kind::Prepacked: stax_rt::gemm_prepacked<float, Isa>(a, s.K, 1, buf.packed.data(), c, s.N, s.M, s.N, s.K); break;
    case Kind::Batched: {
      const int64_t shape[1] = {s.batch}, a_bs[1] = {s.M * s.K}, b_bs[1] = {s.K * s.N};
      stax_rt::gemm_batched<float, Isa>(1, shape, a, a_bs, s.K, 1, b, b_bs, s.N, 1, c, s.M * s.N, s.N, s.M, s.N, s.K);
      break;
    }
    case Kind::Mlp: {
#ifdef STAX_BENCH_MLP
      const void* in[5] = {a, b, buf.b1.data(), buf.w2.data(), buf.b2.data()};
      void* out[1] = {c};
      bench_mlp_run(in, out, buf.workspace.data());
#endif
      break;
    }
    case Kind::MlpConst: {
#ifdef STAX_BENCH_MLP
      const void* in[1] = {a};
      void* out[1] = {c};
      bench_mlp_const_run(in, out, buf.workspace.data());
#endif
      break;
    }
  }
}

// The MLP as a runtime library runs it: sgemm, then bias and gelu; sgemm, then the bias.
void run_blas_mlp(const Shape& s, Buffers& buf) {
  const int M = static_cast<int>(s.M), N = static_cast<int>(s.N), K = static_cast<int>(s.K);
  float* h = buf.h.data();
  float* y = buf.c_blas.data();
  const float* b1 = buf.b1.data();
  const float* b2 = buf.b2.data();
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, M, N, K, 1.0f, buf.a.data(), K, buf.b.data(), N, 0.0f, h, N);
#pragma omp parallel for schedule(static)
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      const float v = h[i * N + j] + b1[j];
      h[i * N + j] = 0.5f * v * (1.0f + std::erf(v * 0.70710678f));
    }
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, M, K, N, 1.0f, h, N, buf.w2.data(), K, 0.0f, y, K);
#pragma omp parallel for schedule(static)
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < K; ++j) y[i * K + j] += b2[j];
}

// OpenBLAS: the same product; a batch is a loop of calls (0.3.21 has no batched entry).
void run_blas(const Shape& s, Buffers& buf) {
  if (s.kind == Kind::Mlp || s.kind == Kind::MlpConst) return run_blas_mlp(s, buf);
  const bool bt = s.kind == Kind::TransposedB;
  for (int64_t x = 0; x < s.batch; ++x)
    cblas_sgemm(CblasRowMajor, CblasNoTrans, bt ? CblasTrans : CblasNoTrans, static_cast<int>(s.M),
                static_cast<int>(s.N), static_cast<int>(s.K), 1.0f, buf.a.data() + x * s.M * s.K,
                static_cast<int>(s.K), buf.b.data() + x * s.K * s.N, static_cast<int>(bt ? s.K : s.N), 0.0f,
                buf.c_blas.data() + x * s.M * s.N, static_cast<int>(s.N));
}

// The 1-minute load average (other processes competing for the cores), or -1.
double load_average() {
  double load = -1;
  if (std::FILE* f = std::fopen("/proc/loadavg", "r")) {
    if (std::fscanf(f, "%lf", &load) != 1) load = -1;
    std::fclose(f);
  }
  return load;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// Median wall time of a call and median CPU time of the process during it (every thread's).
struct Timing {
  double stax_s, blas_s, stax_cpu, blas_cpu;
};

double process_cpu_now() {
  timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

Timing time_shape(const Shape& s, Buffers& buf, const Options& o) {
  for (int w = 0; w < 2; ++w) run_stax(s, buf), run_blas(s, buf);
  double t0 = now();
  run_stax(s, buf);
  run_blas(s, buf);
  const double pair = now() - t0;
  const int reps = std::max(5, std::min(o.reps, static_cast<int>(2 * o.seconds / std::max(pair, 1e-9))));
  std::vector<double> ts, tb, cs, cb;
  for (int r = 0; r < reps; ++r) {
    const double c0 = process_cpu_now();
    t0 = now();
    run_stax(s, buf);
    const double t1 = now(), c1 = process_cpu_now();
    run_blas(s, buf);
    const double t2 = now(), c2 = process_cpu_now();
    ts.push_back(t1 - t0);
    tb.push_back(t2 - t1);
    cs.push_back(c1 - c0);
    cb.push_back(c2 - c1);
  }
  return {median(ts), median(tb), median(cs), median(cb)};
}

// Largest |staxc - OpenBLAS| over the largest |OpenBLAS| (both sum in float32, in other orders).
double worst_difference(const Buffers& buf) {
  double diff = 0, scale = 0;
  for (std::size_t i = 0; i < buf.c_blas.size(); ++i) {
    diff = std::max(diff, std::fabs(static_cast<double>(buf.c_stax[i]) - buf.c_blas[i]));
    scale = std::max(scale, std::fabs(static_cast<double>(buf.c_blas[i])));
  }
  return scale > 0 ? diff / scale : diff;
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse(argc, argv);
  // Debian resolves libopenblas.so.0 through its alternatives, by default to the pthreads build,
  // whose own threads keep spinning after each call: a staxc call on 2 threads right after one
  // then shares a core with them and runs at half speed. The build links with an rpath to the
  // OpenMP build (scripts/bench_gemm.sh); this refuses any other.
  if (openblas_get_parallel() != 2) {
    std::fprintf(stderr, "gemm_bench: OpenBLAS is not its OpenMP build (openblas_get_parallel() = %d): link with "
                 "-Wl,-rpath,/usr/lib/x86_64-linux-gnu/openblas-openmp, as scripts/bench_gemm.sh does\n",
                 openblas_get_parallel());
    return 1;
  }
  const Clock clock = measure_clock();
  const double ghz = clock.ghz;
  const double fma = measure_fma_per_cycle(ghz);
  const int lanes = Isa::width;
  const double peak_1t = fma * lanes * 2 * ghz;  // GFLOP/s of one core
  const char* policy = std::getenv("OMP_WAIT_POLICY");
  const stax_rt::GemmCaches& caches = stax_rt::gemm_caches();
  const stax_rt::GemmPlan plan = stax_rt::gemm_plan<float, Isa>(1024, 1024, 1024);
  std::printf("staxc GEMM (%s, tile %dx%lld) vs OpenBLAS %s (core %s); OMP_WAIT_POLICY=%s\n", Isa::name,
              stax_rt::GemmTile<float, Isa>::mr, static_cast<long long>(stax_rt::GemmShape<float, Isa>::nr),
              openblas_get_config(), openblas_get_corename(), policy ? policy : "(default)");
  std::printf("caches L1 %lld KiB, L2 %lld KiB, L3 %lld KiB -> KC %lld, MC %lld, NC %lld\n",
              static_cast<long long>(caches.l1 >> 10), static_cast<long long>(caches.l2 >> 10),
              static_cast<long long>(caches.l3 >> 10), static_cast<long long>(plan.kc),
              static_cast<long long>(plan.mc), static_cast<long long>(plan.nc));
  std::printf("clock %.2f GHz (dependent adds, thread CPU time; %.2f GHz by the wall clock%s); %.2f FMA/cycle of %d "
              "float lanes (measured) -> peak %.1f GFLOP/s per core; load average %.2f on %d CPUs\n",
              ghz, clock.wall_ghz, clock.wall_ghz < 0.9 * ghz ? ": THE MACHINE IS BUSY" : "", fma, lanes, peak_1t,
              load_average(), omp_get_num_procs());
  std::printf("%-32s %3s | %9s %8s %6s %5s | %9s %8s %6s %5s | %8s%s\n", "shape (float32)", "thr", "staxc ms",
              "GFLOP/s", "%peak", "%cpu", "OpenBLAS", "GFLOP/s", "%peak", "%cpu", "ratio", o.check ? " | max diff" : "");
  for (int threads : o.threads) {
    omp_set_num_threads(threads);
    openblas_set_num_threads(threads);
    for (const Shape& s : kShapes) {
      if (!o.only.empty() && std::string(s.name).find(o.only) == std::string::npos) continue;
      Buffers buf = make_buffers(s);
      const Timing t = time_shape(s, buf, o);
      const double flops = 2.0 * s.batch * s.M * s.N * s.K;
      const double gs = flops / t.stax_s / 1e9, gb = flops / t.blas_s / 1e9, peak = peak_1t * threads;
      // %cpu: the flops per CPU second the process spent, as a fraction of one core's peak (the
      // efficiency of the cycles it got, whatever share of the machine that was; spinning
      // threads count, so it means most under OMP_WAIT_POLICY=passive).
      const double cpu_s = flops / t.stax_cpu / 1e9 / peak_1t, cpu_b = flops / t.blas_cpu / 1e9 / peak_1t;
      std::printf("%-32s %3d | %9.3f %8.1f %5.0f%% %4.0f%% | %9.3f %8.1f %5.0f%% %4.0f%% | %7.2fx", s.name, threads,
                  t.stax_s * 1e3, gs, 100 * gs / peak, 100 * cpu_s, t.blas_s * 1e3, gb, 100 * gb / peak, 100 * cpu_b,
                  gs / gb);
      if (o.check) std::printf(" | %.1e", worst_difference(buf));
      std::printf("\n");
      std::fflush(stdout);
    }
  }
  std::printf("load average at the end %.2f\n", load_average());
  return 0;
}
