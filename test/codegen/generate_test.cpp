// The generated file as text: deterministic bytes, readable kernels with comments naming the
// graph nodes, fused kernels as the schedule says, the sections of the prelude a model needs and
// no others, parallel loops where the work is large, the C API and the header. (Numbers are tested end to end in test/e2e.)
#include "stax/codegen/codegen.h"

#include <gtest/gtest.h>

#include "stax/driver/compile.h"
#include "stax/graph/frontend.h"
#include "stax/lowering/lower.h"
#include "stax/support/error.h"

namespace stax::codegen {
namespace {

// The loop structure is tested on scalar kernels (--isa scalar); the vector forms have tests of
// their own below.
CodegenOptions scalar_options() {
  CodegenOptions opts;
  opts.isa = IsaTarget::of(Isa::Scalar);
  return opts;
}

// The generated file and the memory plan it follows, through the whole pipeline.
struct Generated : GeneratedCode {
  memory::MemoryPlan memory;
};

Generated generate_graph(graph::Graph g, const CodegenOptions& opts, bool chapter_rules = false) {
  driver::CompileOptions o;
  o.name = opts.name;
  o.isa = opts.isa;
  o.chapter_rules = chapter_rules;
  driver::CompiledModel m = driver::compile_graph(std::move(g), o);
  return {m.code, m.memory};
}

Generated generate_json(const std::string& json, const CodegenOptions& opts = scalar_options()) {
  return generate_graph(graph::parse_graph(json), opts);
}

Generated generate_file(const std::string& sample, const CodegenOptions& opts = scalar_options(),
                        bool chapter_rules = false) {
  return generate_graph(graph::load_graph(std::string(STAX_SOURCE_DIR) + "/samples/" + sample), opts, chapter_rules);
}

bool contains(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

const char* kExample71 = R"({"format": "stax-graph", "version": 1, "name": "ex71",
  "inputs": [{"name": "x", "dtype": "float32", "shape": [64, 128]}],
  "nodes": [{"name": "s", "op": "sum", "args": ["x"], "dim": -1, "keepdim": true},
            {"name": "y", "op": "div", "args": ["x", "s"]}],
  "outputs": ["y"]})";

TEST(Generate, SameInputSameBytes) {
  for (const char* sample : {"softmax.json", "layer_norm.json", "mlp.json", "example_7_2.json"}) {
    const Generated a = generate_file(sample);
    const Generated b = generate_file(sample);
    EXPECT_EQ(a.source, b.source) << sample;
    EXPECT_EQ(a.header, b.header) << sample;
  }
}

TEST(Generate, KernelsAreCommentedAndReadable) {
  // Example 7.1 compiles to listing 7.1: one outer-loop fused kernel, the row sum in a local.
  const Generated c = generate_json(kExample71);
  EXPECT_EQ(c.name, "ex71");
  EXPECT_TRUE(contains(c.source, "// kernel op0_op1 (outer_loop_fused): computes s, y\n"
                                 "//   op0 buf1: float32[64, 1], reduction sum; computes s (kept in a local)\n"
                                 "//   op1 buf2: float32[64, 128], pointwise; computes y\n"
                                 "void kernel_op0_op1(const float* x, float* buf2) {\n"
                                 "#pragma omp for schedule(static)\n"
                                 "  for (int64_t x0 = 0; x0 < 64; ++x0) {\n"
                                 "    double acc0 = 0.0;\n"
                                 "    for (int64_t r0 = 0; r0 < 128; ++r0) {\n"
                                 "      acc0 += static_cast<double>(x[128 * x0 + r0]);\n"
                                 "    }\n"
                                 "    const float buf1 = static_cast<float>(acc0);\n"
                                 "    for (int64_t x1 = 0; x1 < 128; ++x1) {\n"
                                 "      buf2[128 * x0 + x1] = x[128 * x0 + x1] / buf1;\n"))
      << c.source;
  // No workspace: the row sums never leave the kernel, y is written straight into the output.
  EXPECT_EQ(c.workspace_size, 0u);
  EXPECT_EQ(c.memory.arena_size, 0u);
  EXPECT_TRUE(contains(c.source, "float* const buf2 = static_cast<float*>(outputs[0]);"));
  // The wrapper enters a parallel region only when it pays (Algorithm 8.1 line 4 at run time).
  EXPECT_TRUE(contains(c.source, "  if (stax_rt::run_parallel(16384, 512)) {\n"
                                 "#pragma omp parallel\n"
                                 "    {\n"
                                 "      kernel_op0_op1(x, buf2);\n"
                                 "    }\n"
                                 "  } else {\n"
                                 "    kernel_op0_op1(x, buf2);\n"
                                 "  }\n"))
      << c.source;
}

TEST(Generate, AdjacentLoopsShareOneParallelRegion) {
  // Example 7.2 under the chapter's rules: exp stored, sum and amax one loop with two
  // accumulators; both loops in one parallel region (§8.5), each dividing its rows among the
  // threads.
  const Generated c = generate_file("example_7_2.json", scalar_options(), true);
  EXPECT_TRUE(contains(c.source, "void kernel_op0(const float* x, float* buf1) {\n"
                                 "#pragma omp for schedule(static)\n"
                                 "  for (int64_t x0 = 0; x0 < 8192; ++x0) {\n"
                                 "    buf1[x0] = stax_rt::exp(x[x0]);\n"))
      << c.source;
  EXPECT_TRUE(contains(c.source, "void kernel_op1_op2(const float* buf1, float* buf2, float* buf3) {\n"
                                 "#pragma omp for schedule(static)\n"
                                 "  for (int64_t x0 = 0; x0 < 64; ++x0) {\n"
                                 "    double acc0 = 0.0;\n"
                                 "    float acc1 = -stax_rt::inf<float>();\n"
                                 "    for (int64_t r0 = 0; r0 < 128; ++r0) {\n"
                                 "      acc0 += static_cast<double>(buf1[128 * x0 + r0]);\n"
                                 "      acc1 = stax_rt::maximum<float>(acc1, buf1[128 * x0 + r0]);\n"
                                 "    }\n"
                                 "    buf2[x0] = static_cast<float>(acc0);\n"
                                 "    buf3[x0] = acc1;\n"))
      << c.source;
  EXPECT_TRUE(contains(c.source, "  if (stax_rt::run_parallel(16384, 512)) {\n"
                                 "#pragma omp parallel\n"
                                 "    {\n"
                                 "      kernel_op0(x, buf1);\n"
                                 "      kernel_op1_op2(buf1, buf2, buf3);\n"
                                 "    }\n"
                                 "  } else {\n"))
      << c.source;
  // exp's 32 KiB are the whole workspace.
  EXPECT_EQ(c.workspace_size, 32768u);
}

TEST(Generate, KernelsRunInTheMemoryPlansOrder) {
  for (const char* sample : {"softmax.json", "layer_norm.json", "mlp.json", "example_7_2.json"}) {
    const Generated c = generate_file(sample);
    EXPECT_EQ(c.workspace_size, c.memory.arena_size) << sample;
    // The kernels are defined (and called) in the plan's order.
    std::size_t at = 0;
    for (int step : c.memory.order) {
      const std::string& step_name = c.memory.step_names[static_cast<std::size_t>(step)];
      const std::size_t next = c.source.find("// kernel " + step_name + " (", at);
      EXPECT_NE(next, std::string::npos) << sample << ": " << step_name;
      at = next;
    }
  }
}

TEST(Generate, InnermostLoopsAreVectorized) {
  CodegenOptions opts;  // --isa native
  const Generated c = generate_json(kExample71, opts);
  // The row sum: W lane accumulators in float64, combined after the loop, a scalar remainder.
  EXPECT_TRUE(contains(c.source, "  using ISA = stax_rt::IsaNative;\n"
                                 "  constexpr int64_t W = ISA::width;  // lanes per vector\n")) << c.source;
  EXPECT_TRUE(contains(c.source, "    stax_rt::Vec<double, ISA> vacc0(0.0);\n"
                                 "    for (int64_t r0 = 0; r0 < 128 / W * W; r0 += W) {\n"
                                 "      vacc0 = vacc0 + stax_rt::convert(stax_rt::Vec<float, ISA>::loadu(x + (128 * x0 + r0)), "
                                 "stax_rt::VecTag<double>());\n"
                                 "    }\n"
                                 "    for (int64_t r0 = 128 / W * W; r0 < 128; ++r0) {\n"
                                 "      acc0 += static_cast<double>(x[128 * x0 + r0]);\n"
                                 "    }\n"
                                 "    acc0 += stax_rt::reduce_sum(vacc0);\n"))
      << c.source;
  // The division: the row sum broadcast, a contiguous store.
  EXPECT_TRUE(contains(c.source, "(stax_rt::Vec<float, ISA>::loadu(x + (128 * x0 + x1)) / stax_rt::Vec<float, ISA>(buf1))"
                                 ".storeu(buf2 + (128 * x0 + x1));"))
      << c.source;
  // Pinned sets are checked where the file is built.
  opts.isa = IsaTarget::of(Isa::Avx2);
  const Generated pinned = generate_json(kExample71, opts);
  EXPECT_TRUE(contains(pinned.source, "static_assert(stax_rt::isa_available<stax_rt::IsaAvx2>, \"generated with --isa avx2"));
  EXPECT_TRUE(contains(pinned.source, "using ISA = stax_rt::IsaAvx2;"));
  EXPECT_FALSE(contains(c.source, "static_assert(stax_rt::isa_available"));
  // A transposed read takes the 2-D tiled form (§8.2): staged through an L1 tile, read from it
  // contiguously.
  const Generated t = generate_json(R"({"format": "stax-graph", "version": 1, "name": "tr",
    "inputs": [{"name": "a", "dtype": "float32", "shape": [64, 64]}],
    "nodes": [{"name": "t", "op": "transpose", "args": ["a"], "dim0": 0, "dim1": 1},
              {"name": "y", "op": "add", "args": ["a", "t"]}],
    "outputs": ["y"]})", CodegenOptions{});
  // 64 is a whole number of tiles: their ends are constants.
  EXPECT_TRUE(contains(t.source, "      const int64_t e0 = b0 + 64;\n"
                                 "      const int64_t e1 = b1 + 64;\n"))
      << t.source;
  EXPECT_TRUE(contains(t.source, "      // tile0[(x0 - b0) * 64 + (x1 - b1)] = a[x0 + 64 * x1]\n"
                                 "      alignas(64) float tile0[4096];\n"
                                 "      stax_rt::transpose_tile<ISA>(a + (b0 + 64 * b1), 64, e1 - b1, e0 - b0, tile0, 64);\n"
                                 "      for (int64_t x0 = b0; x0 < e0; ++x0) {\n"
                                 "        for (int64_t x1 = b1; x1 < b1 + (e1 - b1) / W * W; x1 += W) {\n"))
      << t.source;
  // One tile: nothing to prefetch; a small output: plain stores.
  EXPECT_FALSE(contains(t.source, "stax_rt::prefetch_span(")) << t.source;
  EXPECT_FALSE(contains(t.source, "stax_rt::stream_fence();")) << t.source;
  EXPECT_TRUE(contains(t.source, "stax_rt::Vec<float, ISA>::loadu(tile0 + ((x0 - b0) * 64 + (x1 - b1)))")) << t.source;
  // With --isa scalar it is a plain nest.
  EXPECT_FALSE(contains(generate_json(R"({"format": "stax-graph", "version": 1, "name": "tr",
    "inputs": [{"name": "a", "dtype": "float32", "shape": [64, 64]}],
    "nodes": [{"name": "t", "op": "transpose", "args": ["a"], "dim0": 0, "dim1": 1},
              {"name": "y", "op": "add", "args": ["a", "t"]}],
    "outputs": ["y"]})").source, "tile0"));
}

// A convolution's epilogue runs over each block's flattened output positions when every index
// it reads steps from a row's end into the next row's start (a residual of the output's shape, a
// per-channel scale), so 7-wide rows still fill vectors; one read broadcast along the rows (a
// [1, 1, 1, OW] operand) keeps one loop per output row.
TEST(Generate, ConvEpiloguesRunOverFlatPositionsWhenEveryIndexAllows) {
  auto conv_add = [](const std::string& r_shape) {
    return R"({"format": "stax-graph", "version": 1, "name": "ce",
      "inputs": [{"name": "x", "dtype": "float32", "shape": [1, 8, 7, 7]},
                 {"name": "w", "dtype": "float32", "shape": [16, 8, 3, 3]},
                 {"name": "r", "dtype": "float32", "shape": )" + r_shape + R"(}],
      "nodes": [{"name": "y", "op": "add", "args": [{"op": "conv2d", "args": ["x", "w"], "padding": 1}, "r"]}],
      "outputs": ["y"]})";
  };
  const Generated flat = generate_json(conv_add("[1, 16, 7, 7]"), CodegenOptions{});
  EXPECT_TRUE(contains(flat.source, "(each block's positions in lanes along x3 over whole output rows (flat in oh * 7 + "
                                    "ow), a scalar remainder)"))
      << flat.source;
  EXPECT_TRUE(contains(flat.source, "      constexpr int64_t x2 = 0;\n"
                                    "      (void)x2;\n"
                                    "      for (int64_t x3 = j0; x3 < j0 + (j1 - j0) / W * W; x3 += W) {\n"))
      << flat.source;
  const Generated scale = generate_json(conv_add("[16, 1, 1]"), CodegenOptions{});
  EXPECT_TRUE(contains(scale.source, "flat in oh * 7 + ow")) << scale.source;
  const Generated rows = generate_json(conv_add("[1, 1, 1, 7]"), CodegenOptions{});
  EXPECT_FALSE(contains(rows.source, "flat in oh")) << rows.source;
  EXPECT_TRUE(contains(rows.source, "for (int64_t x2 = j0 / 7; x2 * 7 < j1; ++x2)")) << rows.source;
}

TEST(Generate, TiledFormPrefetchesTheNextTileAndStreamsLargeOutputs) {
  // float64 [3, 1000, 1500] (36 MB out) with two operands read permuted: a tile each, staged
  // from the operand's rows at the batch position, the next tile's rows asked for while a row is
  // computed, the output streamed along its rows with one fence per tile.
  const Generated g = generate_json(R"({"format": "stax-graph", "version": 1, "name": "bt",
    "inputs": [{"name": "x", "dtype": "float64", "shape": [3, 1000, 1500]},
               {"name": "y", "dtype": "float64", "shape": [3, 1500, 1000]},
               {"name": "w", "dtype": "float64", "shape": [1500, 1000]}],
    "nodes": [{"name": "t", "op": "permute", "args": ["y"], "dims": [0, 2, 1]},
              {"name": "d", "op": "sub", "args": ["x", "t"]},
              {"name": "z", "op": "mul", "args": ["d", {"op": "transpose", "args": ["w"], "dim0": 0, "dim1": 1}]}],
    "outputs": ["z"]})",
                                        CodegenOptions{});
  EXPECT_TRUE(contains(g.source, "stax_rt::transpose_tile<ISA>(y + (1500000 * x0 + b0 + 1000 * b1), 1000, e1 - b1, e0 - b0, tile0, 64);\n"))
      << g.source;
  // 1000 and 1500 end in partial tiles.
  EXPECT_TRUE(contains(g.source, "const int64_t e0 = b0 + 64 < 1000 ? b0 + 64 : 1000;\n")) << g.source;
  EXPECT_TRUE(contains(g.source, "const int64_t e1 = b1 + 64 < 1500 ? b1 + 64 : 1500;\n")) << g.source;
  EXPECT_TRUE(contains(g.source, "stax_rt::transpose_tile<ISA>(w + (b0 + 1000 * b1), 1000, e1 - b1, e0 - b0, tile1, 64);\n"))
      << g.source;
  EXPECT_TRUE(contains(g.source, "          const int64_t next = b1 + 64 + (x1 - b0);  // a row of the next tile\n"
                                 "          if (next < 1500) stax_rt::prefetch_span(y + (1500000 * x0 + b0 + 1000 * next), e0 - b0);\n"
                                 "          if (next < 1500) stax_rt::prefetch_span(w + (b0 + 1000 * next), e0 - b0);\n"))
      << g.source;
  EXPECT_TRUE(contains(g.source, ".stream(buf")) << g.source;
  EXPECT_TRUE(contains(g.source, "        }\n        stax_rt::stream_fence();  // once per tile\n")) << g.source;
}

TEST(Generate, PoolWindowsReduceFourVectorsInRegisters) {
  // max_pool2d 3 x 3, stride 2, padding 1 (ResNet's stem pool): the lanes run across the output
  // columns, four vectors of them side by side through the whole window, then the rest of the
  // row (the constants leave the compiler only the vectors it needs, the last masked); stride 2
  // is two loads and a shuffle, the window's edges ranges of lanes or scalar comparisons.
  const Generated mp = generate_json(R"({"format": "stax-graph", "version": 1, "name": "mp",
    "inputs": [{"name": "x", "dtype": "float32", "shape": [1, 4, 20, 150]}],
    "nodes": [{"name": "y", "op": "max_pool2d", "args": ["x"], "kernel_size": 3, "stride": 2, "padding": 1}],
    "outputs": ["y"]})", CodegenOptions{});
  EXPECT_TRUE(contains(mp.source, "constexpr int64_t x20_whole = 75 / (4 * W) * (4 * W);")) << mp.source;
  EXPECT_TRUE(contains(mp.source, "for (int64_t x20 = 0; x20 < x20_whole; x20 += 4 * W) {")) << mp.source;
  EXPECT_TRUE(contains(mp.source, "stax_rt::Vec<float, ISA> vacc0_3(-stax_rt::inf<float>());")) << mp.source;
  EXPECT_TRUE(contains(mp.source, "[[maybe_unused]] const int64_t x2 = x20 + 3 * W;")) << mp.source;
  EXPECT_TRUE(contains(mp.source, "stax_rt::Mask<ISA>(2 * x1 + r0 - 1 >= int64_t{0}) & "
                                  "stax_rt::lanes_at_least<ISA>(2 * x2 + r1 - 1, 2, int64_t{0}, false)")) << mp.source;
  EXPECT_TRUE(contains(mp.source, "stax_rt::load_even_masked(x + (3000 * x0 + 300 * x1 + 2 * x2 + 150 * r0 + r1 - 151)")) << mp.source;
  EXPECT_TRUE(contains(mp.source, "if (x20_whole < 75) {")) << mp.source;
  EXPECT_TRUE(contains(mp.source, "vacc0_0.storeu(buf1 + (750 * x0 + 75 * x1 + x2), n);")) << mp.source;
}

TEST(Generate, PoolWindowsOfNarrowRowsAreOneMaskedVector) {
  // An Inception block's 3 x 3 stride-1 pool on 14 x 14: fewer columns than a vector, still in
  // lanes (one masked vector per row), not a scalar loop over the window.
  const Generated mp = generate_json(R"({"format": "stax-graph", "version": 1, "name": "mp",
    "inputs": [{"name": "x", "dtype": "float32", "shape": [1, 8, 14, 14]}],
    "nodes": [{"name": "y", "op": "max_pool2d", "args": ["x"], "kernel_size": 3, "stride": 1, "padding": 1}],
    "outputs": ["y"]})", CodegenOptions{});
  EXPECT_TRUE(contains(mp.source, "constexpr int64_t x20_whole = 14 / (4 * W) * (4 * W);")) << mp.source;
  EXPECT_TRUE(contains(mp.source, "vacc0_0.storeu(buf1 + (196 * x0 + 14 * x1 + x2), n);")) << mp.source;
  EXPECT_FALSE(contains(mp.source, "float acc0 = -stax_rt::inf<float>();")) << mp.source;
}

TEST(Generate, BatchedProductsOfOneWeightAreOneProduct) {
  // A linear on channels-last [1, 6, 5, 24]: B is the same for every batch position and A's rows
  // continue across them, so one product of 30 rows (B packed once), the epilogue's rows split
  // back into the batch position and the row.
  const Generated g = generate_json(R"({"format": "stax-graph", "version": 1, "name": "lin",
    "inputs": [{"name": "x", "dtype": "float32", "shape": [1, 6, 5, 24]}],
    "constants": [{"name": "w", "dtype": "float32", "shape": [24, 20], "fill": 0.5}],
    "nodes": [{"name": "m", "op": "matmul", "args": ["x", "w"]},
              {"name": "y", "op": "relu", "args": ["m"]}],
    "outputs": ["y"]})", CodegenOptions{});
  EXPECT_TRUE(contains(g.source, "[5, 24] x [24, 20] per batch [1, 6], as one [30, 24] x [24, 20] product")) << g.source;
  EXPECT_TRUE(contains(g.source, "const int64_t x2 = xr % 5, xb = xr / 5;")) << g.source;
  EXPECT_TRUE(contains(g.source, "stax_rt::matmul_packed_once<float>(x, 24, 1, w, 20, 1, packed, ")) << g.source;
  EXPECT_TRUE(contains(g.source, ", 30, 20, 24, epilogue);")) << g.source;
  EXPECT_FALSE(contains(g.source, "stax_rt::matmul_batched<float>(")) << g.source;
}

TEST(Generate, ColumnMeansDivideEachColumnsSumAsItsBlockIsFinished) {
  // mean over the middle dim of [4, 300, 40]: 300 rows are more than a window, so one accumulator
  // per column in an L1 array, read row by row across the contiguous columns, and the mean's
  // division on each column's sum once the block is done (no scalar loop down the columns).
  const Generated g = generate_json(R"({"format": "stax-graph", "version": 1, "name": "cm",
    "inputs": [{"name": "x", "dtype": "float32", "shape": [4, 300, 40]}],
    "nodes": [{"name": "m", "op": "mean", "args": ["x"], "dim": 1}],
    "outputs": ["m"]})", CodegenOptions{});
  EXPECT_TRUE(contains(g.source, "t0 = t0 + stax_rt::convert(stax_rt::Vec<float, ISA>::loadu(x + (12000 * x0 + x1 + 40 * r0)), "
                                 "stax_rt::VecTag<double>());\n")) << g.source;
  EXPECT_TRUE(contains(g.source, "      for (int64_t x1 = b0 * 1024; x1 < e0; ++x1) {\n"
                                 "        const float buf1 = static_cast<float>(vacc0[x1 - b0 * 1024]);\n"
                                 "        buf2[40 * x0 + x1] = buf1 / 300.0f;\n")) << g.source;
  EXPECT_FALSE(contains(g.source, "double acc0 = 0.0;")) << g.source;
}

TEST(Generate, ScansOverAnInnerDimRunAcrossTheLastDim) {
  // cumsum over dim 1 of [4, 300, 40]: the carried loop outside the last dim's, one accumulator
  // per line (element of the last dim) in an array, so reads and writes go along the rows; each
  // line still summed in order.
  const Generated g = generate_json(R"({"format": "stax-graph", "version": 1, "name": "cs",
    "inputs": [{"name": "x", "dtype": "float32", "shape": [4, 300, 40]}],
    "nodes": [{"name": "y", "op": "cumsum", "args": ["x"], "dim": 1}],
    "outputs": ["y"]})", CodegenOptions{});
  EXPECT_TRUE(contains(g.source, "      alignas(64) double acc[1024];  // one per line: element x2 of the last dim\n"
                                 "      for (int64_t x2 = b0 * 1024; x2 < e0; ++x2) acc[x2 - b0 * 1024] = 0.0;\n"
                                 "      for (int64_t x1 = 0; x1 < 300; ++x1) {\n"
                                 "        for (int64_t x2 = b0 * 1024; x2 < e0; ++x2) {\n"
                                 "          acc[x2 - b0 * 1024] += static_cast<double>(x[12000 * x0 + 40 * x1 + x2]);\n"
                                 "          buf1[12000 * x0 + 40 * x1 + x2] = static_cast<float>(acc[x2 - b0 * 1024]);\n"))
      << g.source;
  // Over the last dim: the carried loop innermost, one accumulator.
  const Generated last = generate_json(R"({"format": "stax-graph", "version": 1, "name": "cs",
    "inputs": [{"name": "x", "dtype": "float32", "shape": [4, 300, 40]}],
    "nodes": [{"name": "y", "op": "cumsum", "args": ["x"], "dim": 2}],
    "outputs": ["y"]})", CodegenOptions{});
  EXPECT_TRUE(contains(last.source, "      double acc = 0.0;\n      for (int64_t x2 = 0; x2 < 40; ++x2) {\n")) << last.source;
}

TEST(Generate, ColumnSumsVectorizeAcrossColumnsAndLargeOutputsStream) {
  // sum over dim 0: the reduction reads with a stride of 4096, so the lanes run across the
  // contiguous columns, one accumulator per column in an L1 array, the threads sharing blocks of
  // 1024 columns, each row's piece of a block read contiguously and prefetched 16 rows (64 KiB)
  // ahead, as the pieces are a page apart.
  const Generated cs = generate_json(R"({"format": "stax-graph", "version": 1, "name": "cs",
    "inputs": [{"name": "x", "dtype": "float32", "shape": [64, 4096]}],
    "nodes": [{"name": "s", "op": "sum", "args": ["x"], "dim": 0}],
    "outputs": ["s"]})", CodegenOptions{});
  EXPECT_TRUE(contains(cs.source, "#pragma omp for schedule(static)\n"
                                  "  for (int64_t b0 = 0; b0 < 4; ++b0) {\n"
                                  "    const int64_t e0 = b0 * 1024 + 1024 < 4096 ? b0 * 1024 + 1024 : 4096;\n"
                                  "    alignas(64) double vacc0[1024];\n"
                                  "    for (int64_t x0 = b0 * 1024; x0 < e0; ++x0) vacc0[x0 - b0 * 1024] = 0.0;\n"
                                  "    for (int64_t r0 = 0; r0 < 64; ++r0) {\n"
                                  "      const int64_t ahead = r0 + 16 < 64 ? 16 : 0;  // rows prefetched ahead\n"
                                  "      for (int64_t x0 = b0 * 1024; x0 < b0 * 1024 + (e0 - b0 * 1024) / W * W; x0 += W) {\n"
                                  "        __builtin_prefetch(x + (x0 + 4096 * r0) + ahead * 4096);\n"
                                  "        stax_rt::Vec<double, ISA> t0 = stax_rt::Vec<double, ISA>::loadu(vacc0 + (x0 - b0 * 1024));\n"
                                  "        t0 = t0 + stax_rt::convert(stax_rt::Vec<float, ISA>::loadu(x + (x0 + 4096 * r0)), "
                                  "stax_rt::VecTag<double>());\n"
                                  "        t0.storeu(vacc0 + (x0 - b0 * 1024));\n"))
      << cs.source;
  // Rows that follow one another ([64, 512]: one block, each row right after the last) are left
  // to the hardware prefetcher.
  EXPECT_FALSE(contains(generate_json(R"({"format": "stax-graph", "version": 1, "name": "cs",
    "inputs": [{"name": "x", "dtype": "float32", "shape": [64, 512]}],
    "nodes": [{"name": "s", "op": "sum", "args": ["x"], "dim": 0}],
    "outputs": ["s"]})", CodegenOptions{}).source, "__builtin_prefetch"));
  // 16 MiB written by one long loop: plain stores up to the 64-byte boundary, then streamed.
  const Generated big = generate_json(R"({"format": "stax-graph", "version": 1, "name": "big",
    "inputs": [{"name": "x", "dtype": "float32", "shape": [4096, 1024]}],
    "nodes": [{"name": "y", "op": "exp", "args": ["x"]}],
    "outputs": ["y"]})", CodegenOptions{});
  EXPECT_TRUE(contains(big.source, "    const int64_t s0 = b0 * 4096 + stax_rt::aligned_start(buf1 + b0 * 4096, e0 - b0 * 4096);\n"))
      << big.source;
  EXPECT_TRUE(contains(big.source, "stax_rt::exp(stax_rt::Vec<float, ISA>::loadu(x + (x0))).stream(buf1 + (x0));"));
  // Each thread fences its streamed stores once, after its share of the loop, then waits for
  // the others (the loop's own barrier would come before the fence).
  EXPECT_TRUE(contains(big.source, "#pragma omp for schedule(static) nowait\n  for (int64_t b0 = 0; b0 < 1024; ++b0) {\n"))
      << big.source;
  EXPECT_TRUE(contains(big.source, "  }\n  stax_rt::stream_fence();  // once per thread, after all its streamed stores\n"
                                   "#pragma omp barrier\n}\n")) << big.source;
  EXPECT_EQ(big.source.find("stax_rt::stream_fence();"), big.source.rfind("stax_rt::stream_fence();"));
  // Below 16 MiB ordinary stores.
  EXPECT_FALSE(contains(cs.source, ".stream("));
}

TEST(Generate, StreamedRowsAreFencedOncePerThreadNotPerRow) {
  // A [16, 512, 16, 128] permute into 64 MiB: 131072 streamed rows of 512 bytes, each thread's
  // stores fenced once after all of its rows (a fence per row took 4x as long).
  const Generated g = generate_json(R"({"format": "stax-graph", "version": 1, "name": "pm",
    "inputs": [{"name": "x", "dtype": "float32", "shape": [16, 512, 16, 128]}],
    "nodes": [{"name": "y", "op": "mul", "args": [{"op": "permute", "args": ["x"], "dims": [0, 2, 1, 3]}, 2.0]}],
    "outputs": ["y"]})", CodegenOptions{});
  EXPECT_TRUE(contains(g.source, "#pragma omp for collapse(2) schedule(static) nowait\n")) << g.source;
  EXPECT_TRUE(contains(g.source, ".stream(buf")) << g.source;
  EXPECT_TRUE(contains(g.source, "      }\n    }\n  }\n  stax_rt::stream_fence();  // once per thread, after all its streamed stores\n"
                                 "#pragma omp barrier\n}\n")) << g.source;
  EXPECT_EQ(g.source.find("stax_rt::stream_fence();"), g.source.rfind("stax_rt::stream_fence();")) << g.source;
}

TEST(Generate, RowKernelsSumInTheLoopThatComputesAndPrefetchTheNextRow) {
  // A softmax over 8 MiB of rows: the row is read from memory by the max, then worked on in the
  // cache; the exp loop, the longest, fetches the thread's next row into L2 (no prefetch past the
  // last row), the division after it does not.
  const char* softmax = R"({"format": "stax-graph", "version": 1, "name": "sm",
    "inputs": [{"name": "x", "dtype": "float32", "shape": [ROWS, 1024]}],
    "nodes": [{"name": "m", "op": "amax", "args": ["x"], "dim": -1, "keepdim": true},
              {"name": "e", "op": "exp", "args": [{"op": "sub", "args": ["x", "m"]}]},
              {"name": "s", "op": "sum", "args": ["e"], "dim": -1, "keepdim": true},
              {"name": "y", "op": "div", "args": ["e", "s"]}],
    "outputs": ["y"]})";
  auto with_rows = [&](const std::string& rows) {
    std::string text = softmax;
    text.replace(text.find("ROWS"), 4, rows);
    return generate_json(text, CodegenOptions{}).source;
  };
  const std::string big = with_rows("2048");
  EXPECT_TRUE(contains(big, "    const int64_t next = x0 + 1 < 2048 ? 1 : 0;  // the row prefetched\n"
                            "    for (int64_t x1 = 0; x1 < 1024 / W * W; x1 += W) {\n"
                            "      __builtin_prefetch(x + (1024 * x0 + x1) + next * 1024, 0, 2);\n"
                            "      stax_rt::exp("))
      << big;
  EXPECT_EQ(big.find("__builtin_prefetch"), big.rfind("__builtin_prefetch"));  // once: the exp loop
  // The sum reads the exp only where the exp loop has just computed it: it runs in that loop
  // (three passes over the row: max, exp and sum, div), its remainder too.
  EXPECT_TRUE(contains(big, "      stax_rt::exp(stax_rt::Vec<float, ISA>::loadu(x + (1024 * x0 + x1)) - "
                            "stax_rt::Vec<float, ISA>(buf1)).storeu(buf2 + (x1));\n"
                            "      const int64_t r0 = x1;\n"
                            "      vacc2 = vacc2 + stax_rt::convert(stax_rt::Vec<float, ISA>::loadu(buf2 + (r0)), "
                            "stax_rt::VecTag<double>());\n"
                            "    }\n"))
      << big;
  EXPECT_TRUE(contains(big, "      buf2[x1] = stax_rt::exp(x[1024 * x0 + x1] - buf1);\n"
                            "      const int64_t r0 = x1;\n"
                            "      acc2 += static_cast<double>(buf2[r0]);\n"));
  // The max alone has loops of its own: four chains of vectors (exact in any order; one chain
  // waits on each step), then its vector and scalar remainders, the chains combined after them.
  std::size_t reduction_loops = 0;
  for (std::size_t at = big.find("for (int64_t r0"); at != std::string::npos; at = big.find("for (int64_t r0", at + 1))
    ++reduction_loops;
  EXPECT_EQ(reduction_loops, 3u);
  EXPECT_TRUE(contains(big, "    constexpr int64_t r0_whole = 1024 / (4 * W) * (4 * W);  // in whole groups of 4 vectors\n"
                            "    for (int64_t r0c = 0; r0c < r0_whole; r0c += 4 * W) {\n"
                            "      {\n"
                            "        const int64_t r0 = r0c;\n"
                            "        vacc0 = stax_rt::maximum(vacc0, stax_rt::Vec<float, ISA>::loadu(x + (1024 * x0 + r0)));\n"
                            "      }\n")) << big;
  EXPECT_TRUE(contains(big, "        const int64_t r0 = r0c + 3 * W;\n"
                            "        vacc0_3 = stax_rt::maximum(vacc0_3, stax_rt::Vec<float, ISA>::loadu(x + (1024 * x0 + r0)));\n")) << big;
  EXPECT_TRUE(contains(big, "    vacc0 = stax_rt::maximum(vacc0, vacc0_1);\n"
                            "    vacc0 = stax_rt::maximum(vacc0, vacc0_2);\n"
                            "    vacc0 = stax_rt::maximum(vacc0, vacc0_3);\n")) << big;
  // The sum of floats keeps one chain: its order is its bits.
  EXPECT_FALSE(contains(big, "vacc2_1")) << big;
  // 256 KiB of rows stay in the cache: nothing to fetch.
  EXPECT_FALSE(contains(with_rows("64"), "__builtin_prefetch"));
  // Without transcendentals the last loop asks for the next row: a layer norm's normalization,
  // after both of its reductions.
  const std::string ln = generate_json(R"({"format": "stax-graph", "version": 1, "name": "ln",
    "inputs": [{"name": "x", "dtype": "float32", "shape": [2048, 1024]}],
    "nodes": [{"name": "m", "op": "mean", "args": ["x"], "dim": -1, "keepdim": true},
              {"name": "d", "op": "sub", "args": ["x", "m"]},
              {"name": "v", "op": "mean", "args": [{"op": "mul", "args": ["d", "d"]}], "dim": -1, "keepdim": true},
              {"name": "y", "op": "mul", "args": ["d", {"op": "rsqrt", "args": [{"op": "add", "args": ["v", 1e-5]}]}]}],
    "outputs": ["y"]})", CodegenOptions{}).source;
  ASSERT_NE(ln.find("__builtin_prefetch"), std::string::npos) << ln;
  EXPECT_EQ(ln.find("__builtin_prefetch"), ln.rfind("__builtin_prefetch")) << ln;
  EXPECT_GT(ln.find("__builtin_prefetch"), ln.rfind("for (int64_t r0")) << ln;
}

TEST(Generate, ArgReductionsKeepValueAndPositionLanes) {
  // argmax over rows: lanes of (value, position) starting at -inf with no position, positions
  // int32 (they fit), the scalar remainder in the ArgAcc, the lanes folded into it after the
  // loop (Proposition 8.1). argmin over columns: values and positions of a block's columns in
  // L1, every lane at the row's one position.
  const Generated c = generate_json(R"({"format": "stax-graph", "version": 1, "name": "am",
    "inputs": [{"name": "x", "dtype": "float32", "shape": [64, 100]}],
    "nodes": [{"name": "i", "op": "argmax", "args": ["x"], "dim": -1},
              {"name": "j", "op": "argmin", "args": ["x"], "dim": 0}],
    "outputs": ["i", "j"]})", CodegenOptions{});
  EXPECT_TRUE(contains(c.source, "    stax_rt::ArgAcc<float> acc0 = stax_rt::arg_init<float>();\n"
                                 "    stax_rt::ArgLanes<float, int32_t, ISA> vacc0(-stax_rt::inf<float>());\n"
                                 "    for (int64_t r0 = 0; r0 < 100 / W * W; r0 += W) {\n"
                                 "      stax_rt::argmax_update(vacc0, stax_rt::Vec<float, ISA>::loadu(x + (100 * x0 + r0)), "
                                 "stax_rt::Vec<int32_t, ISA>::iota(static_cast<int32_t>(r0)));\n"
                                 "    }\n"
                                 "    for (int64_t r0 = 100 / W * W; r0 < 100; ++r0) {\n"
                                 "      stax_rt::argmax_update<float>(acc0, x[100 * x0 + r0], r0);\n"
                                 "    }\n"
                                 "    stax_rt::argmax_combine(acc0, vacc0);\n"
                                 "    buf1[x0] = acc0.index;\n"))
      << c.source;
  EXPECT_TRUE(contains(c.source, "    stax_rt::ArgColumns<float, int32_t, 1024> vacc0;\n"
                                 "    for (int64_t x0 = b0 * 1024; x0 < e0; ++x0) vacc0.clear(x0 - b0 * 1024, stax_rt::inf<float>());\n"
                                 "    for (int64_t r0 = 0; r0 < 64; ++r0) {\n"
                                 "      for (int64_t x0 = b0 * 1024; x0 < b0 * 1024 + (e0 - b0 * 1024) / W * W; x0 += W) {\n"
                                 "        stax_rt::ArgLanes<float, int32_t, ISA> t0 = stax_rt::ArgLanes<float, int32_t, ISA>::loadu(vacc0, x0 - b0 * 1024);\n"
                                 "        stax_rt::argmin_update(t0, stax_rt::Vec<float, ISA>::loadu(x + (x0 + 100 * r0)), "
                                 "stax_rt::Vec<int32_t, ISA>(static_cast<int32_t>(r0)));\n"
                                 "        t0.storeu(vacc0, x0 - b0 * 1024);\n"
                                 "      }\n"
                                 "      for (int64_t x0 = b0 * 1024 + (e0 - b0 * 1024) / W * W; x0 < e0; ++x0) {\n"
                                 "        stax_rt::argmin_update(vacc0, x0 - b0 * 1024, x[x0 + 100 * r0], r0);\n"
                                 "      }\n"
                                 "    }\n"
                                 "    for (int64_t x0 = b0 * 1024; x0 < e0; ++x0) {\n"
                                 "      buf2[x0] = vacc0.position(x0 - b0 * 1024);\n"))
      << c.source;
  // 2^31 positions do not fit int32 lanes beside the no-position mark: int64 lanes.
  const Generated big = generate_json(R"({"format": "stax-graph", "version": 1, "name": "big",
    "inputs": [{"name": "x", "dtype": "float64", "shape": [1]}],
    "nodes": [{"name": "i", "op": "argmax", "args": [{"op": "expand", "args": ["x"], "shape": [2147483648]}]}],
    "outputs": ["i"]})", CodegenOptions{});
  EXPECT_TRUE(contains(big.source, "stax_rt::ArgLanes<double, int64_t, ISA> vacc0(-stax_rt::inf<double>());")) << big.source;
  EXPECT_TRUE(contains(big.source, "stax_rt::Vec<int64_t, ISA>::iota(r0)"));
  // prod, any and all keep vector accumulators too (float32 products in float64 lanes).
  const Generated pa = generate_json(R"({"format": "stax-graph", "version": 1, "name": "pa",
    "inputs": [{"name": "x", "dtype": "float32", "shape": [64, 100]}],
    "nodes": [{"name": "p", "op": "prod", "args": ["x"], "dim": -1},
              {"name": "a", "op": "any", "args": [{"op": "gt", "args": ["x", 2.0]}], "dim": -1},
              {"name": "l", "op": "all", "args": [{"op": "lt", "args": ["x", 3.0]}], "dim": -1}],
    "outputs": ["p", "a", "l"]})", CodegenOptions{});
  for (const char* line : {"stax_rt::Vec<double, ISA> vacc0(1.0);", "stax_rt::Mask<ISA> vacc1(false);",
                           "stax_rt::Mask<ISA> vacc2(true);",
                           "vacc0 = vacc0 * stax_rt::convert(stax_rt::Vec<float, ISA>::loadu(x + (100 * x0 + r0)), "
                           "stax_rt::VecTag<double>());",
                           "acc0 *= stax_rt::reduce_prod(vacc0);", "acc1 |= stax_rt::any(vacc1);", "acc2 &= stax_rt::all(vacc2);"})
    EXPECT_TRUE(contains(pa.source, line)) << line << "\n" << pa.source;
}

TEST(Generate, OnlyTheUsedPreludeSections) {
  const Generated c = generate_json(kExample71);
  EXPECT_TRUE(contains(c.source, "#define STAX_RT_CORE"));
  EXPECT_TRUE(contains(c.source, "#define STAX_RT_WRAPPER"));
  EXPECT_FALSE(contains(c.source, "STAX_RT_MATH"));
  EXPECT_FALSE(contains(c.source, "STAX_RT_INTDIV"));
  EXPECT_FALSE(contains(c.source, "STAX_RT_MATMUL"));
  EXPECT_FALSE(contains(c.source, "@section"));
  const Generated soft = generate_file("softmax.json");
  EXPECT_TRUE(contains(soft.source, "#define STAX_RT_MATH"));
  EXPECT_TRUE(contains(soft.source, "stax_rt::exp("));
}

TEST(Generate, LargeLoopsRunInParallel) {
  const Generated c = generate_json(R"({"format": "stax-graph", "version": 1, "name": "big",
    "inputs": [{"name": "a", "dtype": "int32", "shape": [4, 3, 20000]},
               {"name": "b", "dtype": "float32", "shape": [4, 5, 20000]}, {"name": "c", "dtype": "float32", "shape": [5, 1]},
               {"name": "d", "dtype": "float32", "shape": [500]}],
    "nodes": [{"name": "q", "op": "div", "args": ["a", 3], "rounding_mode": "floor"},
              {"name": "t", "op": "transpose", "args": ["q"], "dim0": 0, "dim1": 2},
              {"name": "y", "op": "add", "args": ["t", 1]},
              {"name": "z", "op": "add", "args": ["b", "c"]},
              {"name": "w", "op": "mul", "args": ["d", 2.0]}],
    "outputs": ["y", "z", "w"]})");
  // The error flag reduced over the threads; Algorithm 8.1 line 4 at run time in the if clause.
  EXPECT_TRUE(contains(c.source, "int err = 0;\n#pragma omp parallel for schedule(static) reduction(|:err) "
                                 "if (240000 >= 512 * static_cast<int64_t>(omp_get_max_threads()))\n"
                                 "  for (int64_t x0 = 0; x0 < 20000; ++x0) {")) << c.source;
  // Loops that cannot merge (c broadcasts): collapsed until they give 64 units, the innermost
  // (contiguous) loop left out; worksharing in the region the wrapper opens.
  EXPECT_TRUE(contains(c.source, "#pragma omp for collapse(2) schedule(static)\n"
                                 "  for (int64_t x0 = 0; x0 < 4; ++x0) {\n"
                                 "    for (int64_t x1 = 0; x1 < 5; ++x1) {\n"
                                 "      for (int64_t x2 = 0; x2 < 20000; ++x2) {")) << c.source;
  EXPECT_TRUE(contains(c.source, "if (const int failed = kernel_op0(a, buf4)) return stax_rt::kernel_error(failed);"))
      << c.source;
  // 500 iterations: too few for two threads' chunks of 512, no OpenMP at all.
  EXPECT_TRUE(contains(c.source, "void kernel_op2(const float* d, float* buf6) {\n"
                                 "  for (int64_t x0 = 0; x0 < 500; ++x0) {")) << c.source;
}

TEST(Generate, NamesAreMangledAndStillReadable) {
  const Generated c = generate_json(R"({"format": "stax-graph", "version": 1, "name": "names",
    "inputs": [{"name": "x.1", "dtype": "float32", "shape": [4]}, {"name": "and", "dtype": "float32", "shape": [4]},
               {"name": "kernel_op0_op1", "dtype": "float32", "shape": [4]}],
    "nodes": [{"name": "conv-out", "op": "mul", "args": ["x.1", "and"]},
              {"name": "int", "op": "add", "args": ["conv-out", "kernel_op0_op1"]}],
    "outputs": ["int", "conv-out"]})");
  EXPECT_TRUE(contains(c.source, "const float* const x_1 = static_cast<const float*>(inputs[0]);")) << c.source;
  EXPECT_TRUE(contains(c.source, "const float* const and_ = "));
  // The input called kernel_op0_op1 keeps its name; the kernel computing both takes another.
  EXPECT_TRUE(contains(c.source, "const float* const kernel_op0_op1 = static_cast<const float*>(inputs[2]);"));
  EXPECT_TRUE(contains(c.source, "void kernel_op0_op1_2(const float* x_1, const float* and_, const float* kernel_op0_op1, "
                                 "float* buf3, float* buf4) {")) << c.source;
  // The C API keeps the graph's names.
  EXPECT_TRUE(contains(c.source, "{\"x.1\", STAX_FLOAT32, 1, kInputShape0},"));
  EXPECT_TRUE(contains(c.source, "{\"conv-out\", STAX_FLOAT32, 1, kOutputShape1},"));
}

TEST(Generate, ModelNameOptionAndChecks) {
  CodegenOptions opts;
  opts.name = "softmax_v2";
  const Generated c = generate_json(kExample71, opts);
  EXPECT_TRUE(contains(c.source, "int softmax_v2_run(const void* const* inputs, void* const* outputs, void* workspace) {"));
  EXPECT_TRUE(contains(c.source, "namespace stax_softmax_v2_model {"));
  EXPECT_FALSE(contains(c.source, "ex71"));
  for (const char* bad : {"2x", "_x", "a-b", "int", "a__b", ""}) {
    opts.name = bad;
    EXPECT_THROW(check_model_name(bad), UserError) << bad;
  }
}

TEST(Generate, HeaderDeclaresTheApiAndItsConstants) {
  const Generated c = generate_json(kExample71);
  EXPECT_TRUE(contains(c.header, "#ifndef STAX_GENERATED_ex71_H"));
  EXPECT_TRUE(contains(c.header, "#define ex71_WORKSPACE_SIZE ((size_t)0)"));
  EXPECT_TRUE(contains(c.header, "#define ex71_WORKSPACE_ALIGNMENT ((size_t)64)"));
  EXPECT_TRUE(contains(c.header, "#define ex71_NUM_INPUTS 1"));
  EXPECT_TRUE(contains(c.header, "int ex71_run(const void* const* inputs, void* const* outputs, void* workspace);"));
  EXPECT_TRUE(contains(c.header, "int ex71_run_checked(int num_inputs,"));
  EXPECT_TRUE(contains(c.header, "const int64_t* ex71_output_shape(int i);"));
  EXPECT_TRUE(contains(c.header, "     0  x: float32[64, 128]\n"));
  EXPECT_TRUE(contains(c.header, "typedef struct stax_layout {"));
  EXPECT_FALSE(contains(c.header, "namespace"));
}

TEST(Generate, ConstantsAreStaticArrays) {
  const Generated c = generate_json(R"({"format": "stax-graph", "version": 1, "name": "k",
    "inputs": [{"name": "x", "dtype": "float32", "shape": [3]}],
    "constants": [{"name": "w", "dtype": "float32", "shape": [3], "data": [0.1, "-inf", "nan"]}],
    "nodes": [{"name": "y", "op": "add", "args": ["x", "w"]}],
    "outputs": ["y", "w"]})");
  EXPECT_TRUE(contains(c.source, "alignas(64) const float w[3] = {\n    0.1f, -stax_rt::inf<float>(), stax_rt::nan<float>()\n};"))
      << c.source;
  EXPECT_TRUE(contains(c.source, "std::memcpy(outputs[1], w, sizeof(float) * 3);"));
}

// neg(full(-0.25)) once wrote `--0.25f`, a decrement that does not build; PyTorch's value is 0.25
// (checked end to end in test/e2e).
TEST(Generate, NegationOfANegativeLiteralIsNotADecrement) {
  const Generated c = generate_json(R"({"format": "stax-graph", "version": 1, "name": "k",
    "inputs": [],
    "nodes": [{"name": "y", "op": "neg", "args": [{"op": "full", "args": [], "shape": [], "value": -0.25}]},
              {"name": "z", "op": "neg", "args": [{"op": "full", "args": [], "shape": [], "value": "-inf"}]}],
    "outputs": ["y", "z"]})");
  EXPECT_FALSE(contains(c.source, "--0.25f")) << c.source;
  EXPECT_FALSE(contains(c.source, "--stax_rt::inf")) << c.source;
  EXPECT_TRUE(contains(c.source, "- -0.25f")) << c.source;
}

}  // namespace
}  // namespace stax::codegen
