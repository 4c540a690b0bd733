#include "stax/support/random.h"

#include <cmath>
#include <numbers>

#include "stax/support/error.h"

// Only integer arithmetic and IEEE double operations with one rounding each (plus log, cos and
// sin for Box-Muller) reach the output, so a seed gives the same values everywhere. The library
// is built in ISO C++ mode, where g++ does not contract a*b+c into an FMA.

namespace stax {

namespace {

constexpr uint64_t kGolden = 0x9E3779B97F4A7C15ull;

// splitmix64's output function (Steele, Lea and Flood).
uint64_t mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

uint64_t splitmix64(uint64_t& state) {
  state += kGolden;
  return mix64(state);
}

uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

}  // namespace

Rng::Rng(uint64_t seed, uint64_t stream) {
  // Whiten both words so that nearby seeds and streams start far apart, then let splitmix64
  // fill the state (it never yields four zero words from one sequence).
  uint64_t sm = mix64(seed) ^ mix64(stream + kGolden);
  for (uint64_t& word : s_) word = splitmix64(sm);
}

uint64_t Rng::next() {
  uint64_t result = rotl(s_[1] * 5, 7) * 9;
  uint64_t t = s_[1] << 17;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = rotl(s_[3], 45);
  return result;
}

double Rng::uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

int64_t Rng::uniform_int(int64_t lo, int64_t hi) {
  STAX_ASSERT(lo <= hi, "uniform_int with an empty range");
  uint64_t span = static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo) + 1;  // 0 means 2^64
  if (span == 0) return static_cast<int64_t>(next());
  // Lemire's multiply-and-reject: the high word of x * span is uniform once the low word's
  // biased band [0, 2^64 mod span) is rejected.
  while (true) {
    unsigned __int128 m = static_cast<unsigned __int128>(next()) * span;
    uint64_t low = static_cast<uint64_t>(m);
    uint64_t threshold = (0 - span) % span;
    if (low >= threshold)
      return static_cast<int64_t>(static_cast<uint64_t>(lo) + static_cast<uint64_t>(m >> 64));
  }
}

double Rng::normal() {
  if (spare_normal_) {
    double z = *spare_normal_;
    spare_normal_.reset();
    return z;
  }
  // u1 in (0, 1] so that log(u1) is finite; u2 in [0, 1).
  double u1 = static_cast<double>((next() >> 11) + 1) * 0x1.0p-53;
  double u2 = uniform();
  double r = std::sqrt(-2.0 * std::log(u1));
  double theta = 2.0 * std::numbers::pi * u2;
  spare_normal_ = r * std::sin(theta);
  return r * std::cos(theta);
}

bool Rng::coin() { return (next() >> 63) != 0; }

Tensor random_tensor(DType dtype, const Shape& shape, uint64_t seed, uint64_t stream) {
  Tensor t(dtype, shape);
  Rng rng(seed, stream);
  int64_t n = t.numel();
  switch (dtype) {
    case DType::Float32:
      for (int64_t i = 0; i < n; ++i) t.data_as<float>()[i] = static_cast<float>(rng.normal());
      return t;
    case DType::Float64:
      for (int64_t i = 0; i < n; ++i) t.data_as<double>()[i] = rng.normal();
      return t;
    case DType::Int32:
      for (int64_t i = 0; i < n; ++i) t.data_as<int32_t>()[i] = static_cast<int32_t>(rng.uniform_int(-8, 8));
      return t;
    case DType::Int64:
      for (int64_t i = 0; i < n; ++i) t.data_as<int64_t>()[i] = rng.uniform_int(-8, 8);
      return t;
    case DType::Bool:
      for (int64_t i = 0; i < n; ++i) t.data()[i] = rng.coin() ? 1 : 0;
      return t;
  }
  return t;
}

}  // namespace stax
