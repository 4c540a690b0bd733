#include "problems.h"

#include <algorithm>

#include "stax/support/random.h"

namespace stax::memory::testing {

namespace {

int pick(Rng& rng, int lo, int hi) { return static_cast<int>(rng.uniform_int(lo, hi)); }

}  // namespace

MemoryProblem random_problem(std::uint64_t seed, int steps) {
  Rng rng(seed, 7);
  ProblemBuilder b;
  const std::uint64_t sizes[] = {12, 64, 100, 256, 256, 1024, 1024, 4096, 0};
  const DType dtypes[] = {DType::Float32, DType::Float32, DType::Float64, DType::Int32};
  auto size = [&] { return sizes[pick(rng, 0, 8)]; };
  auto dtype = [&] { return dtypes[pick(rng, 0, 3)]; };
  std::vector<int> avail;
  for (int i = pick(rng, 1, 3); i > 0; --i) avail.push_back(b.input("in" + std::to_string(avail.size()), size(), dtype()));
  for (int i = pick(rng, 0, 2); i > 0; --i) avail.push_back(b.constant("c" + std::to_string(avail.size()), size(), dtype()));
  for (int s = 0; s < steps; ++s) {
    std::vector<int> reads;
    for (int r = pick(rng, 1, 3); r > 0; --r) {
      // Mostly one of the last few buffers, sometimes any earlier one.
      const int n = static_cast<int>(avail.size());
      const int i = rng.uniform() < 0.7 ? std::max(0, n - 1 - pick(rng, 0, 3)) : pick(rng, 0, n - 1);
      reads.push_back(avail[static_cast<std::size_t>(i)]);
    }
    std::vector<int> defines;
    std::vector<InPlaceCandidate> inplace;
    for (int d = rng.uniform() < 0.8 ? 1 : 2; d > 0; --d) {
      const std::string name = "b" + std::to_string(b.p.buffers.size());
      // Often the size and dtype of something read, so that reuse and in place have matches.
      int w;
      if (rng.uniform() < 0.6) {
        const MemBuffer& like = b.p.buffers[static_cast<std::size_t>(reads[static_cast<std::size_t>(pick(rng, 0, static_cast<int>(reads.size()) - 1))])];
        w = b.buffer(name, like.bytes, rng.uniform() < 0.1 ? BufferRole::Output : BufferRole::Intermediate, like.dtype);
      } else {
        w = b.buffer(name, size(), rng.uniform() < 0.1 ? BufferRole::Output : BufferRole::Intermediate, dtype());
      }
      defines.push_back(w);
      for (int r : reads) {
        const MemBuffer& rb = b.p.buffers[static_cast<std::size_t>(r)];
        const MemBuffer& wb = b.p.buffers[static_cast<std::size_t>(w)];
        const bool match = rb.dtype == wb.dtype && rb.bytes == wb.bytes;
        if ((match && rng.uniform() < 0.7) || (!match && rng.uniform() < 0.1)) inplace.push_back({r, w});
      }
    }
    // Sometimes a step reads what it defines itself (a fused kernel materializing an input of
    // its own later part).
    if (rng.uniform() < 0.05) reads.push_back(defines.front());
    std::vector<int> after;
    if (s > 0 && rng.uniform() < 0.1) after.push_back(pick(rng, 0, s - 1));
    b.step("k" + std::to_string(s), defines, reads, inplace, after);
    for (int d : defines) avail.push_back(d);
  }
  // The last buffer is a graph output, as in every graph.
  b.p.buffers.back().role = BufferRole::Output;
  return b.p;
}

MemoryProblem network_problem(std::uint64_t seed, int blocks) {
  Rng rng(seed, 11);
  ProblemBuilder b;
  auto act = [&] { return static_cast<std::uint64_t>(64 * (1 << pick(rng, 4, 10)) * pick(rng, 1, 3)); };
  std::uint64_t width = act();
  int x = b.input("x", width);
  int k = 0;
  auto layer = [&](int in, std::uint64_t out_bytes) {
    // A matmul-like step into a fresh buffer, then an elementwise step (bias, activation)
    // that may write in place.
    const int mm = b.intermediate("mm" + std::to_string(k), out_bytes);
    b.step("matmul" + std::to_string(k), {mm}, {in, b.constant("w" + std::to_string(k), 4096)});
    const int act_out = b.intermediate("act" + std::to_string(k), out_bytes);
    b.step("act" + std::to_string(k), {act_out}, {mm}, {{mm, act_out}});
    ++k;
    return act_out;
  };
  for (int i = 0; i < blocks; ++i) {
    const int kind = pick(rng, 0, 2);
    if (kind == 0) {
      width = act();
      x = layer(x, width);
    } else if (kind == 1) {
      // Residual: y = x + f(g(x)).
      const int h = layer(x, act());
      const int f = layer(h, width);
      const int sum = b.intermediate("res" + std::to_string(k++), width);
      b.step("add" + std::to_string(k), {sum}, {x, f}, {{x, sum}, {f, sum}});
      x = sum;
    } else {
      // Parallel branches of different depths, then a sum of them.
      std::vector<int> ends;
      for (int br = pick(rng, 2, 4); br > 0; --br) {
        int y = layer(x, act());
        for (int d = pick(rng, 0, 2); d > 0; --d) y = layer(y, act());
        ends.push_back(layer(y, width));
      }
      const int sum = b.intermediate("join" + std::to_string(k++), width);
      std::vector<InPlaceCandidate> cands;
      for (int e : ends) cands.push_back({e, sum});
      b.step("join" + std::to_string(k), {sum}, ends, cands);
      x = sum;
    }
  }
  b.p.buffers[static_cast<std::size_t>(x)].role = BufferRole::Output;
  return b.p;
}

}  // namespace stax::memory::testing
