// GEMM checks: determinism (threads, runs, blockings), long dot products against the bound,
// float64, special values, integer and bool products, the run-time packing against the layout
// functions, and the blocking plan.
#include "gemm_checks.h"

#include <omp.h>

namespace gemm_checks {

namespace {

bool same_bits(const std::vector<float>& x, const std::vector<float>& y) {
  return x.size() == y.size() && std::memcmp(x.data(), y.data(), x.size() * sizeof(float)) == 0;
}

std::vector<float> product(const std::vector<float>& a, const std::vector<float>& b, int64_t M, int64_t N, int64_t K,
                           bool b_transposed) {
  std::vector<float> c(static_cast<std::size_t>(M * N));
  stax_rt::gemm<float, Isa>(a.data(), K, 1, b.data(), b_transposed ? 1 : N, b_transposed ? K : 1, c.data(), N, M, N, K);
  return c;
}

}  // namespace

void check_determinism() {
  // Each large enough for two threads (gemm_threads), tall, wide, short and one column; the last
  // one splits the rows and shares the packing of B (gemm_block_shared).
  const int64_t shapes[][3] = {{300, 200, 500}, {1, 4096, 2048}, {16, 1000, 600}, {2000, 3, 1000}, {129, 1, 40000},
                               {512, 1024, 1024}};
  uint64_t seed = 700;
  const int threads = omp_get_max_threads();
  for (const auto& s : shapes) {
    const int64_t M = s[0], N = s[1], K = s[2];
    const std::vector<float> a = random_vector<float>(static_cast<std::size_t>(M * K), seed++);
    const std::vector<float> b = random_vector<float>(static_cast<std::size_t>(K * N), seed++);
    for (int bt = 0; bt < 2; ++bt) {
      omp_set_num_threads(1);
      const std::vector<float> one = product(a, b, M, N, K, bt != 0);
      omp_set_num_threads(2);
      const std::vector<float> two = product(a, b, M, N, K, bt != 0);
      const std::vector<float> again = product(a, b, M, N, K, bt != 0);
      omp_set_num_threads(3);
      const std::vector<float> three = product(a, b, M, N, K, bt != 0);
      CHECK(same_bits(one, two) && same_bits(two, again) && same_bits(two, three),
            "M=%lld N=%lld K=%lld: results differ between 1, 2 and 3 threads or between runs",
            static_cast<long long>(M), static_cast<long long>(N), static_cast<long long>(K));
    }
  }
  // B packed ahead (a layer's weights): wide, tall with a small B, tall with a large one. The
  // same bits on 1, 2 and 3 threads.
  const int64_t packed_shapes[][3] = {{64, 2048, 300}, {600, 64, 200}, {300, 512, 1024}};
  const int64_t P = stax_rt::gemm_panel_width<float>(Isa::width);
  for (const auto& s : packed_shapes) {
    const int64_t M = s[0], N = s[1], K = s[2];
    const std::vector<float> a = random_vector<float>(static_cast<std::size_t>(M * K), seed++);
    const std::vector<float> b = random_vector<float>(static_cast<std::size_t>(K * N), seed++);
    std::vector<float> packed(static_cast<std::size_t>(stax_rt::gemm_packed_b_size(K, N, P)));
    stax_rt::gemm_pack_b(b.data(), N, int64_t(1), K, N, P, packed.data());
    std::vector<std::vector<float>> outs;
    for (int t : {1, 2, 3}) {
      omp_set_num_threads(t);
      outs.emplace_back(static_cast<std::size_t>(M * N), 12345.0f);
      stax_rt::gemm_prepacked<float, Isa>(a.data(), K, 1, packed.data(), outs.back().data(), N, M, N, K);
    }
    CHECK(same_bits(outs[0], outs[1]) && same_bits(outs[0], outs[2]),
          "M=%lld N=%lld K=%lld, B packed ahead: results differ between 1, 2 and 3 threads", static_cast<long long>(M),
          static_cast<long long>(N), static_cast<long long>(K));
    check_product<float>("prepacked, 3 threads", {a.data(), K, 1}, {b.data(), N, 1}, outs[2].data(), N, M, N, K);
  }
  omp_set_num_threads(threads);
  // Other blockings and thread counts through gemm_run: the same bits.
  using S = stax_rt::GemmShape<float, Isa>;
  const int64_t M = 150, N = 333, K = 777;
  const std::vector<float> a = random_vector<float>(static_cast<std::size_t>(M * K), 800);
  const std::vector<float> b = random_vector<float>(static_cast<std::size_t>(K * N), 801);
  const std::vector<float> ref = product(a, b, M, N, K, false);
  const int64_t wide_mr = S::mr_short > 0 ? S::mr_short : 1;
  const stax_rt::GemmPlan plans[] = {{S::mr, S::nr, 16, S::mr, S::panel, false},
                                     {S::mr, S::nr, K, 8 * S::mr, 2 * S::panel, true},
                                     {3, S::nr, 100, 30, S::panel, true},
                                     {1, S::nr, 64, 5, 3 * S::panel, false},
                                     {S::mr, S::nr, 256, 20 * S::mr, 64 * S::panel, false},
                                     {wide_mr, S::nr_short, 200, 4 * wide_mr, S::panel, false},
                                     {1, S::nr_short, 50, 7, 2 * S::panel, true},
                                     {S::mr, S::nr, 64, S::mr, S::panel, false}};  // the no-memory fallback
  for (const stax_rt::GemmPlan& plan : plans) {
    for (int t = 1; t <= 3; ++t) {
      std::vector<float> c(static_cast<std::size_t>(M * N));
      stax_rt::gemm_run<float, Isa>(plan, t, {a.data(), K, 1}, {{b.data(), N, 1}, nullptr}, c.data(), N, M, N, K,
                                    stax_rt::GemmNoEpilogue{});
      CHECK(same_bits(ref, c), "plan mr=%lld kc=%lld mc=%lld nc=%lld direct=%d on %d threads: other bits",
            static_cast<long long>(plan.mr), static_cast<long long>(plan.kc), static_cast<long long>(plan.mc),
            static_cast<long long>(plan.nc), static_cast<int>(plan.direct_b), t);
    }
  }
}

void check_long_dots() {
  // 4096-long dot products: mixed signs, all positive, and a wide dynamic range.
  const int64_t M = 3, N = 5, K = 4096;
  for (int kind = 0; kind < 3; ++kind) {
    std::vector<float> a = random_vector<float>(static_cast<std::size_t>(M * K), 900 + kind);
    std::vector<float> b = random_vector<float>(static_cast<std::size_t>(K * N), 950 + kind);
    for (std::size_t i = 0; i < a.size(); ++i) {
      if (kind == 1) a[i] = std::fabs(a[i]), b[i % b.size()] = std::fabs(b[i % b.size()]);
      if (kind == 2) a[i] = std::ldexp(a[i], static_cast<int>(i % 41) - 20);
    }
    std::vector<float> c(static_cast<std::size_t>(M * N));
    stax_rt::gemm<float, Isa>(a.data(), K, 1, b.data(), N, 1, c.data(), N, M, N, K);
    check_product<float>("dot 4096", {a.data(), K, 1}, {b.data(), N, 1}, c.data(), N, M, N, K);
  }
  // One row by one column of 4096 (the matrix-vector path) and one element.
  const std::vector<float> a = random_vector<float>(4096 * 64, 990);
  const std::vector<float> x = random_vector<float>(4096, 991);
  std::vector<float> y(64);
  stax_rt::gemm<float, Isa>(a.data(), K, 1, x.data(), 1, 1, y.data(), 1, 64, 1, K);
  check_product<float>("matrix-vector 4096", {a.data(), K, 1}, {x.data(), 1, 1}, y.data(), 1, 64, 1, K);
  stax_rt::gemm<float, Isa>(x.data(), K, 1, a.data(), 1, 1, y.data(), 1, 1, 1, K);
  check_product<float>("dot 1x1", {x.data(), K, 1}, {a.data(), 1, 1}, y.data(), 1, 1, 1, K);
}

void check_float64() {
  const int64_t shapes[][3] = {{1, 1, 1}, {7, 17, 3}, {16, 100, 257}, {100, 64, 1000}, {257, 255, 7}, {1, 1000, 64}, {64, 1, 100}};
  uint64_t seed = 1000;
  for (const auto& s : shapes) {
    const int64_t M = s[0], N = s[1], K = s[2];
    const std::vector<double> a = random_vector<double>(static_cast<std::size_t>(M * K), seed++);
    const std::vector<double> b = random_vector<double>(static_cast<std::size_t>(K * N), seed++);
    std::vector<double> c(static_cast<std::size_t>(M * N));
    stax_rt::gemm<double, Isa>(a.data(), K, 1, b.data(), 1, K, c.data(), N, M, N, K);
    check_product<double>("float64", {a.data(), K, 1}, {b.data(), 1, K}, c.data(), N, M, N, K);
    std::vector<double> d(static_cast<std::size_t>(M * N));
    stax_rt::matmul(a.data(), K, int64_t(1), b.data(), int64_t(1), K, d.data(), M, N, K);
    CHECK(std::memcmp(c.data(), d.data(), c.size() * sizeof(double)) == 0, "float64 matmul differs from gemm");
    const int64_t P = stax_rt::gemm_panel_width<double>(Isa::width);
    std::vector<double> packed(static_cast<std::size_t>(stax_rt::gemm_packed_b_size(K, N, P)));
    stax_rt::gemm_pack_b(b.data(), int64_t(1), K, K, N, P, packed.data());
    stax_rt::gemm_prepacked<double, Isa>(a.data(), K, 1, packed.data(), d.data(), N, M, N, K);
    CHECK(std::memcmp(c.data(), d.data(), c.size() * sizeof(double)) == 0, "float64 prepacked differs from gemm");
  }
}

void check_special_values() {
  // NaN and infinities flow as in the chain (NaN where it does, the same infinities elsewhere),
  // and the zeros that pad the packed panels never meet them in a stored lane.
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  const int64_t M = 20, N = 37, K = 50;
  std::vector<float> a = random_vector<float>(static_cast<std::size_t>(M * K), 1100);
  std::vector<float> b = random_vector<float>(static_cast<std::size_t>(K * N), 1101);
  a[3 * K + 7] = nan;
  a[19 * K + 49] = inf;
  b[10 * N + 36] = -inf;
  b[0] = nan;
  std::vector<float> c(static_cast<std::size_t>(M * N));
  stax_rt::gemm<float, Isa>(a.data(), K, 1, b.data(), N, 1, c.data(), N, M, N, K);
  int bad = 0;
  for (int64_t i = 0; i < M; ++i) {
    for (int64_t j = 0; j < N; ++j) {
      const float want = chain<float>({a.data(), K, 1}, {b.data(), N, 1}, i, j, K), got = c[i * N + j];
      bad += !(std::isnan(want) ? std::isnan(got) : std::memcmp(&want, &got, sizeof got) == 0);
    }
  }
  CHECK(bad == 0, "special values: %d elements differ from the chain", bad);
  CHECK(std::isnan(c[3 * N + 20]) && std::isnan(c[0]) && std::isinf(c[19 * N + 5]), "NaN and inf where expected");
  // K = 0 (an empty sum; the graph format has none, the entries allow it): zeros.
  std::vector<float> z(6, 5.0f);
  stax_rt::gemm<float, Isa>(a.data(), 0, 1, b.data(), 3, 1, z.data(), 3, 2, 3, 0);
  CHECK(z[0] == 0 && z[5] == 0, "K = 0 gives zeros");
  std::vector<float> zb(12, 5.0f);
  const int64_t shape[1] = {2}, no_stride[1] = {0};
  stax_rt::gemm_batched<float, Isa>(1, shape, a.data(), no_stride, 0, 1, b.data(), no_stride, 3, 1, zb.data(), 6, 3, 2, 3, 0);
  CHECK(zb[0] == 0 && zb[11] == 0, "K = 0 gives zeros, batched");
}

namespace {

template <typename T> void integer_case(int64_t M, int64_t N, int64_t K, uint64_t seed) {
  using U = std::make_unsigned_t<T>;
  std::vector<T> a = random_vector<T>(static_cast<std::size_t>(M * K), seed);
  std::vector<T> b = random_vector<T>(static_cast<std::size_t>(K * N), seed + 1);
  std::vector<T> c(static_cast<std::size_t>(M * N));
  stax_rt::matmul(a.data(), K, int64_t(1), b.data(), int64_t(1), K, c.data(), M, N, K);  // B transposed
  int bad = 0;
  for (int64_t i = 0; i < M; ++i) {
    for (int64_t j = 0; j < N; ++j) {
      U s = 0;  // unsigned arithmetic wraps modulo 2^bits: the two's-complement result
      for (int64_t k = 0; k < K; ++k)
        s = static_cast<U>(s + static_cast<U>(static_cast<U>(a[i * K + k]) * static_cast<U>(b[j * K + k])));
      bad += c[i * N + j] != static_cast<T>(s);
    }
  }
  CHECK(bad == 0, "int%d M=%lld N=%lld K=%lld: %d elements differ from the wrapped sum", static_cast<int>(8 * sizeof(T)),
        static_cast<long long>(M), static_cast<long long>(N), static_cast<long long>(K), bad);
}

}  // namespace

void check_integers() {
  // Full-range values: every product and sum overflows, and must wrap exactly.
  integer_case<int32_t>(7, 9, 13, 1200);
  integer_case<int32_t>(70, 90, 80, 1201);
  integer_case<int64_t>(5, 3, 100, 1202);
  integer_case<int64_t>(40, 70, 33, 1203);
  const bool a[6] = {true, false, false, false, true, true}, b[6] = {false, true, true, false, false, true};
  bool c[4];
  stax_rt::matmul(a, int64_t(3), int64_t(1), b, int64_t(2), int64_t(1), c, 2, 2, 3);  // [2,3] x [3,2]
  CHECK(!c[0] && c[1] && c[2] && c[3], "bool matmul: %d %d %d %d", c[0], c[1], c[2], c[3]);
}

namespace {

template <typename T> void packing_case(int64_t rows, int64_t cols, uint64_t seed) {
  const std::vector<T> src = random_vector<T>(static_cast<std::size_t>(3 * (rows + 1) * (cols + 1)), seed);
  struct Strides {
    int64_t rs, cs;
  };
  const Strides layouts[] = {{cols, 1}, {1, rows}, {2 * cols + 1, 2}, {1, rows + 3}, {cols + 2, 1}};
  using S = stax_rt::GemmShape<T, Isa>;
  for (const Strides& l : layouts) {
    for (const int64_t P : {S::panel, S::nr_short, int64_t(64)}) {  // the widths the GEMM packs with, and another
      const std::size_t nb = static_cast<std::size_t>(stax_rt::gemm_packed_b_size(rows, cols, P));
      std::vector<T> ref(nb, T(7)), fast(nb, T(9));
      stax_rt::gemm_pack_b(src.data(), l.rs, l.cs, rows, cols, P, ref.data());
      stax_rt::gemm_pack_b_fast<T, Isa>(src.data(), l.rs, l.cs, rows, cols, P, fast.data());
      CHECK(std::memcmp(ref.data(), fast.data(), nb * sizeof(T)) == 0, "pack B %lldx%lld P %lld strides %lld,%lld",
            static_cast<long long>(rows), static_cast<long long>(cols), static_cast<long long>(P),
            static_cast<long long>(l.rs), static_cast<long long>(l.cs));
    }
    for (int64_t mr : {int64_t(1), int64_t(3), int64_t(S::mr)}) {
      const std::size_t na = static_cast<std::size_t>(stax_rt::gemm_packed_a_size(rows, cols, mr));
      std::vector<T> aref(na, T(7)), afast(na, T(9));
      stax_rt::gemm_pack_a(src.data(), l.rs, l.cs, rows, cols, mr, aref.data());
      stax_rt::gemm_pack_a_fast<T, Isa>(src.data(), l.rs, l.cs, rows, cols, mr, afast.data());
      CHECK(std::memcmp(aref.data(), afast.data(), na * sizeof(T)) == 0, "pack A %lldx%lld mr %lld strides %lld,%lld",
            static_cast<long long>(rows), static_cast<long long>(cols), static_cast<long long>(mr),
            static_cast<long long>(l.rs), static_cast<long long>(l.cs));
    }
  }
}

}  // namespace

void check_packing() {
  const int64_t sizes[] = {1, 3, 8, 17, 64, 65, 130};
  uint64_t seed = 1300;
  for (int64_t r : sizes)
    for (int64_t c : sizes) {
      packing_case<float>(r, c, seed++);
      packing_case<double>(r, c, seed++);
    }
  // The layout itself: element (k, j) of B at (j / P) P K + k P + j % P, zeros past N; P is two
  // float vectors of the instruction set.
  const int64_t K = 5, N = 70, P = stax_rt::gemm_panel_width<float>(Isa::width), NP = (N + P - 1) / P * P;
  const int64_t tile_width = stax_rt::GemmShape<float, Isa>::nr;
  CHECK(P == 2 * Isa::width && P == tile_width, "panel of %lld floats", static_cast<long long>(P));
  std::vector<float> b(static_cast<std::size_t>(K * N)), packed(static_cast<std::size_t>(stax_rt::gemm_packed_b_size(K, N, P)));
  for (std::size_t i = 0; i < b.size(); ++i) b[i] = static_cast<float>(i + 1);
  stax_rt::gemm_pack_b(b.data(), N, int64_t(1), K, N, P, packed.data());
  int wrong = 0;
  for (int64_t k = 0; k < K; ++k)
    for (int64_t j = 0; j < NP; ++j)
      wrong += packed[static_cast<std::size_t>((j / P) * P * K + k * P + j % P)] != (j < N ? b[static_cast<std::size_t>(k * N + j)] : 0.0f);
  CHECK(packed.size() == static_cast<std::size_t>(K * NP) && wrong == 0, "packed B positions: %d wrong", wrong);
}

void check_plans() {
  const stax_rt::GemmCaches& caches = stax_rt::gemm_caches();
  CHECK(caches.l1 >= (16 << 10) && caches.l2 >= (128 << 10) && caches.l3 >= (1 << 20), "cache sizes %lld %lld %lld",
        static_cast<long long>(caches.l1), static_cast<long long>(caches.l2), static_cast<long long>(caches.l3));
  using S = stax_rt::GemmShape<float, Isa>;
  for (int64_t M : {1, 2, 5, 16, 17, 28, 29, 100, 1000, 100000}) {
    for (int64_t K : {1, 100, 250, 4096}) {
      const stax_rt::GemmPlan p = stax_rt::gemm_plan<float, Isa>(M, 512, K);
      CHECK(p.mr >= 1 && p.mr <= S::mr && p.kc >= 1 && p.mc % p.mr == 0 && p.mc >= p.mr && p.nc % S::panel == 0 &&
                p.nc >= S::panel && (p.kc >= 64 || p.kc == K) && (p.nr == (M <= S::mr_short ? S::nr_short : S::nr)),
            "plan for M=%lld K=%lld: mr %lld kc %lld mc %lld nc %lld", static_cast<long long>(M),
            static_cast<long long>(K), static_cast<long long>(p.mr), static_cast<long long>(p.kc),
            static_cast<long long>(p.mc), static_cast<long long>(p.nc));
    }
  }
  // Other caches give other blocks, and the same bits (check_determinism runs such plans).
  stax_rt::GemmCaches small;
  small.l1 = 16 << 10, small.l2 = 128 << 10, small.l3 = 1 << 20;
  const stax_rt::GemmPlan p = stax_rt::gemm_plan<float, Isa>(1000, 1000, 1000, false, small);
  CHECK(p.kc >= 64 && p.mc >= p.mr && p.nc >= S::panel, "plan for small caches");
  // Two threads on 22 x 16 tiles of 6 x 16 (BERT's 128 x 256 products on AVX2): B packed at run
  // time splits the columns (each thread packs only its own); packed ahead, the rows (each packs
  // only its rows of A).
  const stax_rt::GemmGrid run_time = stax_rt::gemm_grid(22, 16, 6, 16, 2);
  const stax_rt::GemmGrid ahead = stax_rt::gemm_grid(22, 16, 6, 16, 2, true);
  CHECK(run_time.tm == 1 && run_time.tn == 2 && ahead.tm == 2 && ahead.tn == 1, "grids %d x %d and %d x %d", run_time.tm,
        run_time.tn, ahead.tm, ahead.tn);
}

}  // namespace gemm_checks
