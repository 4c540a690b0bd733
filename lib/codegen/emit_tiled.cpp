// The 2-D tiled form (§8.2): a pointwise nest reading something transposed (contiguous along the
// second-to-last loop a, strided along the last b). Tiles of kTile x kTile: each transposed read
// is first staged into a tile in L1, its rows read contiguously and transposed in registers
// (stax_rt::transpose_tile), then the tile is read contiguously along b, the vector loop like any
// other, which also reads the straight operands and stores along b.
#include "emit_forms.h"

#include "body_emitter.h"
#include "stax/codegen/literals.h"
#include "stax/ir/simplify.h"
#include "stax/kernelplan/access.h"
#include "stax/support/error.h"

namespace stax::codegen {

namespace {

using ir::Index;
using ir::Var;
using kernelplan::kTile;

// A transposed read at element (a, b) is rest + a + stride * b (both appear linearly, a with
// coefficient 1), rest free of both: its tile's source is `rest + b0 + stride * row`, rows
// `stride` apart, `row` the text of b.
std::string tile_source(const KernelEmitter& e, const kernelplan::Tile& t, Var a, Var b, const std::string& row) {
  const ir::VarRanges ranges = e.node(t.node).loops.ranges();
  const Index rest = kernelplan::without_vars(t.at, {a, b}, ranges);
  const int64_t stride = *ir::lane_stride(t.at, b);
  STAX_ASSERT(ir::simplify(rest + Index::var(a) + Index::var(b) * stride, ranges) == t.at,
              "a tiled read that is not affine in the tile's loops: " + e.p[t.buffer].name);
  std::vector<std::string> terms;
  if (!rest.is_const(0)) terms.push_back(bare(index_cxx(rest)));
  terms.push_back("b0");
  terms.push_back(std::to_string(stride) + " * " + row);
  return e.name(t.buffer) + " + (" + join(terms, " + ") + ")";
}

// A tile's end; a side that kTile divides has whole tiles only, and loops of a constant trip
// count, which the C++ compiler unrolls and schedules better (the 4096 x 4096 transpose-add:
// 19 -> 17 ms on 2 threads).
void tile_end(CodeWriter& loops, const std::string& end, const std::string& begin, int64_t extent) {
  const std::string T = std::to_string(kTile), n = std::to_string(extent);
  loops.line("const int64_t " + end + " = " + begin + " + " + T +
             (extent % kTile == 0 ? ";" : " < " + n + " ? " + begin + " + " + T + " : " + n + ";"));
}

}  // namespace

void emit_tiled(KernelEmitter& e, CodeWriter& loops) {
  e.need("vec_transpose");
  const std::size_t depth = e.depth();
  const scheduler::LoopGroup& first = e.k.loop_groups.front();
  const Var a = ir::xvar(static_cast<int32_t>(depth - 2)), b = ir::xvar(static_cast<int32_t>(depth - 1));
  const std::string T = std::to_string(kTile);
  const std::string va = ir::var_name(a), vb = ir::var_name(b);
  const int64_t na = e.k.outer[depth - 2], nb = e.k.outer[depth - 1];
  // Shared among the threads: the outer loops and the row tiles.
  if (e.parallel_depth() > 0) loops.raw(e.parallel_pragma(depth - 1));
  for (std::size_t i = 0; i + 2 < depth; ++i) loops.open(loop_head("x" + std::to_string(i), e.k.outer[i]));
  loops.open("for (int64_t b0 = 0; b0 < " + std::to_string(na) + "; b0 += " + T + ")");
  loops.open("for (int64_t b1 = 0; b1 < " + std::to_string(nb) + "; b1 += " + T + ")");
  tile_end(loops, "e0", "b0", na);
  tile_end(loops, "e1", "b1", nb);
  e.use_tiles("(" + va + " - b0) * " + T + " + (" + vb + " - b1)");
  // tile[(a - b0) * T + (b - b1)] = the read at (a, b): source rows b, each e0 - b0 long.
  for (std::size_t i = 0; i < e.plan.tiles.size(); ++i) {
    const kernelplan::Tile& t = e.plan.tiles[i];
    const std::string tile = e.tile_name(i);
    const std::string stride = std::to_string(*ir::lane_stride(t.at, b));
    loops.line("// " + tile + "[(" + va + " - b0) * " + T + " + (" + vb + " - b1)] = " + e.name(t.buffer) + "[" +
               bare(index_cxx(t.at)) + "]");
    loops.line("alignas(64) " + cxx_type(e.p[t.buffer].dtype) + " " + tile + "[" + std::to_string(kTile * kTile) + "];");
    loops.line("stax_rt::transpose_tile<ISA>(" + tile_source(e, t, a, b, "b1") + ", " + stride + ", e1 - b1, e0 - b0, " +
               tile + ", " + T + ");");
  }
  loops.open("for (int64_t " + va + " = b0; " + va + " < e0; ++" + va + ")");
  // While row a of this tile is computed, row a - b0 of the next tile along b is asked for: its
  // rows are short runs far apart, which the hardware prefetchers do not guess.
  if (e.plan.prefetch_next_tile) {
    loops.line("const int64_t next = b1 + " + T + " + (" + va + " - b0);  // a row of the next tile");
    for (const kernelplan::Tile& t : e.plan.tiles)
      loops.line("if (next < " + std::to_string(nb) + ") stax_rt::prefetch_span(" + tile_source(e, t, a, b, "next") +
                 ", e0 - b0);");
  }
  auto vector_body = [&](CodeWriter& w) { e.pointwise_nodes(first.nodes, w, &b); };
  auto scalar_body = [&](CodeWriter& w) { e.pointwise_nodes(first.nodes, w, nullptr); };
  if (e.plan.stream) e.streamed_loop(loops, *e.plan.stream, vb, "b1", "e1", vector_body, scalar_body, false);
  else e.strip_mined(loops, vb, "b1", "e1", vector_body, scalar_body);
  loops.close();
  if (e.plan.stream) loops.line("stax_rt::stream_fence();  // once per tile");
  loops.close();
  loops.close();
  close_loops(loops, depth - 2);
}

}  // namespace stax::codegen
