// Readable forms of a memory plan: versioned JSON for --dump-memory and a short summary for
// --log memory. Both are deterministic (same plan, same bytes).
#pragma once

#include <string>

#include "stax/memory/plan.h"

namespace stax::memory {

// Format "stax-memory-plan", version 1: the chosen order strategy and every candidate's peak,
// M*, the arena (size, packer, both packings' sizes, alignment), the steps in the chosen order,
// each buffer's role, dtype, size, lifetime, offset and how it got its memory, the storages,
// the in-place verdicts and, for the tree packing, the tree.
std::string dump_memory_json(const MemoryPlan& plan);

// A few lines: order (and the candidates' peaks), M*, arena and the sum it replaces, reuse and
// in-place counts, and the largest intermediates with their lifetimes.
std::string memory_summary(const MemoryPlan& plan);

}  // namespace stax::memory
