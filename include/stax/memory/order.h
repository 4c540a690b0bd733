// Orders of the steps and their memory (Definition 7.5, Proposition 7.4, §7.6 steps 5-6).
// Finding an order of least peak is NP-complete (Proposition 7.4), so the planner tries the
// three heuristic orders of §7.5 next to the given one and keeps the best by M*.
#pragma once

#include <cstdint>
#include <vector>

#include "stax/memory/plan.h"
#include "stax/memory/problem.h"

namespace stax::memory {

// True when `order` lists every step once and each after its predecessors.
bool is_topological(const MemoryProblem& p, const std::vector<int>& order);

// Lifetime of every buffer under `order` (see Lifetime). The last users come from one reverse
// scan of the order (§7.6 step 6): the first step met that reads a buffer is its last user.
std::vector<Lifetime> lifetimes(const MemoryProblem& p, const std::vector<int>& order);

// M* (Definition 7.5) over the intermediates: the largest sum of the sizes of the intermediates
// live at one step, in one linear scan.
std::uint64_t peak_memory(const MemoryProblem& p, const std::vector<int>& order);

// The occupancy (sum of live intermediate sizes) at each position of `order`.
std::vector<std::uint64_t> memory_profile(const MemoryProblem& p, const std::vector<int>& order);

// The three orders of §7.5 (all topological; ties broken by position in the given order):
// - least memory increase first: at each step, of the ready steps the one whose bytes defined
//   minus bytes it frees (intermediates whose last reader it is) is smallest, then the one that
//   allocates least, then the earliest;
// - breadth-first by predecessor positions: of the ready steps the one whose predecessors ran
//   earliest (their positions in the new order, latest first, compared lexicographically), a FIFO
//   that keeps producers and consumers close;
// - depth-first by ascending size: steps visited by ascending bytes defined plus bytes read, each
//   after its predecessors, visited in the same ascending order, so a consumer follows its
//   producers closely and small branches finish before large ones start.
std::vector<int> order_least_increase(const MemoryProblem& p);
std::vector<int> order_breadth_first(const MemoryProblem& p);
std::vector<int> order_depth_first(const MemoryProblem& p);

// The given order and, when `reorder`, the three above, each with its peak.
std::vector<OrderCandidate> order_candidates(const MemoryProblem& p, bool reorder);

// Index into `candidates` of the smallest peak; the first such (so the given order on a tie).
std::size_t best_candidate(const std::vector<OrderCandidate>& candidates);

}  // namespace stax::memory
