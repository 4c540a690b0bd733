// Shared pieces of the vector-layer checks (vec_checks_*.cpp). Those files are compiled once per
// instruction set (test/codegen/CMakeLists.txt) with the set's flags and STAX_ISA_<SET> defined,
// so `V<T>` below is the pinned set's vector. They use no test framework and no standard
// container: the AVX-512 build must not run a single instruction (not even a static
// initializer or an inline template shared with the main program) before vec_test_main.cpp has
// checked that the CPU has AVX-512.
#pragma once

#include "stax_vec.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>

namespace vec_checks {

using Isa = stax_rt::IsaNative;
template <typename T> using V = stax_rt::Vec<T, Isa>;
using M = stax_rt::Mask<Isa>;
constexpr int W = Isa::width;

// Counters (defined in vec_test_main.cpp).
extern "C" int stax_vec_checks_run;
extern "C" int stax_vec_checks_failed;

inline bool report(bool ok, const char* file, int line, const char* what) {
  ++stax_vec_checks_run;
  if (ok) return true;
  ++stax_vec_checks_failed;
  if (stax_vec_checks_failed <= 60) std::printf("%s:%d: check failed: %s\n", file, line, what);
  return false;
}

// CHECK(cond, fmt, ...): on failure prints the condition and the formatted context.
#define CHECK(cond, ...)                                                \
  do {                                                                  \
    if (!::vec_checks::report((cond), __FILE__, __LINE__, #cond) &&     \
        ::vec_checks::stax_vec_checks_failed <= 60) {                   \
      std::printf("    ");                                              \
      std::printf(__VA_ARGS__);                                         \
      std::printf("\n");                                                \
    }                                                                   \
  } while (0)

// Bit-exact equality (NaN payloads and signed zeros included).
template <typename T> inline bool same_bits(T a, T b) { return std::memcmp(&a, &b, sizeof(T)) == 0; }

// Equal values, or both NaN.
template <typename T> inline bool same_value(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    if (a != a) return b != b;
  }
  return a == b && (!std::is_floating_point_v<T> || std::signbit(a) == std::signbit(b));
}

inline double as_double(double x) { return x; }

// Special float values every elementwise check runs through.
template <typename T> inline int special_values(T* out) {
  const T inf = std::numeric_limits<T>::infinity(), nan = std::numeric_limits<T>::quiet_NaN();
  const T list[] = {T(0),   -T(0),  T(1),  T(-1),   T(0.5), T(-0.5), T(1.5),  T(2.5),  T(-2.5), T(3.75),
                    T(-7),  inf,    -inf,  nan,     -nan,   T(1e30), T(-1e30), std::numeric_limits<T>::denorm_min(),
                    std::numeric_limits<T>::max(), std::numeric_limits<T>::lowest(), std::numeric_limits<T>::min(),
                    T(2147483648.0), T(-2147483649.0), T(2147483520.0), T(9.3e18), T(-9.3e18)};
  const int n = static_cast<int>(sizeof list / sizeof list[0]);
  for (int i = 0; i < n; ++i) out[i] = list[i];
  return n;
}

inline int special_values(int32_t* out) {
  const int32_t list[] = {0, 1, -1, 2, -2, 7, -7, 100, 65536, -65536, std::numeric_limits<int32_t>::max(),
                          std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max() - 1,
                          std::numeric_limits<int32_t>::min() + 1, 123456789, -987654321};
  const int n = static_cast<int>(sizeof list / sizeof list[0]);
  for (int i = 0; i < n; ++i) out[i] = list[i];
  return n;
}

inline int special_values(int64_t* out) {
  const int64_t list[] = {0, 1, -1, 2, -2, 7, -7, 4294967296LL, -4294967296LL, 4294967295LL,
                          std::numeric_limits<int64_t>::max(), std::numeric_limits<int64_t>::min(),
                          std::numeric_limits<int32_t>::max(), std::numeric_limits<int32_t>::min(),
                          (int64_t(1) << 53) + 1, -(int64_t(1) << 62) - 3};
  const int n = static_cast<int>(sizeof list / sizeof list[0]);
  for (int i = 0; i < n; ++i) out[i] = list[i];
  return n;
}

// A small deterministic generator (no <random>: see the top of this file).
struct Lcg {
  uint64_t s;
  explicit Lcg(uint64_t seed) : s(seed * 6364136223846793005ULL + 1442695040888963407ULL) {}
  uint64_t next() {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    return s >> 11;
  }
  double uniform(double lo, double hi) { return lo + (hi - lo) * static_cast<double>(next()) / 9007199254740992.0; }
};

// Calls f(V) over in[0, n) in steps of W, the last step a tail through loadu(p, k)/storeu(p, k).
template <typename T, typename F> inline void apply1(F f, const T* in, T* out, int n) {
  int i = 0;
  for (; i + W <= n; i += W) f(V<T>::loadu(in + i)).storeu(out + i);
  if (i < n) f(V<T>::loadu(in + i, n - i)).storeu(out + i, n - i);
}
template <typename T, typename F> inline void apply2(F f, const T* a, const T* b, T* out, int n) {
  int i = 0;
  for (; i + W <= n; i += W) f(V<T>::loadu(a + i), V<T>::loadu(b + i)).storeu(out + i);
  if (i < n) f(V<T>::loadu(a + i, n - i), V<T>::loadu(b + i, n - i)).storeu(out + i, n - i);
}

// Distance in units in the last place of T between `got` and the exact value `ref` (computed
// in long double). Results beyond T's range compare with the correctly rounded value.
template <typename T> inline double ulp_error(T got, long double ref) {
  if (ref != ref) return got != got ? 0.0 : 1e30;
  if (got != got) return 1e30;
  const T rounded = static_cast<T>(ref);
  if (std::isinf(rounded) || std::isinf(got)) return got == rounded ? 0.0 : 1e30;
  int e = 0;
  std::frexp(ref, &e);
  if (e < std::numeric_limits<T>::min_exponent) e = std::numeric_limits<T>::min_exponent;
  const long double ulp = std::ldexp(1.0L, e - std::numeric_limits<T>::digits);
  return static_cast<double>(std::fabs(static_cast<long double>(got) - ref) / ulp);
}

// The check families, one function each (vec_checks_*.cpp).
void check_memory();
void check_masks();
void check_arithmetic();
void check_compare_select();
void check_conversions();
void check_reductions();
void check_transcendentals();
void check_activations();
void check_long_sums();
void check_arg_reductions();
void check_division_and_maps();

}  // namespace vec_checks
