// Shared pieces of the GEMM checks (gemm_checks_*.cpp), compiled once per instruction set like
// the vector-layer checks (test/codegen/CMakeLists.txt): with the set's flags and STAX_ISA_<SET>
// defined, so that stax_rt::IsaNative is the pinned set. Nothing here runs before
// gemm_test_main.cpp has checked that the CPU has the set.
#pragma once

#include "stax_gemm.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <vector>

namespace gemm_checks {

using Isa = stax_rt::IsaNative;

// Counters (defined in gemm_test_main.cpp).
extern "C" int stax_gemm_checks_run;
extern "C" int stax_gemm_checks_failed;

inline bool report(bool ok, const char* file, int line, const char* what) {
  ++stax_gemm_checks_run;
  if (ok) return true;
  ++stax_gemm_checks_failed;
  if (stax_gemm_checks_failed <= 40) std::printf("%s:%d: check failed: %s\n", file, line, what);
  return false;
}

// CHECK(cond, fmt, ...): on failure prints the condition and the formatted context.
#define CHECK(cond, ...)                                                      \
  do {                                                                        \
    if (!::gemm_checks::report((cond), __FILE__, __LINE__, #cond) &&          \
        ::gemm_checks::stax_gemm_checks_failed <= 40) {                       \
      std::printf("    ");                                                    \
      std::printf(__VA_ARGS__);                                               \
      std::printf("\n");                                                      \
    }                                                                         \
  } while (0)

// A deterministic generator of values in [-1, 1) (multiples of 2^-12: products and short sums are
// exact, long ones are not).
struct Rng {
  uint64_t s;
  explicit Rng(uint64_t seed) : s(seed * 0x9E3779B97F4A7C15ull + 1) {}
  uint64_t next() {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    return s;
  }
  double uniform() { return static_cast<double>(static_cast<int64_t>(next() >> 40) % 4096) / 4096.0; }
  template <typename T> T value() {
    if constexpr (std::is_floating_point_v<T>) {
      const double u = static_cast<double>(next() >> 11) * 0x1.0p-53;  // [0, 1), full precision
      return static_cast<T>(2 * u - 1);
    } else {
      return static_cast<T>(next());
    }
  }
};

template <typename T> std::vector<T> random_vector(std::size_t n, uint64_t seed) {
  Rng r(seed);
  std::vector<T> v(n);
  for (T& x : v) x = r.value<T>();
  return v;
}

// The multiply-add of the instruction set's kernels: fused on the vector sets; on the scalar set
// fused when the compiler targets FMA, else rounded twice (stax_rt::fma of isa/scalar.h).
template <typename T> inline T isa_fma(T a, T b, T c) {
  if constexpr (stax_rt::is_simd<Isa>) return std::fma(a, b, c);
#if defined(__FMA__)
  return std::fma(a, b, c);
#else
  return a * b + c;
#endif
}

// A matrix operand by element strides.
template <typename T> struct Operand {
  const T* p;
  int64_t rs, cs;
  T at(int64_t r, int64_t c) const { return p[r * rs + c * cs]; }
};

// What the GEMM promises bit for bit: each element the chain c = fma(a_k, b_k, c), k increasing.
template <typename T> T chain(Operand<T> a, Operand<T> b, int64_t i, int64_t j, int64_t K) {
  T c = T(0);
  for (int64_t k = 0; k < K; ++k) c = isa_fma(a.at(i, k), b.at(k, j), c);
  return c;
}

// The exact product, nearly (float in double, double in long double), and sum |a||b|.
template <typename T> struct Exact {
  long double value, abs_sum;
};
template <typename T> Exact<T> exact(Operand<T> a, Operand<T> b, int64_t i, int64_t j, int64_t K) {
  long double s = 0, m = 0;
  for (int64_t k = 0; k < K; ++k) {
    const long double p = static_cast<long double>(a.at(i, k)) * static_cast<long double>(b.at(k, j));
    s += p;
    m += std::fabs(p);
  }
  return {s, m};
}

// The documented bound (docs/graph-format.md, Precise rules): |c - exact| <= gamma_K sum |a||b|,
// gamma_K = K u / (1 - K u), u the unit roundoff of T (2^-24 for float32, 2^-53 for float64).
template <typename T> long double error_bound(int64_t K, long double abs_sum) {
  const long double u = std::numeric_limits<T>::epsilon() / 2;
  return K * u / (1 - K * u) * abs_sum;
}

// Checks every element of C (M x N, row stride ldc) bit for bit against the chain and within the
// bound of the exact product; returns the number of elements that failed.
template <typename T>
int check_product(const char* what, Operand<T> a, Operand<T> b, const T* c, int64_t ldc, int64_t M, int64_t N,
                  int64_t K) {
  int bad = 0;
  for (int64_t i = 0; i < M; ++i) {
    for (int64_t j = 0; j < N; ++j) {
      const T got = c[i * ldc + j], want = chain(a, b, i, j, K);
      const Exact<T> e = exact(a, b, i, j, K);
      const bool same = std::memcmp(&got, &want, sizeof(T)) == 0;
      const bool within = std::fabs(static_cast<long double>(got) - e.value) <= error_bound<T>(K, e.abs_sum);
      if (!same || !within) {
        if (bad == 0)
          CHECK(false, "%s M=%lld N=%lld K=%lld: C[%lld][%lld] = %.9g, chain %.9g, exact %.9Lg (%s)", what,
                static_cast<long long>(M), static_cast<long long>(N), static_cast<long long>(K),
                static_cast<long long>(i), static_cast<long long>(j), static_cast<double>(got),
                static_cast<double>(want), e.value, same ? "outside the bound" : "bits differ");
        ++bad;
      }
    }
  }
  if (bad == 0) CHECK(true, "%s", what);
  return bad;
}

// Families of checks (gemm_checks_*.cpp).
void check_shapes();
void check_layouts();
void check_batched();
void check_prepacked();
void check_epilogues();
void check_determinism();
void check_long_dots();
void check_float64();
void check_special_values();
void check_integers();
void check_packing();
void check_plans();
void check_conv();  // conv_checks.cpp

}  // namespace gemm_checks
