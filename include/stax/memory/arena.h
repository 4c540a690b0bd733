// Packing storages into one workspace arena (§7.5, the inference pool), as a pure function of
// their sizes and lifetimes.
#pragma once

#include <cstdint>
#include <vector>

#include "stax/memory/plan.h"

namespace stax::memory {

struct ArenaBlock {
  std::uint64_t size = 0;  // a multiple of the alignment
  Lifetime life;
};

struct ArenaLayout {
  std::vector<std::uint64_t> offsets;  // per block
  std::uint64_t size = 0;              // the arena: max over blocks of offset + size
  std::vector<ArenaNode> tree;         // the tree packing only (root first); its Block nodes'
                                       // `storage` is the block index
};

// The order a packer inserts blocks in, ties broken by the later keys and then by index:
// Tree and BestFitBySize: largest, longest-lived, earliest; BestFitByArea: largest bytes x steps,
// largest; BestFitByLength: longest-lived, largest; BestFitByStart: earliest, largest.
std::vector<int> packing_order(const std::vector<ArenaBlock>& blocks, ArenaPacker packer = ArenaPacker::Tree);

// The packing `packer` makes (pack_tree or pack_best_fit in its order).
ArenaLayout pack(const std::vector<ArenaBlock>& blocks, ArenaPacker packer);

// The tree of time and space splits (§7.5): each block, in packing order, goes into the first
// place of the tree where it fits -- a time split whose capacity holds it and whose children's
// lifetimes are disjoint from its own (it becomes one more child, the room left beside it a new
// space split), or, when exactly one child's lifetime overlaps, somewhere inside that child --
// and otherwise opens a new slab at the end of the arena.
ArenaLayout pack_tree(const std::vector<ArenaBlock>& blocks);

// Best fit over the interval graph: each block, in `order` (a permutation of the block indices),
// goes into the smallest gap between the blocks already placed whose lifetimes overlap its own,
// or above them all.
ArenaLayout pack_best_fit(const std::vector<ArenaBlock>& blocks, const std::vector<int>& order);

}  // namespace stax::memory
