// Memory planning (design.md, "Memory"; the chapter's §7.5 and §7.6 steps 5-6): the plan is a
// printable value, the planner a function from a MemoryProblem to it.
//
// What plan_memory does, in order:
//   1. Orders (§7.6 step 5): the given order and three other topological orders of the step DAG
//      (least memory increase first, breadth-first by predecessor positions, depth-first by
//      ascending size of a step and its inputs), each scored by M* (Definition 7.5) in one linear
//      scan. The smallest M* wins; ties keep the earlier candidate, the given order first, so the
//      result is never worse than the given order.
//   2. Lifetimes (§7.6 step 6): the last user of every buffer by a reverse scan of the order; a
//      buffer is live from the position of its defining step through that of its last reader,
//      inclusive (Definition 7.5). M* is taken over the intermediates, the buffers the arena holds.
//   3. Storage (§7.5): scanning the order, an intermediate is written into the memory of a dead
//      input of its step when the step offers that in-place candidate and dtype and byte size
//      match; otherwise it takes a freed storage of the same dtype and byte size from the reuse
//      pool when holding that storage across the gap does not lift the occupancy at any step
//      above the peak that in-place reuse alone reaches (rules 1-2 of §7.5; that peak is at most
//      M*, an in-place pair counting once); otherwise it gets a storage of its own.
//   4. The arena (§7.5, the inference pool): every storage at a fixed, aligned offset of one
//      workspace, packed as a tree of time splits and space splits, largest and longest-lived
//      first. Placing blocks of different sizes is NP-hard (dynamic storage allocation, §7.5), and
//      the tree alone can miss M* by 30% on network-shaped graphs, so best-fit packings over the
//      interval graph with four insertion orders are computed too; the smallest arena wins (ties
//      keep the earlier packer, the tree first). Never larger than the sum of the aligned
//      intermediates.
//   5. The pool against the arena: the storages the reuse pool makes are held across the gaps
//      between their buffers, which can fragment the arena (measured: 10-30% above M* on long
//      network-shaped graphs, against 0-1% without the pool). The chapter offers the inference
//      pool as the more thorough alternative to the reuse pool, so the plan is made both ways and
//      the pool's decisions are kept unless they give a larger arena (ties keep them).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "stax/memory/problem.h"

namespace stax::memory {

// Positions in the plan's order, inclusive. Inputs and constants: def = -1 (before the first
// step). Graph outputs: last = the last position (they outlive the call). A buffer nobody reads
// lives at its defining step only.
struct Lifetime {
  int def = -1;
  int last = -1;
  bool overlaps(const Lifetime& o) const { return def <= o.last && o.def <= last; }
};

enum class OrderStrategy : unsigned char { Original, LeastIncrease, BreadthFirst, DepthFirst };
// "original", "least-increase", "breadth-first", "depth-first".
std::string_view order_strategy_name(OrderStrategy s);

struct OrderCandidate {
  OrderStrategy strategy = OrderStrategy::Original;
  std::vector<int> order;  // step indices in execution order
  std::uint64_t peak = 0;  // M* of this order
};

// How an intermediate got its memory.
enum class Placement : unsigned char {
  None,     // not in the arena (input, constant, output)
  Fresh,    // a storage of its own
  Reuse,    // a freed storage of the same dtype and size from the pool
  InPlace,  // the memory of a dead input of its defining step
};
std::string_view placement_name(Placement p);  // "none", "fresh", "reuse", "in-place"

struct BufferPlan {
  // From the problem, so that a plan prints on its own.
  int id = -1;
  std::string name;
  DType dtype = DType::Float32;
  std::uint64_t bytes = 0;
  BufferRole role = BufferRole::Intermediate;

  Lifetime life;
  Placement placement = Placement::None;
  int shares = -1;          // Reuse / InPlace: the buffer whose memory it takes over
  int storage = -1;         // Intermediate: index into MemoryPlan::storages
  std::uint64_t offset = 0; // Intermediate: byte offset in the arena (that of its storage)
};

// A block of the arena: one or more intermediates that occupy the same bytes one after another.
struct StoragePlan {
  std::vector<int> buffers;  // in the order they take it over
  std::uint64_t bytes = 0;   // the byte size of each of its buffers
  std::uint64_t aligned = 0; // bytes rounded up to the alignment: its footprint in the arena
  Lifetime life;             // first definition through last use of its buffers (gaps included)
  std::uint64_t offset = 0;
};

// The verdict on one in-place candidate of the chosen order.
struct InPlaceDecision {
  int step = -1;  // step index
  int read = -1;
  int write = -1;
  bool accepted = false;
  std::string reason;  // why not, when refused ("dtype differs", ...); "" when accepted
};

// The tree of §7.5, and best fit over the interval graph with four insertion orders: largest
// first, largest area (bytes x steps) first, longest-lived first, earliest first.
enum class ArenaPacker : unsigned char { Tree, BestFitBySize, BestFitByArea, BestFitByLength, BestFitByStart };
// "tree", "best-fit/size", "best-fit/area", "best-fit/length", "best-fit/start".
std::string_view arena_packer_name(ArenaPacker p);
constexpr ArenaPacker kArenaPackers[] = {ArenaPacker::Tree, ArenaPacker::BestFitBySize, ArenaPacker::BestFitByArea,
                                         ArenaPacker::BestFitByLength, ArenaPacker::BestFitByStart};

// A node of the inference pool tree (§7.5): a Space split places its children side by side, a
// Time split places its children (disjoint lifetimes) at the same offset, a Block is a storage.
struct ArenaNode {
  enum class Kind : unsigned char { Space, Time, Block };
  Kind kind = Kind::Block;
  std::uint64_t offset = 0;
  std::uint64_t size = 0;     // the bytes it spans (a Time split: its capacity)
  int storage = -1;           // Block
  std::vector<int> children;  // indices into MemoryPlan::tree
};

struct PlannerOptions {
  bool reorder = true;   // try the three other orders (off: keep the given one)
  bool reuse = true;     // the same-dtype, same-size reuse pool
  bool inplace = true;   // in-place candidates
  std::uint64_t alignment = 64;  // of every offset (a power of two)
};

struct MemoryPlan {
  PlannerOptions options;
  OrderStrategy strategy = OrderStrategy::Original;
  std::vector<int> order;                  // the chosen order (step indices)
  std::vector<std::string> step_names;     // per step index (the problem's)
  std::vector<OrderCandidate> candidates;  // the given order first, then the tried strategies
  std::uint64_t m_star = 0;        // Definition 7.5 over the intermediates, chosen order
  std::uint64_t planned_peak = 0;  // the largest sum of live storages (in place counts once)
  std::uint64_t sum_intermediates = 0;          // bytes
  std::uint64_t sum_intermediates_aligned = 0;  // each rounded up: the size without any sharing
  std::uint64_t arena_size = 0;
  ArenaPacker packer = ArenaPacker::Tree;
  std::vector<std::uint64_t> packings;  // the arena each packer needs, in kArenaPackers order
  std::vector<BufferPlan> buffers;  // one per problem buffer
  std::vector<StoragePlan> storages;
  std::vector<InPlaceDecision> inplace;
  int reuses = 0;          // storages taken over from the pool (0 when the pool was dropped)
  int reuses_refused = 0;  // pool matches refused because they would have lifted the peak
  std::uint64_t reuse_bound = 0;  // that peak: the occupancy with in-place reuse but no pool
  // Step 5 (options.reuse only): the arena with the pool's decisions and without them, and
  // whether they were dropped (the arena without them was smaller).
  std::uint64_t arena_with_pool = 0;
  std::uint64_t arena_without_pool = 0;
  bool pool_dropped = false;
  std::vector<ArenaNode> tree;  // the tree packing, root first (offsets as in the tree packing)

  // Position of each step in `order`.
  std::vector<int> positions() const;
};

// Plans `p` (which must be valid: validate_problem). Deterministic: the same problem and options
// give the same plan. In a debug build the result is checked (check.h) before it is returned.
MemoryPlan plan_memory(const MemoryProblem& p, const PlannerOptions& opts = {});

}  // namespace stax::memory
