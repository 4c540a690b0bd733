// Deterministic random data for generated inputs: the same seed gives the same bytes on every
// machine (own generator and transforms; no std:: distributions, whose output is unspecified).
#pragma once

#include <cstdint>
#include <optional>

#include "stax/support/tensor.h"

namespace stax {

// xoshiro256** (Blackman and Vigna), its state filled by splitmix64 from (seed, stream). Each
// (seed, stream) pair is an independent sequence.
class Rng {
 public:
  explicit Rng(uint64_t seed, uint64_t stream = 0);

  uint64_t next();
  // Uniform in [0, 1), a multiple of 2^-53.
  double uniform();
  // Uniform integer in [lo, hi] (lo <= hi), without modulo bias.
  int64_t uniform_int(int64_t lo, int64_t hi);
  // Standard normal, Box-Muller in double; each pair of uniforms gives two values in turn.
  double normal();
  // A fair coin.
  bool coin();

 private:
  uint64_t s_[4];
  std::optional<double> spare_normal_;
};

// Floats standard normal, ints uniform in [-8, 8], bools a fair coin, drawn in row-major order
// from Rng(seed, stream). `stream` separates the inputs of one graph (the CLI derives it from
// the input's position).
Tensor random_tensor(DType dtype, const Shape& shape, uint64_t seed, uint64_t stream);

}  // namespace stax
