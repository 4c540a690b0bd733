#include "stax/memory/plan.h"

#include "stax/memory/arena.h"
#include "stax/memory/check.h"
#include "stax/memory/order.h"
#include "stax/support/error.h"
#include "storage.h"

namespace stax::memory {

std::string_view order_strategy_name(OrderStrategy s) {
  switch (s) {
    case OrderStrategy::Original: return "original";
    case OrderStrategy::LeastIncrease: return "least-increase";
    case OrderStrategy::BreadthFirst: return "breadth-first";
    case OrderStrategy::DepthFirst: return "depth-first";
  }
  return "?";
}

std::string_view placement_name(Placement p) {
  switch (p) {
    case Placement::None: return "none";
    case Placement::Fresh: return "fresh";
    case Placement::Reuse: return "reuse";
    case Placement::InPlace: return "in-place";
  }
  return "?";
}

std::string_view arena_packer_name(ArenaPacker p) {
  switch (p) {
    case ArenaPacker::Tree: return "tree";
    case ArenaPacker::BestFitBySize: return "best-fit/size";
    case ArenaPacker::BestFitByArea: return "best-fit/area";
    case ArenaPacker::BestFitByLength: return "best-fit/length";
    case ArenaPacker::BestFitByStart: return "best-fit/start";
  }
  return "?";
}

std::vector<int> MemoryPlan::positions() const {
  std::vector<int> pos(order.size(), -1);
  for (std::size_t i = 0; i < order.size(); ++i) pos[static_cast<std::size_t>(order[i])] = static_cast<int>(i);
  return pos;
}

namespace {

using detail::align_up;

// Step 4: the storages into one arena, by every packer; the smallest arena wins, the earliest
// packer (the tree of §7.5 first) on a tie.
void place_storages(MemoryPlan& plan) {
  std::vector<ArenaBlock> blocks;
  for (StoragePlan& st : plan.storages) {
    st.aligned = align_up(st.bytes, plan.options.alignment);
    blocks.push_back({st.aligned, st.life});
  }
  ArenaLayout best;
  for (ArenaPacker packer : kArenaPackers) {
    ArenaLayout layout = pack(blocks, packer);
    plan.packings.push_back(layout.size);
    if (packer == ArenaPacker::Tree) plan.tree = layout.tree;
    if (packer != ArenaPacker::Tree && layout.size >= best.size) continue;
    plan.packer = packer;
    best = std::move(layout);
  }
  plan.arena_size = best.size;
  for (std::size_t k = 0; k < plan.storages.size(); ++k) {
    plan.storages[k].offset = best.offsets[k];
    for (int b : plan.storages[k].buffers) plan.buffers[static_cast<std::size_t>(b)].offset = best.offsets[k];
  }
}

}  // namespace

MemoryPlan plan_memory(const MemoryProblem& p, const PlannerOptions& opts) {
  const std::string invalid = validate_problem(p);
  STAX_ASSERT(invalid.empty(), "invalid memory problem: " + invalid);
  STAX_ASSERT(opts.alignment > 0 && (opts.alignment & (opts.alignment - 1)) == 0,
              "the arena alignment must be a power of two");
  MemoryPlan plan;
  plan.options = opts;
  for (const Step& s : p.steps) plan.step_names.push_back(s.name);

  // 1. Orders (§7.6 step 5): the given one first, so a tie keeps it.
  plan.candidates = order_candidates(p, opts.reorder);
  const OrderCandidate& best = plan.candidates[best_candidate(plan.candidates)];
  plan.strategy = best.strategy;
  plan.order = best.order;
  plan.m_star = best.peak;

  // 2. Lifetimes under the chosen order (§7.6 step 6).
  const std::vector<Lifetime> life = lifetimes(p, plan.order);
  for (std::size_t b = 0; b < p.buffers.size(); ++b) {
    const MemBuffer& mb = p.buffers[b];
    BufferPlan bp;
    bp.id = mb.id;
    bp.name = mb.name;
    bp.dtype = mb.dtype;
    bp.bytes = mb.bytes;
    bp.role = mb.role;
    bp.life = life[b];
    plan.buffers.push_back(std::move(bp));
    if (mb.role != BufferRole::Intermediate) continue;
    plan.sum_intermediates += mb.bytes;
    plan.sum_intermediates_aligned += align_up(mb.bytes, opts.alignment);
  }

  // 3-4. In place and the reuse pool (§7.5), then the arena; first without the pool.
  MemoryPlan pooled = plan;
  plan.options.reuse = false;
  detail::assign_storages(p, plan);
  place_storages(plan);
  plan.options.reuse = opts.reuse;
  if (opts.reuse) {
    // 5. With the pool; kept unless its arena is larger.
    detail::assign_storages(p, pooled);
    place_storages(pooled);
    const std::uint64_t with = pooled.arena_size, without = plan.arena_size;
    if (with <= without) {
      plan = std::move(pooled);
    } else {
      plan.reuse_bound = pooled.reuse_bound;
      plan.reuses_refused = pooled.reuses_refused;
      plan.pool_dropped = true;
    }
    plan.arena_with_pool = with;
    plan.arena_without_pool = without;
  }

#ifndef NDEBUG
  const std::vector<std::string> violations = check_plan(p, plan);
  STAX_ASSERT(violations.empty(), "unsound memory plan: " + violations.front());
#endif
  return plan;
}

}  // namespace stax::memory
