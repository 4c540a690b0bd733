// The questions the kernel planner asks of a kernel's nodes (internal to the stage).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "stax/kernelplan/access.h"
#include "stax/kernelplan/plan.h"

namespace stax::kernelplan::detail {

// What one kernel is planned with.
struct KernelContext {
  const ir::Program& p;
  const scheduler::Kernel& k;
  const Locals& locals;
  bool vector;  // the instruction set has vector lanes

  std::size_t depth() const { return k.outer.size(); }
  const scheduler::KernelNode& node(int idx) const { return k.nodes[static_cast<std::size_t>(idx)]; }
  const ir::Buffer& buffer_of(int idx) const { return p[node(idx).buffer]; }
  bool in_memory(BufferId id) const { return locals.where[static_cast<std::size_t>(id)] == Locality::Memory; }
};

// Empty when every node of `nodes` has a vector form along `var` (each load contiguous or
// invariant in it, transposed reads staged through `tiles` counting as contiguous; with `even`,
// a load from memory of stride 2 too, as two loads and a shuffle: stax_rt::load_even) and stores
// its value contiguously (a value kept in a register keeps its lanes whatever its index); else
// why not, one line.
std::string why_not_vector(const KernelContext& c, const std::vector<int>& nodes, ir::Var var, int64_t trip,
                           const std::vector<Tile>& tiles = {}, bool even = false);

// Whether node `idx` of a kernel over [n, c, oh, ow] computes the same at (oh, ow) as at
// (0, oh * OW + ow): every index it reads or writes (and every index value) linear in x2 and x3
// with the coefficient of x2 OW times that of x3, OW the extent of x3.
bool flat_positions(const KernelContext& c, int idx);

// True when a reduction buffer has a vector accumulator (Proposition 8.1: W lanes combined at the
// end): sum, prod, max, min of a value of its own dtype (not bool), any, all, argmax, argmin.
bool has_vector_accumulator(const ir::Buffer& b);

// The streamed store of a vector loop over `var` of `nodes`, or why there is none: the loop
// stores one buffer to memory, of kStreamMinBytes or more, not bool, that leaves the kernel and
// that no later group reads, contiguously along `var`.
std::optional<Stream> stream_store(const KernelContext& c, const std::vector<int>& nodes, ir::Var var,
                                   std::string& reason);

// Adds the prefetch (buffer, at, stride) unless it is there already.
void add_prefetch(std::vector<Prefetch>& list, BufferId buffer, const ir::Index& at, int64_t stride);

// A buffer's bytes.
int64_t bytes_of(const ir::Buffer& b);

}  // namespace stax::kernelplan::detail
