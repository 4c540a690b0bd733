// Memory problems for the tests: a small builder, and seeded generators of random DAGs and of
// network-shaped graphs (chains, residual blocks, wide branches).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "stax/memory/problem.h"

namespace stax::memory::testing {

class ProblemBuilder {
 public:
  int input(const std::string& name, std::uint64_t bytes, DType dt = DType::Float32) {
    return buffer(name, bytes, BufferRole::Input, dt);
  }
  int constant(const std::string& name, std::uint64_t bytes, DType dt = DType::Float32) {
    return buffer(name, bytes, BufferRole::Constant, dt);
  }
  int intermediate(const std::string& name, std::uint64_t bytes, DType dt = DType::Float32) {
    return buffer(name, bytes, BufferRole::Intermediate, dt);
  }
  int output(const std::string& name, std::uint64_t bytes, DType dt = DType::Float32) {
    return buffer(name, bytes, BufferRole::Output, dt);
  }
  int buffer(const std::string& name, std::uint64_t bytes, BufferRole role, DType dt) {
    p.buffers.push_back({static_cast<int>(p.buffers.size()), name, dt, bytes, role});
    return static_cast<int>(p.buffers.size()) - 1;
  }
  int step(const std::string& name, std::vector<int> defines, std::vector<int> reads,
           std::vector<InPlaceCandidate> inplace = {}, std::vector<int> after = {}) {
    p.steps.push_back({name, std::move(defines), std::move(reads), std::move(after), std::move(inplace)});
    return static_cast<int>(p.steps.size()) - 1;
  }
  MemoryProblem p;
};

// A random DAG of `steps` steps: one to three inputs, a constant or two, each step defining one
// or two buffers (some graph outputs) from a small set of sizes and dtypes and reading one to
// three earlier buffers, mostly recent ones; in-place candidates for most reads that match the
// write in dtype and size and a few that do not (which the planner must refuse); a few ordering
// edges. Valid by construction.
MemoryProblem random_problem(std::uint64_t seed, int steps);

// A network-shaped graph: a sequence of blocks (plain layers, residual blocks, blocks of 2-4
// parallel branches joined by a sum), activation sizes multiples of 64 drawn per block, the
// elementwise steps offering in-place candidates as a lowering would.
MemoryProblem network_problem(std::uint64_t seed, int blocks);

}  // namespace stax::memory::testing
