// The kernel plan (design.md, "CPU code"): between the memory plan and emission, every choice
// code generation makes for a kernel, each with its reason, as plain data that can be printed
// (dump.h: --dump-kernel-plan, --log kernels) and that emission only reads. Per kernel:
//   - its form: extern, scan, 2-D tiled (§8.2), vector rows (a pointwise nest vectorized along its
//     innermost loop), column reduction (§8.1: lanes across the contiguous dimension), row groups
//     (listing 7.1: outer loops, then each loop group in turn) or scalar;
//   - where every buffer it touches lives: a register, a row-local array, the workspace, the
//     caller's memory or a constant;
//   - its vector loops and their lanes;
//   - its parallel loops (Algorithm 8.1's depth, the minimum chunk, the parallel region it
//     shares with its neighbours, §8.5);
//   - streaming (non-temporal) stores and prefetches.
//
// Two steps, because memory planning sits between them: plan_locals decides which computed
// buffers never leave their kernel (they need no memory), plan_kernels decides the rest once the
// memory plan has fixed the kernels' order and the workspace.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "stax/ir/program.h"
#include "stax/memory/plan.h"
#include "stax/scheduler/schedule.h"
#include "stax/support/isa.h"

namespace stax::kernelplan {

using ir::BufferId;

// ---- Tunables (each with the measurement or rule behind it) ---------------------------------

// Algorithm 8.1's minimum chunk: iterations each thread must get for a parallel region to pay.
constexpr int64_t kMinChunk = 512;
// The outer loops a kernel shares among threads are collapsed until they give at least
// 2 * kMaxThreadsPlanned units (Algorithm 8.1 line 3, balanced on up to that many threads).
constexpr int64_t kMaxThreadsPlanned = 32;
// A scan needs at least this many elements before its outer loops run in parallel, and they are
// collapsed until they give at least kParallelMinUnits units.
constexpr int64_t kParallelMinWork = int64_t(1) << 16;
constexpr int64_t kParallelMinUnits = 16;
// A row-local array holds at most this many bytes (one outer iteration's slab, kept in L1).
constexpr int64_t kMaxRowBytes = 64 * 1024;
// Elements of a pointwise loop that is both the vector loop and the parallel one, per block the
// threads share (a multiple of every vector width).
constexpr int64_t kBlock = 4096;
// Outputs of at least this many bytes, written by a long vector loop, are streamed: beyond the
// caches they are not read again soon, and plain stores read every line first (write-allocate).
constexpr int64_t kStreamMinBytes = int64_t(16) << 20;
// Columns per block of a column reduction (its accumulators, 8 KiB of float64, stay in L1; each
// row's piece of the block is one 4 KiB page of float32; measured 2x faster than 256).
constexpr int64_t kColumnBlock = 1024;
// A column reduction over at most this many positions per output (a pooling window: 3 x 3, 7 x 7)
// runs its reduction loops inside the vector loop, each vector of columns summed in registers
// across the window, rather than W columns of an L1 array updated once per position (3x faster
// on ResNet's 3 x 3 stride-2 max pool: the array's update is a store-to-load chain per tap).
constexpr int64_t kWindowMaxPositions = 64;
// Such a window reduction over output rows of at least this many columns (and fewer than
// kMinVectorTrip) is one masked vector per row rather than a scalar loop: the 14 x 14 and 7 x 7
// rows of an Inception block's 3 x 3 stride-1 pool.
constexpr int64_t kWindowMinTrip = 4;
// How far ahead a column reduction prefetches the rows it reads: each row's piece is a short run
// at a long stride, where the hardware prefetcher restarts on every page (8.5 -> 4.5-5 ms on the
// 4096 x 4096 column sum, 2 threads).
constexpr int64_t kPrefetchAheadBytes = int64_t(64) << 10;
// Operands from this size on are taken to stream from memory: a kernel over rows prefetches the
// next row of those it reads.
constexpr int64_t kPrefetchMinBytes = int64_t(4) << 20;
// The side of the tiles of the 2-D tiled form (§8.2: at least 16 floats a side; 16 KiB of float32
// in L1). 128 x 128, 256 x 64, 32 x 1024 and 256 x 256 measured no faster on the 4096 x 4096
// transpose-add.
constexpr int64_t kTile = 64;
// Loops shorter than the widest vector (16 lanes) stay scalar.
constexpr int64_t kMinVectorTrip = 16;
// A vector reduction whose combine is exact in any order (max, min, any, all, wrapping integer
// sums and products) over at least kChainMinTrip elements runs kChains independent chains of
// W lanes: with one, each step waits for the last (AVX-512's NaN-propagating maximum is three
// dependent instructions), and a row max of [16384, 1024] ran 2.2x slower on one thread,
// softmax's 1.4x. Float sums keep one chain: their order is their bits.
constexpr int64_t kChainMinTrip = 64;
constexpr int kChains = 4;

// ---- Step 1: values that never leave their kernel --------------------------------------------

// Where a computed buffer lives, as far as memory planning must know.
//   Memory    the caller's output or the workspace;
//   Register  a local variable: every read happens in its kernel, at the element computed at
//             that point of the loops (a pointwise node read later in its own loop group; a
//             reduction without inner loops read by later groups of the same outer iteration);
//   Row       a local array of one outer iteration's slab: every read happens in the same outer
//             iteration (listing 7.1's row kept in L1), at most kMaxRowBytes.
//   Product   a matmul's product with an epilogue: the GEMM writes it into the epilogue's
//             buffer, each tile rewritten in place (scheduler::KernelKind::Epilogue).
enum class Locality : unsigned char { Memory, Register, Row, Product };

struct Locals {
  std::vector<Locality> where;      // per buffer id
  // Per buffer id: why it is local, or why a buffer read only in its kernel is not ("" for the
  // others).
  std::vector<std::string> reason;
  bool local(BufferId id) const { return where[static_cast<std::size_t>(id)] != Locality::Memory; }
  std::vector<bool> mask() const;   // per buffer id: local
};

Locals plan_locals(const ir::Program& p, const scheduler::Schedule& s);

// ---- Step 2: the kernel plan -----------------------------------------------------------------

enum class Form : unsigned char { Extern, Scan, Tiled, VectorRows, Columns, RowGroups, Scalar };
std::string_view form_name(Form f);

// Where a buffer lives while a kernel runs.
enum class Residence : unsigned char { Register, Row, Workspace, Caller, Input, Constant, Product };
std::string_view residence_name(Residence r);

// How a kernel's outer loops run in parallel (§8.4, §8.5):
//   Serial      no OpenMP;
//   Standalone  `#pragma omp parallel for` with an `if` clause: its own region, entered only when
//               each thread gets at least kMinChunk iterations (Algorithm 8.1 line 4, P =
//               omp_get_max_threads() at run time);
//   Shared      `#pragma omp for` inside a region the wrapper opens around adjacent kernels.
enum class Parallel : unsigned char { Serial, Standalone, Shared };
std::string_view parallel_name(Parallel m);

struct BufferUse {
  BufferId buffer = -1;
  Residence where = Residence::Workspace;
  std::string reason;
};

// A store written around the cache (non-temporal).
struct Stream {
  int node = -1;   // index into the kernel's nodes
  ir::Index base;  // the stored index without the vector loop's variable
};

// A cache-line request ahead of use: the element `at` of `buffer` (an index on the kernel's
// variables), `stride` elements per step of the distance the emitter names.
struct Prefetch {
  BufferId buffer = -1;
  ir::Index at;
  int64_t stride = 0;
};

// A transposed read of the tiled form, staged through an L1 tile.
struct Tile {
  BufferId buffer = -1;
  ir::Index at;  // the read, on the kernel's variables
  int node = -1; // the node that reads it
};

// One loop group of the row-groups and scalar forms.
struct GroupPlan {
  int group = -1;           // index into Kernel::loop_groups
  ir::Var var;              // its innermost loop (x for a pointwise group, r for a reduction)
  int64_t trip = 0;         // that loop's trip count (0: the group has no loop)
  bool vector = false;      // that loop steps by W lanes
  int chains = 1;           // a vector reduction's independent chains of W lanes (kChains)
  bool absorbs_next = false;// the next group (a reduction) runs inside this loop: one pass
  std::optional<Stream> stream;
  std::vector<Prefetch> prefetches;  // the thread's next row, asked for during this loop
  std::string reason;       // why vector or not, absorbed or not
};

struct KernelPlan {
  int kernel = -1;                 // index into Schedule::kernels
  std::string name;                // the schedule's name of the kernel
  Form form = Form::Scalar;
  std::string form_reason;
  bool fallible = false;           // returns an error code (an integer division may fail)
  std::vector<BufferId> params;    // buffers read from memory (first-read order), then written
  std::vector<BufferUse> buffers;  // every buffer it reads or computes
  // Parallelism.
  Parallel parallel = Parallel::Serial;
  std::size_t parallel_depth = 0;  // outer loops collapsed into the parallel loop
  int64_t work = 0;                // iterations of its bodies per call
  int region = -1;                 // index into ProgramPlan::regions when Shared
  std::string parallel_reason;
  // The vector loop of the tiled, vector-rows and columns forms, and how it is shared.
  std::optional<ir::Var> vector_var;
  int64_t vector_trip = 0;
  bool blocked = false;            // the threads share the vector loop in blocks
  std::optional<Stream> stream;    // tiled and vector rows
  std::string stream_reason;
  std::vector<Tile> tiles;         // tiled
  bool prefetch_next_tile = false; // tiled
  std::vector<Prefetch> column_prefetches;  // columns
  int64_t prefetch_ahead = 0;      // columns: rows ahead
  // A scan over a dim that is not the last: the carried loop runs outside the last dim's, whose
  // elements (each another line) take one accumulator each, in blocks of kColumnBlock.
  bool scan_across = false;
  bool column_window = false;      // columns: reduction loops inside the vector loop (kWindowMaxPositions)
  std::vector<GroupPlan> groups;   // row groups and scalar
  // Extern with an epilogue: the index into the kernel's nodes of the pointwise node the GEMM
  // runs on each tile (-1: none), and its loop over a tile row (vector_var: the last output
  // dim, in lanes, when the node reads and stores contiguously along it).
  int epilogue = -1;
  std::string epilogue_reason;
  // A 2-D convolution's epilogue whose every index steps from the end of an output row to the
  // start of the next (the coefficient of oh is OW times that of ow): one loop over the block's
  // flattened positions oh * OW + ow, in lanes (vector_var: the last dim, running over them),
  // rather than one loop per output row, which rows shorter than a vector leave scalar.
  bool epilogue_flat = false;
  // Extern: B (a graph constant) packed at compile time into the GEMM's panels for the plan's
  // instruction set, so that nothing is packed at run time (then B is no parameter: the kernel
  // reads the packed array of the generated file); or why not.
  bool pack_b = false;
  bool pack_once = false;  // B a constant packed at run time, once for the process (--isa native)
  std::string pack_isa;  // the set B is packed for (its record's name)
  std::string pack_reason;
  // Extern matmul: its batch dims folded into M (ir::fold_batch), one product over every batch
  // position rather than one per position; or why not (empty when the product has no batch dims).
  bool fold_batch = false;
  std::string fold_reason;
  bool conv_direct = false;        // extern conv: the runtime's direct loops, not its GEMM
  // True when some loop steps by W lanes (the kernel declares its vector type alias).
  bool vectorized() const;
  const BufferUse* use(BufferId id) const;
};

// Adjacent kernels in one parallel region (§8.5): each divides its outer loops among the threads
// and ends with a barrier; the region is entered when their total work pays for it.
struct Region {
  std::vector<int> kernels;  // positions in ProgramPlan::kernels
  int64_t work = 0;
};

struct ProgramPlan {
  IsaTarget isa;                   // what the plan was made for
  bool vector = true;              // vector loops allowed (false for the scalar set)
  std::vector<KernelPlan> kernels; // in execution order (the memory plan's)
  std::vector<Region> regions;
};

// Needs: `locals` = plan_locals(p, s); `memory` planned without the local buffers. `isa` one set
// (or Native): the scalar set plans no vector loop.
ProgramPlan plan_kernels(const ir::Program& p, const scheduler::Schedule& s, const Locals& locals,
                         const memory::MemoryPlan& memory, const IsaTarget& isa);

// Iterations of a loop kernel's bodies per call: the outer loops times, per loop group, its inner
// and reduction loops.
int64_t kernel_work(const scheduler::Kernel& k);

}  // namespace stax::kernelplan
