// GEMM checks, float32 products: shapes, operand layouts, batches, pre-packed B, epilogues. Every
// result is compared bit for bit with the chain of fused multiply-adds the GEMM promises
// (stax_gemm_kernel.h) and against the exact product within the documented bound.
#include "gemm_checks.h"

namespace gemm_checks {

namespace {

const int64_t kSizes[] = {1, 2, 3, 7, 16, 17, 64, 100, 255, 257, 1000};

// C = A * B with dense row-major operands through stax_rt::gemm; checks it (every element, or
// every `step`-th row and column of a large product).
int dense_product(int64_t M, int64_t N, int64_t K, uint64_t seed) {
  const std::vector<float> a = random_vector<float>(static_cast<std::size_t>(M * K), seed);
  const std::vector<float> b = random_vector<float>(static_cast<std::size_t>(K * N), seed + 1);
  std::vector<float> c(static_cast<std::size_t>(M * N), -7.0f);
  stax_rt::gemm<float, Isa>(a.data(), K, 1, b.data(), N, 1, c.data(), N, M, N, K);
  return check_product<float>("dense", {a.data(), K, 1}, {b.data(), N, 1}, c.data(), N, M, N, K);
}

}  // namespace

void check_shapes() {
  // Every mix of the sizes up to 2M multiply-adds, then larger ones.
  uint64_t seed = 1;
  for (int64_t M : kSizes)
    for (int64_t N : kSizes)
      for (int64_t K : kSizes)
        if (M * N * K <= (int64_t(1) << 21)) dense_product(M, N, K, seed++);
  dense_product(1000, 257, 64, seed++);
  dense_product(255, 1000, 17, seed++);
  dense_product(100, 100, 1000, seed++);
  // Every height of A from 1 to 64 (the short-A paths and the tile heights), wide and narrow B.
  for (int64_t M = 1; M <= 64; ++M) {
    dense_product(M, 100, 257, seed++);
    dense_product(M, 1000, 64, seed++);
  }
}

void check_layouts() {
  // A and B each row-major, transposed (column-major), or with both strides beyond the dense ones
  // (a slice of a larger array); C with a row stride beyond N, whose gaps stay untouched.
  struct Shape {
    int64_t M, N, K;
  };
  const Shape shapes[] = {{37, 45, 300}, {1, 100, 257}, {64, 17, 1000}, {100, 1, 64}, {16, 257, 255}, {3, 2, 7}};
  uint64_t seed = 100;
  for (const Shape& s : shapes) {
    const int64_t M = s.M, N = s.N, K = s.K, ldc = N + 5;
    const std::vector<float> abuf = random_vector<float>(static_cast<std::size_t>(3 * (M + 1) * (K + 1) + 8), seed++);
    const std::vector<float> bbuf = random_vector<float>(static_cast<std::size_t>(3 * (K + 1) * (N + 2) + 8), seed++);
    const Operand<float> as[] = {{abuf.data(), K, 1}, {abuf.data(), 1, M}, {abuf.data() + 3, 2 * K + 1, 2}};
    const Operand<float> bs[] = {{bbuf.data(), N, 1}, {bbuf.data(), 1, K}, {bbuf.data() + 5, 1, 3 * K}, {bbuf.data(), 2 * N + 3, 2}};
    for (const Operand<float>& a : as) {
      for (const Operand<float>& b : bs) {
        std::vector<float> c(static_cast<std::size_t>(M * ldc), 42.0f);
        stax_rt::gemm<float, Isa>(a.p, a.rs, a.cs, b.p, b.rs, b.cs, c.data(), ldc, M, N, K);
        check_product<float>("strided", a, b, c.data(), ldc, M, N, K);
        bool gaps = true;
        for (int64_t i = 0; i < M; ++i)
          for (int64_t j = N; j < ldc; ++j) gaps = gaps && c[static_cast<std::size_t>(i * ldc + j)] == 42.0f;
        CHECK(gaps, "C's gaps written: M=%lld N=%lld K=%lld", static_cast<long long>(M), static_cast<long long>(N),
              static_cast<long long>(K));
      }
    }
  }
  // By hand: A [2, 3] row-major times B given transposed ([2, 3] stored, read as [3, 2]).
  const float a23[] = {1, 2, 3, 4, 5, 6}, bt[] = {7, 9, 11, 8, 10, 12};
  float c22[4] = {};
  stax_rt::matmul(a23, 3, 1, bt, 1, 3, c22, 2, 2, 3);
  CHECK(c22[0] == 58.0f && c22[1] == 64.0f && c22[2] == 139.0f && c22[3] == 154.0f, "[2,3] x [3,2]: %g %g %g %g",
        static_cast<double>(c22[0]), static_cast<double>(c22[1]), static_cast<double>(c22[2]), static_cast<double>(c22[3]));
  // The generated code's entry: stax_rt::matmul, dense C, A transposed and B strided.
  const int64_t M = 70, N = 90, K = 80;
  const std::vector<float> a = random_vector<float>(static_cast<std::size_t>(M * K), 7);
  const std::vector<float> b = random_vector<float>(static_cast<std::size_t>(2 * K * N), 8);
  std::vector<float> c(static_cast<std::size_t>(M * N));
  stax_rt::matmul(a.data(), 1, M, b.data(), 2 * N, 2, c.data(), M, N, K);
  check_product<float>("matmul", {a.data(), 1, M}, {b.data(), 2 * N, 2}, c.data(), N, M, N, K);
}

void check_batched() {
  // Batch shape [2, 3]: A broadcast along the first dim (3 matrices), B along the second (2).
  struct Case {
    int64_t M, N, K;
  };
  const Case cases[] = {{5, 7, 9}, {128, 128, 64}, {1, 300, 40}, {70, 1, 33}, {300, 200, 150}};
  uint64_t seed = 200;
  for (const Case& s : cases) {
    const int64_t M = s.M, N = s.N, K = s.K;
    const std::vector<float> a = random_vector<float>(static_cast<std::size_t>(3 * M * K), seed++);
    const std::vector<float> b = random_vector<float>(static_cast<std::size_t>(2 * K * N), seed++);
    std::vector<float> c(static_cast<std::size_t>(6 * M * N));
    const int64_t shape[2] = {2, 3}, a_bs[2] = {0, M * K}, b_bs[2] = {K * N, 0};
    stax_rt::gemm_batched<float, Isa>(2, shape, a.data(), a_bs, K, 1, b.data(), b_bs, N, 1, c.data(), M * N, N, M, N, K);
    for (int64_t x0 = 0; x0 < 2; ++x0)
      for (int64_t x1 = 0; x1 < 3; ++x1)
        check_product<float>("batched", {a.data() + x1 * M * K, K, 1}, {b.data() + x0 * K * N, N, 1},
                             c.data() + (x0 * 3 + x1) * M * N, N, M, N, K);
  }
  // Many small products (run across the batches), B transposed per batch.
  const int64_t batches = 64, M = 8, N = 12, K = 10;
  const std::vector<float> a = random_vector<float>(static_cast<std::size_t>(batches * M * K), 300);
  const std::vector<float> b = random_vector<float>(static_cast<std::size_t>(batches * K * N), 301);
  std::vector<float> c(static_cast<std::size_t>(batches * M * N));
  const int64_t shape[1] = {batches}, a_bs[1] = {M * K}, b_bs[1] = {K * N};
  stax_rt::gemm_batched<float, Isa>(1, shape, a.data(), a_bs, K, 1, b.data(), b_bs, 1, K, c.data(), M * N, N, M, N, K);
  for (int64_t x = 0; x < batches; ++x)
    check_product<float>("many batches", {a.data() + x * M * K, K, 1}, {b.data() + x * K * N, 1, K},
                         c.data() + x * M * N, N, M, N, K);
}

void check_prepacked() {
  struct Case {
    int64_t M, N, K;
  };
  const Case cases[] = {{1, 1, 1}, {1, 4096, 300}, {16, 1000, 257}, {100, 65, 1000}, {257, 300, 100}, {3, 7, 2}};
  uint64_t seed = 400;
  const int64_t P = stax_rt::gemm_panel_width<float>(Isa::width);
  for (const Case& s : cases) {
    const int64_t M = s.M, N = s.N, K = s.K;
    const std::vector<float> a = random_vector<float>(static_cast<std::size_t>(M * K), seed++);
    const std::vector<float> b = random_vector<float>(static_cast<std::size_t>(K * N), seed++);
    for (int transposed = 0; transposed < 2; ++transposed) {
      const Operand<float> bop = transposed ? Operand<float>{b.data(), 1, K} : Operand<float>{b.data(), N, 1};
      std::vector<float> packed(static_cast<std::size_t>(stax_rt::gemm_packed_b_size(K, N, P)), 99.0f);
      stax_rt::gemm_pack_b(bop.p, bop.rs, bop.cs, K, N, P, packed.data());
      std::vector<float> c(static_cast<std::size_t>(M * N));
      stax_rt::gemm_prepacked<float, Isa>(a.data(), K, 1, packed.data(), c.data(), N, M, N, K);
      check_product<float>("prepacked", {a.data(), K, 1}, bop, c.data(), N, M, N, K);
    }
  }
}

namespace {

// An epilogue that checks what it is given (final values, a tile of at most MR x NR elements,
// each element once) and applies relu(c + bias[j]).
struct BiasRelu {
  Operand<float> a, b;
  int64_t K, M, N;
  const float* bias;
  int* hits;
  int* wrong;
  void operator()(int64_t i0, int64_t i1, int64_t j0, int64_t j1, float* c, int64_t ldc) const {
    using S = stax_rt::GemmShape<float, Isa>;
    const int64_t tile = std::max<int64_t>(S::mr * S::nr, S::mr_short * S::nr_short);
    if (i0 < 0 || i1 > M || j0 < 0 || j1 > N || i1 <= i0 || j1 <= j0 || (i1 - i0) * (j1 - j0) > tile) {
      ++*wrong;
      return;
    }
    for (int64_t i = i0; i < i1; ++i) {
      for (int64_t j = j0; j < j1; ++j) {
        float& x = c[(i - i0) * ldc + (j - j0)];
        const float want = chain(a, b, i, j, K);
        if (std::memcmp(&x, &want, sizeof x) != 0) ++*wrong;
        ++hits[i * N + j];
        x = std::max(x + bias[j], 0.0f);
      }
    }
  }
};

void epilogue_case(int64_t M, int64_t N, int64_t K, bool prepacked, uint64_t seed) {
  const std::vector<float> a = random_vector<float>(static_cast<std::size_t>(M * K), seed);
  const std::vector<float> b = random_vector<float>(static_cast<std::size_t>(K * N), seed + 1);
  const std::vector<float> bias = random_vector<float>(static_cast<std::size_t>(N), seed + 2);
  std::vector<float> c(static_cast<std::size_t>(M * N));
  std::vector<int> hits(static_cast<std::size_t>(M * N), 0);
  int wrong = 0;
  const BiasRelu ep{{a.data(), K, 1}, {b.data(), N, 1}, K, M, N, bias.data(), hits.data(), &wrong};
  if (prepacked) {
    const int64_t P = stax_rt::gemm_panel_width<float>(Isa::width);
    std::vector<float> packed(static_cast<std::size_t>(stax_rt::gemm_packed_b_size(K, N, P)));
    stax_rt::gemm_pack_b(b.data(), N, int64_t(1), K, N, P, packed.data());
    stax_rt::gemm_prepacked<float, Isa>(a.data(), K, 1, packed.data(), c.data(), N, M, N, K, ep);
  } else {
    stax_rt::gemm<float, Isa>(a.data(), K, 1, b.data(), N, 1, c.data(), N, M, N, K, ep);
  }
  int once = 0, final_ok = 0;
  for (int64_t i = 0; i < M; ++i) {
    for (int64_t j = 0; j < N; ++j) {
      once += hits[static_cast<std::size_t>(i * N + j)] == 1;
      const float want = std::max(chain<float>({a.data(), K, 1}, {b.data(), N, 1}, i, j, K) + bias[j], 0.0f);
      final_ok += std::memcmp(&c[static_cast<std::size_t>(i * N + j)], &want, sizeof want) == 0;
    }
  }
  CHECK(wrong == 0, "epilogue M=%lld N=%lld K=%lld: %d bad blocks or values before it ran", static_cast<long long>(M),
        static_cast<long long>(N), static_cast<long long>(K), wrong);
  CHECK(once == M * N, "epilogue M=%lld N=%lld K=%lld: %lld of %lld elements seen exactly once",
        static_cast<long long>(M), static_cast<long long>(N), static_cast<long long>(K), static_cast<long long>(once),
        static_cast<long long>(M * N));
  CHECK(final_ok == M * N, "epilogue M=%lld N=%lld K=%lld: %d results differ from relu(chain + bias)",
        static_cast<long long>(M), static_cast<long long>(N), static_cast<long long>(K), static_cast<int>(M * N - final_ok));
}

}  // namespace

void check_epilogues() {
  uint64_t seed = 500;
  // Small, short-A, one column (computed transposed), several K and N blocks, large.
  const int64_t shapes[][3] = {{1, 1, 1}, {5, 7, 3}, {16, 300, 500}, {100, 1, 70}, {1, 5000, 64},
                               {257, 255, 1000}, {600, 9000, 20}, {64, 64, 64}};
  for (const auto& s : shapes) {
    epilogue_case(s[0], s[1], s[2], false, seed);
    epilogue_case(s[0], s[1], s[2], true, seed + 10);
    seed += 20;
  }
  // Batched: the batch index comes first.
  const int64_t M = 9, N = 20, K = 11, batches = 5;
  const std::vector<float> a = random_vector<float>(static_cast<std::size_t>(batches * M * K), 600);
  const std::vector<float> b = random_vector<float>(static_cast<std::size_t>(K * N), 601);
  std::vector<float> c(static_cast<std::size_t>(batches * M * N));
  const int64_t shape[1] = {batches}, a_bs[1] = {M * K}, b_bs[1] = {0};
  auto add_batch = [&](int64_t x, int64_t i0, int64_t i1, int64_t j0, int64_t j1, float* cx, int64_t ldc) {
    for (int64_t i = i0; i < i1; ++i)
      for (int64_t j = j0; j < j1; ++j) cx[(i - i0) * ldc + (j - j0)] += static_cast<float>(x);
  };
  stax_rt::gemm_batched<float, Isa>(1, shape, a.data(), a_bs, K, 1, b.data(), b_bs, N, 1, c.data(), M * N, N, M, N, K,
                                    add_batch);
  int bad = 0;
  for (int64_t x = 0; x < batches; ++x)
    for (int64_t i = 0; i < M; ++i)
      for (int64_t j = 0; j < N; ++j)
        bad += c[static_cast<std::size_t>((x * M + i) * N + j)] !=
               chain<float>({a.data() + x * M * K, K, 1}, {b.data(), N, 1}, i, j, K) + static_cast<float>(x);
  CHECK(bad == 0, "batched epilogue: %d elements differ", bad);
}

}  // namespace gemm_checks
