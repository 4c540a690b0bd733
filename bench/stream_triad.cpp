// STREAM triad, a[i] = b[i] + s * c[i], the memory-bandwidth yardstick of scripts/bench.sh.
//
//   stream_triad [--mib N] [--reps N] [--threads N] [--json]
//
// Three float64 arrays of N MiB each (default 128, well beyond any last-level cache), touched
// first by the threads that later stream them (so pages sit where those threads run), allocated
// once and reused by every timed run; the median of --reps runs (default 20) after one warm-up.
// Reported in GB/s (10^9 bytes):
//   triad     3 arrays moved per run (b, c read, a written): STREAM's own count;
//   triad_wa  4 arrays: ordinary stores first read each line of a (write-allocate), so this is
//             the traffic the memory actually carries;
//   triad_nt  3 arrays with non-temporal stores of a (written around the cache, no read).
// Build: g++ -O3 -march=native -fopenmp bench/stream_triad.cpp -o stream_triad
#include <omp.h>

#if defined(__AVX512F__) || defined(__AVX__)
#include <immintrin.h>
#endif

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

struct Options {
  long mib = 128;
  int reps = 20;
  int threads = 0;  // 0: OpenMP's default
  bool json = false;
};

[[noreturn]] void usage(const char* why) {
  std::fprintf(stderr, "stream_triad: %s\nusage: stream_triad [--mib N] [--reps N] [--threads N] [--json]\n", why);
  std::exit(1);
}

long positive(const char* flag, const char* value) {
  char* end = nullptr;
  const long v = std::strtol(value, &end, 10);
  if (end == value || *end != '\0' || v <= 0) usage((std::string(flag) + " needs a positive integer").c_str());
  return v;
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const bool has_value = i + 1 < argc;
    if (a == "--json") o.json = true;
    else if (a == "--mib" && has_value) o.mib = positive("--mib", argv[++i]);
    else if (a == "--reps" && has_value) o.reps = static_cast<int>(positive("--reps", argv[++i]));
    else if (a == "--threads" && has_value) o.threads = static_cast<int>(positive("--threads", argv[++i]));
    else usage(("unknown or incomplete argument '" + a + "'").c_str());
  }
  return o;
}

double* alloc_array(std::size_t n) {
  void* p = std::aligned_alloc(64, (n * sizeof(double) + 63) / 64 * 64);
  if (p == nullptr) usage("cannot allocate the arrays");
  return static_cast<double*>(p);
}

void triad(double* a, const double* b, const double* c, double s, long n) {
#pragma omp parallel for schedule(static)
  for (long i = 0; i < n; ++i) a[i] = b[i] + s * c[i];
}

// The same loop with streaming stores of a (its chunks start 64-byte aligned: n is a multiple of
// 8 * threads in practice; the remainder of a chunk is written plainly).
void triad_nt(double* a, const double* b, const double* c, double s, long n) {
#pragma omp parallel
  {
    const long t = omp_get_thread_num(), p = omp_get_num_threads();
    const long per = (n / p) / 8 * 8;
    const long begin = t * per, end = t + 1 == p ? n : begin + per;
    long i = begin;
#if defined(__AVX512F__)
    const __m512d vs = _mm512_set1_pd(s);
    for (; i + 8 <= end; i += 8)
      _mm512_stream_pd(a + i, _mm512_fmadd_pd(vs, _mm512_load_pd(c + i), _mm512_load_pd(b + i)));
#elif defined(__AVX__)
    const __m256d vs = _mm256_set1_pd(s);
    for (; i + 4 <= end; i += 4)
      _mm256_stream_pd(a + i, _mm256_add_pd(_mm256_load_pd(b + i), _mm256_mul_pd(vs, _mm256_load_pd(c + i))));
#endif
    for (; i < end; ++i) a[i] = b[i] + s * c[i];
#if defined(__AVX512F__) || defined(__AVX__)
    _mm_sfence();
#endif
  }
}

template <typename F> double median_seconds(F run, int reps) {
  run();  // warm-up
  std::vector<double> t;
  for (int r = 0; r < reps; ++r) {
    const double t0 = omp_get_wtime();
    run();
    t.push_back(omp_get_wtime() - t0);
  }
  std::sort(t.begin(), t.end());
  return t.size() % 2 ? t[t.size() / 2] : 0.5 * (t[t.size() / 2 - 1] + t[t.size() / 2]);
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse(argc, argv);
  if (o.threads > 0) omp_set_num_threads(o.threads);
  const long n = o.mib * 1024 * 1024 / static_cast<long>(sizeof(double));
  double* a = alloc_array(static_cast<std::size_t>(n));
  double* b = alloc_array(static_cast<std::size_t>(n));
  double* c = alloc_array(static_cast<std::size_t>(n));
  int threads = 1;
  // First touch by the same static schedule as the timed loops.
#pragma omp parallel
  {
#pragma omp single
    threads = omp_get_num_threads();
#pragma omp for schedule(static)
    for (long i = 0; i < n; ++i) a[i] = 0.0, b[i] = 1.0, c[i] = 2.0;
  }
  const double bytes = static_cast<double>(n) * sizeof(double);
  const double t_plain = median_seconds([&] { triad(a, b, c, 3.0, n); }, o.reps);
  const double t_nt = median_seconds([&] { triad_nt(a, b, c, 3.0, n); }, o.reps);
  // Every a[i] is 1 + 3 * 2 = 7: a check that the loops ran.
  for (long i = 0; i < n; i += n / 7 + 1) {
    if (a[i] != 7.0) {
      std::fprintf(stderr, "stream_triad: wrong result a[%ld] = %g\n", i, a[i]);
      return 1;
    }
  }
  const double triad_gbs = 3 * bytes / t_plain / 1e9, triad_wa_gbs = 4 * bytes / t_plain / 1e9;
  const double triad_nt_gbs = 3 * bytes / t_nt / 1e9;
  if (o.json) {
    std::printf("{\"threads\": %d, \"mib\": %ld, \"reps\": %d, \"triad_gbs\": %.3f, \"triad_wa_gbs\": %.3f, "
                "\"triad_nt_gbs\": %.3f, \"triad_ms\": %.3f}\n",
                threads, o.mib, o.reps, triad_gbs, triad_wa_gbs, triad_nt_gbs, t_plain * 1e3);
  } else {
    std::printf("stream_triad: 3 arrays x %ld MiB float64, %d threads, median of %d runs\n", o.mib, threads, o.reps);
    std::printf("  triad     %8.2f GB/s  (3 arrays: b, c read, a written; %.2f ms)\n", triad_gbs, t_plain * 1e3);
    std::printf("  triad_wa  %8.2f GB/s  (4 arrays: the same run with the write-allocate read of a)\n", triad_wa_gbs);
    std::printf("  triad_nt  %8.2f GB/s  (3 arrays, non-temporal stores of a; %.2f ms)\n", triad_nt_gbs, t_nt * 1e3);
  }
  std::free(a);
  std::free(b);
  std::free(c);
  return 0;
}
