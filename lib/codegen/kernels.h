// Kernel functions. A loop kernel of the schedule (pointwise, reduction and every fused kind) is
// one function: its common outer loops, then each loop group in turn inside them (listing 7.1),
// the bodies written by BodyEmitter, and OpenMP worksharing over the outer loops (§8.4). Scans
// and externs (matmul) are one function per buffer.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "stax/ir/program.h"
#include "stax/scheduler/schedule.h"

namespace stax::codegen {

// A scan needs at least this many elements before its outer loops run in parallel: below it an
// OpenMP region costs more than it saves.
constexpr int64_t kParallelMinWork = int64_t(1) << 16;
// A scan's parallel outer loops are collapsed until they give at least this many units of work.
constexpr int64_t kParallelMinUnits = 16;

struct KernelCode {
  std::string function;                // the function's name
  std::vector<ir::BufferId> params;    // buffers in parameter order: those read, then the written
  bool fallible = false;               // returns int: nonzero after an integer division by zero
  std::string text;                    // the definition, comment included
};

// How a loop kernel's outer loops run in parallel (§8.4, §8.5):
//   Serial      no OpenMP (no outer loop, or a single iteration of them);
//   Standalone  `#pragma omp parallel for` with an `if` clause: its own parallel region, entered
//               only when each thread gets at least kMinChunk iterations (Algorithm 8.1 line 4,
//               P = omp_get_max_threads() at run time);
//   Shared      `#pragma omp for`: worksharing inside a parallel region the wrapper opens around
//               adjacent kernels (the region's `if` clause applies line 4 to their total work).
enum class ParallelMode : unsigned char { Serial, Standalone, Shared };

// Algorithm 8.1's minimum chunk: iterations each thread must get for a region to pay.
constexpr int64_t kMinChunk = 512;

// Iterations of a loop kernel's bodies per call: the outer loops times, per loop group, its
// inner and reduction loops.
int64_t kernel_work(const scheduler::Kernel& k);

// The outer loops a loop kernel collapses into its parallel loop (0: it runs serially), by
// Algorithm 8.1 with the thread count unknown at compile time: none below 2 * kMinChunk
// iterations (line 4 for P = 2; the `if` clause applies it for the real P at run time); else outer
// loops are added until they give at least 2 * kMaxThreadsPlanned units (line 3: balance on up
// to that many threads) or run out. The innermost loop of a pointwise nest is the vector loop and
// is not collapsed unless it is the only one.
constexpr int64_t kMaxThreadsPlanned = 32;
std::size_t parallel_depth(const scheduler::Kernel& k);

// True when the kernel can share a parallel region with its neighbours: a loop kernel with a
// parallel outer loop and no integer division that can fail (whose error flag needs a
// reduction over the region's threads).
bool can_share_region(const ir::Program& p, const scheduler::Kernel& k);

// Where a loop kernel keeps a buffer it computes.
//   Memory  the caller's output or the workspace (the memory plan's offset);
//   Scalar  a local variable: every read happens in the kernel, at the element computed at that
//           point of the loops (a pointwise node read later in its own loop group; a reduction
//           without inner loops read by later groups of the same outer iteration);
//   Row     a local array of one outer iteration's slab: every read happens in the same outer
//           iteration of the kernel (listing 7.1's row kept in L1), so the slab never needs to
//           leave the cache nor to exist for the other rows (kMaxRowBytes at most).
enum class Residence : unsigned char { Memory, Scalar, Row };
constexpr int64_t kMaxRowBytes = 64 * 1024;

// Per buffer id (Memory for every buffer no loop kernel computes).
std::vector<Residence> buffer_residence(const ir::Program& p, const scheduler::Schedule& s);

// Elements of a pointwise loop that is both the vector loop and the parallel one, per block
// the threads share (a multiple of every vector width).
constexpr int64_t kBlock = 4096;
// Outputs of at least this many bytes, written by a long pointwise loop, are streamed
// (non-temporal stores): beyond the caches they are not read again soon.
constexpr int64_t kStreamMinBytes = int64_t(16) << 20;
// Columns per block of a column reduction (its accumulators, 8 KiB of float64, stay in L1; each
// row's piece of the block is one 4 KiB page of float32; measured 2x faster than 256).
constexpr int64_t kColumnBlock = 1024;
// How far ahead a column reduction prefetches the rows it reads: each row's piece is a short
// contiguous run (one page) at a long stride, where the hardware prefetcher restarts on every
// page; fetching the piece this many bytes of pieces ahead measured 8.5 -> 4.5-5 ms on the
// 4096 x 4096 column sum (2 threads).
constexpr int64_t kPrefetchAheadBytes = int64_t(64) << 10;
// Operands from this size on are taken to stream from memory rather than sit in a cache: a
// kernel over rows prefetches the next row of those it reads.
constexpr int64_t kPrefetchMinBytes = int64_t(4) << 20;
// The side of the tiles of the 2-D tiled form (§8.2: at least 16 floats a side; 16 KiB of
// float32 in L1). With register-transposed staging and the next tile prefetched, 128 x 128,
// 256 x 64, 32 x 1024 and 256 x 256 tiles measured no faster than 64 x 64 on the 4096 x 4096
// transpose-add.
constexpr int64_t kTile = 64;
// Loops shorter than the widest vector (16 lanes) stay scalar.
constexpr int64_t kMinVectorTrip = 16;

// A loop kernel (its loop_groups not empty). `names`: identifier per buffer id; `where`: see
// buffer_residence; `isa`: the vector layer's instruction-set tag ("stax_rt::IsaNative", ...),
// or "" for scalar loops only. The innermost loop of a loop group is vectorized (§8.1, §8.3)
// when every node of the group has a vector form along it (VecBodyEmitter) and stores
// contiguously; reductions keep W lane accumulators (Proposition 8.1).
KernelCode emit_loop_kernel(const ir::Program& p, const scheduler::Kernel& k, const std::string& function,
                            const std::vector<std::string>& names, const std::vector<Residence>& where,
                            ParallelMode mode, const std::string& isa, std::set<std::string>& sections);

// `names` gives the C++ identifier of every buffer (by id). Prelude sections the kernel uses
// are added to `sections`. Scans and externs (and, for tests, single buffers).
KernelCode emit_kernel(const ir::Program& p, const ir::Buffer& b, const std::string& function,
                       const std::vector<std::string>& names, std::set<std::string>& sections);

}  // namespace stax::codegen
