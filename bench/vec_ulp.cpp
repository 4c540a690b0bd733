// The accuracy of the vector layer's inline float32 exp, erf and tanh over every float32 input
// (the figures quoted in lib/codegen/runtime/stax_vec.h and docs/generated-code.md), against
// double std::exp, std::erf and std::tanh, in ULPs of the float32 binade of the reference (the
// subnormal ULP below FLT_MIN); a result that must round to +-inf must be +-inf, a NaN reference
// must give a NaN.
// It also checks that exp's fast path (every lane |x| < 86) gives the general path's bits.
//
//   g++ -std=c++17 -O2 -march=native -fopenmp -I lib/codegen/runtime bench/vec_ulp.cpp -lsleef -o vec_ulp
//   ./vec_ulp            (about 3 minutes on one core; exit status 1 if a bound is exceeded)
#include "stax_vec.h"

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>

namespace {

using Isa = stax_rt::IsaNative;
using VF = stax_rt::Vec<float, Isa>;
using VI = stax_rt::Vec<int32_t, Isa>;
constexpr int W = Isa::width;

double ulp_error(float got, double want) {
  const float rounded = static_cast<float>(want);
  if (std::isnan(want)) return std::isnan(got) ? 0.0 : INFINITY;
  if (std::isinf(rounded) || std::isinf(got)) return got == rounded ? 0.0 : INFINITY;
  int e = 0;
  std::frexp(std::fabs(want) < FLT_MIN ? FLT_MIN : std::fabs(want), &e);
  return std::fabs(static_cast<double>(got) - want) / std::ldexp(1.0, e - 24);
}

struct Worst {
  double ulp = 0.0;
  float at = 0.0f;
  void see(double u, float x) {
    if (u > ulp) ulp = u, at = x;
  }
};

// exp's general path, written out: p * 2^(n>>1) * 2^(n - (n>>1)) (stax_vec.h).
VF exp_general(VF x) {
  const auto s = stax_rt::exp_split_f32(x);
  const VI m = s.n + VI(254), e1 = stax_rt::shift_right_arith(m, 1);
  return s.p * stax_rt::bit_cast_f32(stax_rt::shift_left(e1, 23)) * stax_rt::bit_cast_f32(stax_rt::shift_left(m - e1, 23));
}

}  // namespace

int main() {
  Worst exp_worst, erf_worst, tanh_worst;
  long fast_vectors = 0, fast_mismatches = 0;
  for (uint64_t base = 0; base < (uint64_t{1} << 32); base += W) {
    alignas(64) uint32_t bits[W];
    for (int i = 0; i < W; ++i) bits[i] = static_cast<uint32_t>(base + static_cast<uint64_t>(i));
    const VF x = stax_rt::bit_cast_f32(VI::loadu(reinterpret_cast<const int32_t*>(bits)));
    alignas(64) float xs[W], e[W], f[W], h[W];
    x.storeu(xs);
    stax_rt::exp(x).storeu(e);
    stax_rt::erf(x).storeu(f);
    stax_rt::tanh(x).storeu(h);
    for (int i = 0; i < W; ++i) {
      exp_worst.see(ulp_error(e[i], std::exp(static_cast<double>(xs[i]))), xs[i]);
      erf_worst.see(ulp_error(f[i], std::erf(static_cast<double>(xs[i]))), xs[i]);
      tanh_worst.see(ulp_error(h[i], std::tanh(static_cast<double>(xs[i]))), xs[i]);
    }
    if (stax_rt::all(stax_rt::abs(x) < VF(86.0f))) {
      alignas(64) float g[W];
      exp_general(x).storeu(g);
      ++fast_vectors;
      if (std::memcmp(e, g, sizeof e) != 0) ++fast_mismatches;
    }
  }
  std::printf("exp: at most %.4f ULP (at %.9g)\n", exp_worst.ulp, static_cast<double>(exp_worst.at));
  std::printf("erf: at most %.4f ULP (at %.9g)\n", erf_worst.ulp, static_cast<double>(erf_worst.at));
  std::printf("tanh: at most %.4f ULP (at %.9g)\n", tanh_worst.ulp, static_cast<double>(tanh_worst.at));
  std::printf("exp fast path: %ld vectors with every |x| < 86, %ld differ from the general path\n", fast_vectors,
              fast_mismatches);
  return exp_worst.ulp <= 1.0 && erf_worst.ulp <= 1.0 && tanh_worst.ulp <= 1.0 && fast_mismatches == 0 ? 0 : 1;
}
