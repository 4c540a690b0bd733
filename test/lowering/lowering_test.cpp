// Lowering on small graphs: the IR it produces (golden-ish dumps and structural checks) and
// its materialization decisions; numbers are checked against the interpreter too.
#include "stax/lowering/lower.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "compare.h"
#include "ir_eval.h"
#include "stax/graph/frontend.h"
#include "stax/ir/printer.h"
#include "stax/support/error.h"

namespace stax::lowering {
namespace {

graph::Graph parse(const std::string& inputs, const std::string& nodes, const std::string& outputs,
                   const std::string& constants = "[]") {
  std::string json = R"({"format": "stax-graph", "version": 1, "name": "t", "inputs": )" + inputs +
                     R"(, "constants": )" + constants + R"(, "nodes": )" + nodes +
                     R"(, "outputs": )" + outputs + "}";
  return graph::expand_composites(graph::parse_graph(json));
}

ir::Program lower_text(const std::string& inputs, const std::string& nodes,
                       const std::string& outputs, const std::string& constants = "[]") {
  return lower(parse(inputs, nodes, outputs, constants));
}

std::vector<ir::BufferKind> kinds(const ir::Program& p) {
  std::vector<ir::BufferKind> k;
  for (const ir::Buffer& b : p.buffers) k.push_back(b.kind);
  return k;
}

std::string body(const ir::Program& p, ir::BufferId id) {
  return ir::to_string(p[id].body, p.buffer_names());
}

using K = ir::BufferKind;

// Every graph of this file also runs through the IR interpreter against the reference.
void expect_numbers(const graph::Graph& g) {
  EXPECT_EQ(testing::compare_with_interpreter(g, 5), "");
}

const char* kX64x128 = R"([{"name": "x", "dtype": "float32", "shape": [64, 128]}])";

TEST(Lowering, Example71Dump) {
  graph::Graph g = parse(kX64x128,
                         R"([{"name": "s", "op": "sum", "args": ["x"], "dim": -1, "keepdim": true},
                             {"name": "y", "op": "div", "args": ["x", "s"]}])",
                         R"(["y"])");
  EXPECT_EQ(ir::dump_ir(lower(g)),
            "program t\n"
            "x: float32[64, 128] = input 0\n"
            "buf1: float32[64, 1] = reduction sum  (s)\n"
            "  loops x0 < 64, x1 < 1 | r0 < 128\n"
            "  t0 = load x[128*x0 + r0]  : float32\n"
            "  return t0\n"
            "buf2: float32[64, 128] = pointwise  (y)\n"
            "  loops x0 < 64, x1 < 128\n"
            "  t0 = load x[128*x0 + x1]  : float32\n"
            "  t1 = load buf1[x0]  : float32\n"
            "  t2 = div(t0, t1)  : float32\n"
            "  return t2\n"
            "outputs buf2\n");
  expect_numbers(g);
}

TEST(Lowering, DumpIsDeterministic) {
  graph::Graph g = graph::expand_composites(
      graph::load_graph(std::string(STAX_SOURCE_DIR) + "/samples/layer_norm.json"));
  EXPECT_EQ(ir::dump_ir(lower(g)), ir::dump_ir(lower(g)));
}

TEST(Lowering, Example72MaterializesExp) {
  // e = x.exp(); e.sum(-1), e.amax(-1): exp has two users and is expensive (CPU rule 1).
  graph::Graph g = parse(kX64x128,
                         R"([{"name": "e", "op": "exp", "args": ["x"]},
                             {"name": "s", "op": "sum", "args": ["e"], "dim": -1},
                             {"name": "m", "op": "amax", "args": ["e"], "dim": -1}])",
                         R"(["s", "m"])");
  ir::Program p = lower(g);
  ASSERT_EQ(kinds(p), (std::vector<K>{K::Input, K::Pointwise, K::Reduction, K::Reduction}));
  EXPECT_EQ(body(p, 1), "exp(x[128*x0 + x1])");
  EXPECT_EQ(p[1].origins, (std::vector<std::string>{"e"}));
  EXPECT_EQ(body(p, 2), "buf1[128*x0 + r0]");
  EXPECT_EQ(p[2].reduce_op, ir::ReduceOp::Sum);
  EXPECT_EQ(body(p, 3), "buf1[128*x0 + r0]");
  EXPECT_EQ(p[3].reduce_op, ir::ReduceOp::Max);
  EXPECT_EQ(p.outputs.size(), 2u);
  EXPECT_EQ(p.outputs[0].buffer, 2);
  EXPECT_EQ(p.outputs[1].buffer, 3);
  expect_numbers(g);
}

TEST(Lowering, SingleUseExpIsInlined) {
  graph::Graph g = parse(kX64x128,
                         R"([{"name": "e", "op": "exp", "args": ["x"]},
                             {"name": "s", "op": "sum", "args": ["e"], "dim": -1}])",
                         R"(["s"])");
  ir::Program p = lower(g);
  ASSERT_EQ(kinds(p), (std::vector<K>{K::Input, K::Reduction}));
  EXPECT_EQ(body(p, 1), "exp(x[128*x0 + r0])");
  EXPECT_EQ(p[1].origins, (std::vector<std::string>{"e", "s"}));
  expect_numbers(g);
}

TEST(Lowering, CheapProducerWithTwoUsersIsInlinedTwice) {
  graph::Graph g = parse(kX64x128,
                         R"([{"name": "a", "op": "add", "args": ["x", 1.0]},
                             {"name": "s", "op": "sum", "args": ["a"], "dim": -1},
                             {"name": "d", "op": "mul", "args": ["a", "a"]}])",
                         R"(["s", "d"])");
  ir::Program p = lower(g);
  ASSERT_EQ(kinds(p), (std::vector<K>{K::Input, K::Reduction, K::Pointwise}));
  EXPECT_EQ(body(p, 1), "add(x[128*x0 + r0], float32(1))");
  // a is used twice by d: one shared node.
  EXPECT_EQ(ir::node_count(p[2].body), 4u);
  expect_numbers(g);
}

TEST(Lowering, ProducerReadingManyBuffersIsStoredWhenReused) {
  const char* inputs = R"([{"name": "a", "dtype": "float32", "shape": [8]},
                           {"name": "b", "dtype": "float32", "shape": [8]},
                           {"name": "c", "dtype": "float32", "shape": [8]},
                           {"name": "d", "dtype": "float32", "shape": [8]},
                           {"name": "e", "dtype": "float32", "shape": [8]}])";
  graph::Graph five = parse(inputs,
                            R"([{"name": "s", "op": "add", "args": [{"op": "add", "args": [
                                  {"op": "add", "args": [{"op": "add", "args": ["a", "b"]}, "c"]}, "d"]}, "e"]},
                                {"name": "y", "op": "mul", "args": ["s", 2.0]},
                                {"name": "z", "op": "mul", "args": ["s", 3.0]}])",
                            R"(["y", "z"])");
  ir::Program p = lower(five);
  ASSERT_EQ(kinds(p), (std::vector<K>{K::Input, K::Input, K::Input, K::Input, K::Input,
                                      K::Pointwise, K::Pointwise, K::Pointwise}));
  EXPECT_EQ(body(p, 6), "mul(buf5[x0], float32(2))");
  // Four reads: inlined into both users.
  graph::Graph four = parse(inputs,
                            R"([{"name": "s", "op": "add", "args": [
                                  {"op": "add", "args": [{"op": "add", "args": ["a", "b"]}, "c"]}, "d"]},
                                {"name": "y", "op": "mul", "args": ["s", 2.0]},
                                {"name": "z", "op": "mul", "args": ["s", 3.0]}])",
                            R"(["y", "z"])");
  EXPECT_EQ(lower(four).buffers.size(), 7u);
  expect_numbers(five);
}

TEST(Lowering, ReductionThroughNonIdentityIndexStoresProducer) {
  // Column sums of exp(x): the reduction walks x's rows innermost, not exp's layout.
  graph::Graph cols = parse(kX64x128,
                            R"([{"name": "e", "op": "exp", "args": ["x"]},
                                {"name": "s", "op": "sum", "args": ["e"], "dim": 0}])",
                            R"(["s"])");
  ir::Program p = lower(cols);
  ASSERT_EQ(kinds(p), (std::vector<K>{K::Input, K::Pointwise, K::Reduction}));
  EXPECT_EQ(body(p, 2), "buf1[x0 + 128*r0]");
  expect_numbers(cols);
  // A reshape keeps the layout: still the identity, inlined.
  graph::Graph rows = parse(kX64x128,
                            R"([{"name": "e", "op": "exp", "args": ["x"]},
                                {"name": "r", "op": "reshape", "args": ["e"], "shape": [8192]},
                                {"name": "s", "op": "sum", "args": ["r"]}])",
                            R"(["s"])");
  p = lower(rows);
  ASSERT_EQ(kinds(p), (std::vector<K>{K::Input, K::Reduction}));
  EXPECT_EQ(body(p, 1), "exp(x[r0])");
  expect_numbers(rows);
}

TEST(Lowering, ViewsFoldIntoLoads) {
  const char* x = R"([{"name": "x", "dtype": "float32", "shape": [4, 6]}])";
  struct Case {
    const char* view;
    const char* load;
  } cases[] = {
      {R"({"op": "transpose", "args": ["x"], "dim0": 0, "dim1": 1})", "x[x0 + 6*x1]"},
      {R"({"op": "permute", "args": ["x"], "dims": [1, 0]})", "x[x0 + 6*x1]"},
      {R"({"op": "reshape", "args": [{"op": "transpose", "args": ["x"], "dim0": 0, "dim1": 1}], "shape": [24]})",
       "x[x0 // 4 + 6*(x0 % 4)]"},
      {R"({"op": "reshape", "args": ["x"], "shape": [2, 12]})", "x[12*x0 + x1]"},
      {R"({"op": "flatten", "args": ["x"]})", "x[x0]"},
      {R"({"op": "expand", "args": [{"op": "unsqueeze", "args": ["x"], "dim": 0}], "shape": [3, 4, 6]})",
       "x[6*x1 + x2]"},
      {R"({"op": "squeeze", "args": [{"op": "unsqueeze", "args": ["x"], "dim": 1}]})", "x[6*x0 + x1]"},
      {R"({"op": "slice", "args": ["x"], "dim": 1, "start": 1, "end": 6, "step": 2})", "x[6*x0 + 2*x1 + 1]"},
      {R"({"op": "select", "args": ["x"], "dim": 0, "index": -1})", "x[x0 + 18]"},
      {R"({"op": "slice", "args": [{"op": "reshape", "args": ["x"], "shape": [24]}], "dim": 0, "start": 3, "end": 20, "step": 5})",
       "x[5*x0 + 3]"},
  };
  for (const Case& c : cases) {
    graph::Graph g = parse(x, std::string(R"([{"name": "y", "op": "neg", "args": [)") + c.view + "]}]",
                           R"(["y"])");
    ir::Program p = lower(g);
    ASSERT_EQ(kinds(p), (std::vector<K>{K::Input, K::Pointwise})) << c.view;
    EXPECT_EQ(body(p, 1), std::string("neg(") + c.load + ")") << c.view;
    expect_numbers(g);
  }
}

TEST(Lowering, CatIsMaskedLoads) {
  graph::Graph g = parse(R"([{"name": "a", "dtype": "float32", "shape": [2, 3]},
                             {"name": "b", "dtype": "int32", "shape": [4, 3]}])",
                         R"([{"name": "y", "op": "cat", "args": ["a", "b"], "dim": 0}])", R"(["y"])");
  ir::Program p = lower(g);
  ASSERT_EQ(kinds(p), (std::vector<K>{K::Input, K::Input, K::Pointwise}));
  EXPECT_EQ(body(p, 2),
            "where(lt(index<int64>(x0), int64(2)), "
            "masked(lt(index<int64>(x0), int64(2)), a[3*x0 + x1], float32(0)), "
            "masked(ge(index<int64>(x0), int64(2)), cast<float32>(b[3*x0 + x1 - 6]), float32(0)))");
  expect_numbers(g);
}

TEST(Lowering, PadIsAMaskedLoad) {
  graph::Graph g = parse(R"([{"name": "x", "dtype": "int64", "shape": [2, 3]}])",
                         R"([{"name": "y", "op": "pad", "args": ["x"], "pad": [1, 2], "value": 7}])",
                         R"(["y"])");
  ir::Program p = lower(g);
  ASSERT_EQ(kinds(p), (std::vector<K>{K::Input, K::Pointwise}));
  EXPECT_EQ(p[1].shape, (Shape{2, 6}));
  EXPECT_EQ(body(p, 1),
            "masked(bitwise_and(ge(index<int64>(x1), int64(1)), lt(index<int64>(x1), int64(4))), "
            "x[3*x0 + x1 - 1], int64(7))");
  expect_numbers(g);
  // Negative padding crops: no mask at all.
  graph::Graph crop = parse(R"([{"name": "x", "dtype": "int64", "shape": [2, 5]}])",
                            R"([{"name": "y", "op": "pad", "args": ["x"], "pad": [-1, -2]}])",
                            R"(["y"])");
  p = lower(crop);
  EXPECT_EQ(body(p, 1), "x[5*x0 + x1 + 1]");
  expect_numbers(crop);
}

TEST(Lowering, OutputsThatAreInputsConstantsRepeatsOrViews) {
  graph::Graph g = parse(R"([{"name": "x", "dtype": "float32", "shape": [2, 3]}])",
                         R"([{"name": "e", "op": "exp", "args": ["x"]},
                             {"name": "r", "op": "reshape", "args": ["e"], "shape": [3, 2]},
                             {"name": "t", "op": "transpose", "args": ["x"], "dim0": 0, "dim1": 1}])",
                         R"(["x", "c", "e", "r", "e", "t"])",
                         R"([{"name": "c", "dtype": "int32", "shape": [2], "data": [1, 2]}])");
  ir::Program p = lower(g);
  ASSERT_EQ(kinds(p), (std::vector<K>{K::Input, K::Constant, K::Pointwise, K::Pointwise}));
  std::vector<ir::BufferId> outs;
  for (const ir::ProgramOutput& o : p.outputs) outs.push_back(o.buffer);
  // x, c, e, reshape of e (same bytes), e again, and a copy for the transpose.
  EXPECT_EQ(outs, (std::vector<ir::BufferId>{0, 1, 2, 2, 2, 3}));
  EXPECT_EQ(body(p, 3), "x[x0 + 3*x1]");
  expect_numbers(g);
}

// Computed buffers are named buf<id>; an input or a constant may already carry that name.
TEST(Lowering, ComputedBufferNamesStepAroundInputAndConstantNames) {
  graph::Graph g = parse(R"([{"name": "buf3", "dtype": "float32", "shape": [4]},
                             {"name": "buf3_1", "dtype": "float32", "shape": [4]}])",
                         R"([{"name": "y", "op": "add", "args": ["buf3", "buf3_1"]},
                             {"name": "z", "op": "mul", "args": ["y", "buf4"]},
                             {"name": "w", "op": "exp", "args": ["y"]}])",
                         R"(["y", "z", "w"])",
                         R"([{"name": "buf4", "dtype": "float32", "shape": [4], "data": [1, 2, 3, 4]}])");
  ir::Program p = lower(g);  // verifies the program: names are unique
  ASSERT_EQ(kinds(p), (std::vector<K>{K::Input, K::Input, K::Constant, K::Pointwise, K::Pointwise, K::Pointwise}));
  EXPECT_EQ(p.buffer_names(), (std::vector<std::string>{"buf3", "buf3_1", "buf4", "buf3_2", "buf4_1", "buf5"}));
  expect_numbers(g);
}

TEST(Lowering, PromotionIsExplicit) {
  const char* x = R"([{"name": "x", "dtype": "int32", "shape": [4]}])";
  ir::Program p = lower_text(x, R"([{"name": "y", "op": "mul", "args": ["x", 2]}])", R"(["y"])");
  EXPECT_EQ(body(p, 1), "mul(x[x0], int32(2))");
  p = lower_text(x, R"([{"name": "y", "op": "mul", "args": ["x", 2.5]}])", R"(["y"])");
  EXPECT_EQ(body(p, 1), "mul(cast<float32>(x[x0]), float32(2.5))");
  p = lower_text(x, R"([{"name": "y", "op": "div", "args": ["x", 2]}])", R"(["y"])");
  EXPECT_EQ(body(p, 1), "div(cast<float32>(x[x0]), float32(2))");
  p = lower_text(x, R"([{"name": "y", "op": "div", "args": ["x", 2], "rounding_mode": "floor"}])", R"(["y"])");
  EXPECT_EQ(body(p, 1), "floordiv(x[x0], int32(2))");
  p = lower_text(x, R"([{"name": "y", "op": "lt", "args": ["x", 2.5]}])", R"(["y"])");
  EXPECT_EQ(body(p, 1), "lt(cast<float32>(x[x0]), float32(2.5))");
  p = lower_text(x, R"([{"name": "y", "op": "exp", "args": ["x"]}])", R"(["y"])");
  EXPECT_EQ(body(p, 1), "exp(cast<float32>(x[x0]))");
  p = lower_text(x, R"([{"name": "y", "op": "where", "args": [{"op": "gt", "args": ["x", 0]}, "x", "-inf"]}])",
                 R"(["y"])");
  EXPECT_EQ(body(p, 1), "where(gt(x[x0], int32(0)), cast<float32>(x[x0]), float32(-inf))");
}

// A literal exponent 0.5 or -0.5 is sqrt or rsqrt, as PyTorch computes it. The expected values
// are PyTorch's: torch.pow(torch.tensor([-inf, -0.0, 4.0]), 0.5) and (..., -0.5).
TEST(Lowering, PowByLiteralHalfIsSqrt) {
  const char* x = R"([{"name": "x", "dtype": "float32", "shape": [3]}])";
  ir::Program half = lower_text(x, R"([{"name": "y", "op": "pow", "args": ["x", 0.5]}])", R"(["y"])");
  EXPECT_EQ(body(half, 1), "sqrt(x[x0])");
  ir::Program minus = lower_text(x, R"([{"name": "y", "op": "pow", "args": ["x", -0.5]}])", R"(["y"])");
  EXPECT_EQ(body(minus, 1), "div(float32(1), sqrt(x[x0]))");
  ir::Program other = lower_text(x, R"([{"name": "y", "op": "pow", "args": ["x", 0.25]}])", R"(["y"])");
  EXPECT_EQ(body(other, 1), "pow(x[x0], float32(0.25))");

  Tensor in(DType::Float32, {3});
  in.set_double(0, -std::numeric_limits<double>::infinity());
  in.set_double(1, -0.0);
  in.set_double(2, 4.0);
  const Tensor s = testing::run_ir(half, {in}).at(0);
  EXPECT_TRUE(std::isnan(s.get_double(0)));
  EXPECT_TRUE(s.get_double(1) == 0.0 && std::signbit(s.get_double(1)));
  EXPECT_EQ(s.get_double(2), 2.0);
  const Tensor r = testing::run_ir(minus, {in}).at(0);
  EXPECT_TRUE(std::isnan(r.get_double(0)));
  EXPECT_EQ(r.get_double(1), -std::numeric_limits<double>::infinity());
  EXPECT_EQ(r.get_double(2), 0.5);
}

// A float arange with whole start and step counts in int64: torch.arange(0, -5, -1,
// dtype=torch.float64) is [0.0, -1.0, -2.0, -3.0, -4.0] with +0.0 first (PyTorch's values), which
// g++ turned into -0.0 when it folded `0.0 + x0 * -1.0`.
TEST(Lowering, FloatArangeWithWholeStepCountsInInt64) {
  graph::Graph g = parse("[]", R"([{"name": "y", "op": "arange", "start": 0, "end": -5, "step": -1,
                                    "dtype": "float64"}])", R"(["y"])");
  ir::Program p = lower(g);
  EXPECT_EQ(body(p, 0), "cast<float64>(index<int64>(-x0))");
  const Tensor y = testing::run_ir(p, {}).at(0);
  for (int64_t i = 0; i < 5; ++i) EXPECT_EQ(y.get_double(i), -static_cast<double>(i));
  EXPECT_FALSE(std::signbit(y.get_double(0)));
  ir::Program half = lower_text("[]", R"([{"name": "y", "op": "arange", "start": 0.5, "end": 2, "step": 0.5}])",
                                R"(["y"])");
  EXPECT_EQ(body(half, 0), "cast<float32>(add(float64(0.5), mul(cast<float64>(index<int64>(x0)), float64(0.5))))");
}

TEST(Lowering, IntegerSumAccumulatesInInt64) {
  graph::Graph g = parse(R"([{"name": "x", "dtype": "int32", "shape": [3, 5]}])",
                         R"([{"name": "s", "op": "sum", "args": ["x"], "dim": 1}])", R"(["s"])");
  ir::Program p = lower(g);
  ASSERT_EQ(kinds(p), (std::vector<K>{K::Input, K::Reduction}));
  EXPECT_EQ(p[1].dtype, DType::Int64);
  EXPECT_EQ(body(p, 1), "cast<int64>(x[5*x0 + r0])");
  expect_numbers(g);
}

TEST(Lowering, ArgmaxOverTheFlattenedInput) {
  graph::Graph g = parse(R"([{"name": "x", "dtype": "float64", "shape": [3, 5]}])",
                         R"([{"name": "i", "op": "argmax", "args": ["x"]}])", R"(["i"])");
  ir::Program p = lower(g);
  ASSERT_EQ(kinds(p), (std::vector<K>{K::Input, K::Reduction}));
  EXPECT_EQ(p[1].reduce_op, ir::ReduceOp::ArgMax);
  EXPECT_EQ(p[1].shape, Shape{});
  EXPECT_EQ(p[1].reduce_ranges, (Shape{3, 5}));
  EXPECT_EQ(body(p, 1), "x[5*r0 + r1]");
  expect_numbers(g);
}

TEST(Lowering, MeanVarLogsumexp) {
  graph::Graph g = parse(R"([{"name": "x", "dtype": "float32", "shape": [4, 6]}])",
                         R"([{"name": "m", "op": "mean", "args": ["x"], "dim": 1},
                             {"name": "v", "op": "std", "args": ["x"], "dim": [0, 1], "correction": 0},
                             {"name": "l", "op": "logsumexp", "args": ["x"], "dim": -1, "keepdim": true}])",
                         R"(["m", "v", "l"])");
  ir::Program p = lower(g);
  ASSERT_EQ(kinds(p), (std::vector<K>{K::Input, K::Reduction, K::Pointwise, K::Reduction,
                                      K::Reduction, K::Pointwise, K::Reduction, K::Reduction,
                                      K::Pointwise}));
  EXPECT_EQ(body(p, 2), "div(buf1[x0], float32(6))");
  EXPECT_EQ(body(p, 4), "mul(sub(x[6*r0 + r1], div(buf3[0], float32(24))), "
                        "sub(x[6*r0 + r1], div(buf3[0], float32(24))))");
  EXPECT_EQ(body(p, 5), "sqrt(div(buf4[0], float32(24)))");
  EXPECT_EQ(p[6].reduce_op, ir::ReduceOp::Max);
  EXPECT_EQ(body(p, 8), "add(log(buf7[x0]), where(eq(abs(buf6[x0]), float32(inf)), float32(0), buf6[x0]))");
  expect_numbers(g);
}

TEST(Lowering, LogsumexpOfMinusInfinityRows) {
  graph::Graph g = parse(R"([{"name": "x", "dtype": "float32", "shape": [2, 3]}])",
                         R"([{"name": "l", "op": "logsumexp", "args": [
                               {"op": "where", "args": [{"op": "gt", "args": ["x", 100.0]}, "x", "-inf"]}], "dim": 1}])",
                         R"(["l"])");
  expect_numbers(g);
}

TEST(Lowering, MatmulReadsTransposedWeightInPlace) {
  graph::Graph g = parse(R"([{"name": "x", "dtype": "float32", "shape": [2, 3]},
                             {"name": "w", "dtype": "float32", "shape": [4, 3]}])",
                         R"([{"name": "y", "op": "matmul", "args": ["x", {"op": "transpose", "args": ["w"], "dim0": 0, "dim1": 1}]}])",
                         R"(["y"])");
  ir::Program p = lower(g);
  ASSERT_EQ(kinds(p), (std::vector<K>{K::Input, K::Input, K::Extern}));
  const ir::Matmul& m = p[2].matmul;
  EXPECT_EQ(m.m, 2);
  EXPECT_EQ(m.k, 3);
  EXPECT_EQ(m.n, 4);
  EXPECT_EQ(m.b.buffer, 1);
  EXPECT_EQ(m.b.row_stride, 1);
  EXPECT_EQ(m.b.col_stride, 3);
  expect_numbers(g);
}

TEST(Lowering, MatmulCopiesOperandsItCannotStride) {
  // A reshape of a transpose is not affine; a pointwise operand has no buffer: both copied.
  graph::Graph g = parse(R"([{"name": "x", "dtype": "float64", "shape": [2, 6]},
                             {"name": "w", "dtype": "float64", "shape": [4, 3]}])",
                         R"([{"name": "a", "op": "reshape", "args": [{"op": "transpose", "args": ["x"], "dim0": 0, "dim1": 1}], "shape": [3, 4]},
                             {"name": "y", "op": "matmul", "args": ["a", {"op": "relu", "args": ["w"]}]}])",
                         R"(["y"])");
  ir::Program p = lower(g);
  ASSERT_EQ(kinds(p), (std::vector<K>{K::Input, K::Input, K::Pointwise, K::Pointwise, K::Extern}));
  // relu(w) is stored when lowered (an extern reads it); the copy of `a` when the matmul is.
  EXPECT_EQ(p[4].matmul.a.buffer, 3);
  EXPECT_EQ(p[4].matmul.b.buffer, 2);
  EXPECT_EQ(body(p, 3), "x[2*x0 + x1 // 2 + 6*(x1 % 2)]");  // a[i, j] = x[(4i+j) % 2, (4i+j) // 2]
  expect_numbers(g);
}

TEST(Lowering, BatchedAndVectorMatmul) {
  graph::Graph g = parse(R"([{"name": "a", "dtype": "int64", "shape": [2, 1, 3, 4]},
                             {"name": "b", "dtype": "int64", "shape": [5, 4, 2]},
                             {"name": "v", "dtype": "int64", "shape": [4]}])",
                         R"([{"name": "y", "op": "matmul", "args": ["a", "b"]},
                             {"name": "z", "op": "matmul", "args": ["v", "b"]},
                             {"name": "d", "op": "matmul", "args": ["v", "v"]}])",
                         R"(["y", "z", "d"])");
  ir::Program p = lower(g);
  EXPECT_EQ(p[3].matmul.batch, (Shape{2, 5}));
  EXPECT_EQ(p[3].matmul.a.batch_strides, (std::vector<int64_t>{12, 0}));
  EXPECT_EQ(p[3].matmul.b.batch_strides, (std::vector<int64_t>{0, 8}));
  expect_numbers(g);
}

TEST(Lowering, DeadNodesDropButIntegerDivisionStays) {
  graph::Graph g = parse(R"([{"name": "x", "dtype": "int32", "shape": [4]}])",
                         R"([{"name": "dead", "op": "sum", "args": ["x"]},
                             {"name": "r", "op": "remainder", "args": ["x", "x"]},
                             {"name": "y", "op": "neg", "args": ["x"]}])",
                         R"(["y"])");
  ir::Program p = lower(g);
  ASSERT_EQ(kinds(p), (std::vector<K>{K::Input, K::Pointwise, K::Pointwise}));
  EXPECT_EQ(body(p, 1), "remainder(x[x0], x[x0])");
  EXPECT_TRUE(ir::has_side_effects(p[1]));
  EXPECT_FALSE(ir::has_side_effects(p[2]));
  EXPECT_EQ(p.outputs.at(0).buffer, 2);
}

TEST(Lowering, ScanAndZeroDim) {
  graph::Graph g = parse(R"([{"name": "x", "dtype": "bool", "shape": [3, 4]},
                             {"name": "s", "dtype": "float32", "shape": []}])",
                         R"([{"name": "c", "op": "cumsum", "args": ["x"], "dim": 1},
                             {"name": "p", "op": "cumprod", "args": ["s"], "dim": 0},
                             {"name": "m", "op": "amax", "args": ["s"]},
                             {"name": "a", "op": "arange", "end": 5},
                             {"name": "f", "op": "full", "shape": [2], "value": 1.5}])",
                         R"(["c", "p", "m", "a", "f"])");
  ir::Program p = lower(g);
  EXPECT_EQ(p[2].kind, K::Scan);
  EXPECT_EQ(p[2].dtype, DType::Int64);
  EXPECT_EQ(body(p, 2), "cast<int64>(x[4*x0 + x1])");
  EXPECT_EQ(body(p, 5), "index<int64>(x0)");
  EXPECT_EQ(body(p, 6), "float32(1.5)");
  expect_numbers(g);
}

TEST(Lowering, CompositesNeedExpansion) {
  std::string json = R"({"format": "stax-graph", "version": 1, "name": "t",
    "inputs": [{"name": "x", "dtype": "float32", "shape": [2, 3]}],
    "nodes": [{"name": "y", "op": "softmax", "args": ["x"], "dim": 1}], "outputs": ["y"]})";
  EXPECT_THROW(lower(graph::parse_graph(json)), InternalError);
}

TEST(Lowering, MaxPoolIsAMaxReductionOverAMaskedWindow) {
  graph::Graph g = parse(R"([{"name": "x", "dtype": "float32", "shape": [2, 3, 7, 6]}])",
                         R"([{"name": "y", "op": "max_pool2d", "args": [{"op": "neg", "args": ["x"]}], "kernel_size": 3,
                              "stride": 2, "padding": 1, "ceil_mode": true}])", R"(["y"])");
  ir::Program p = lower(g);
  // The pool's input is stored (windows overlap), then one Max reduction over r0, r1.
  ASSERT_EQ(kinds(p), (std::vector<K>{K::Input, K::Pointwise, K::Reduction}));
  EXPECT_EQ(p[2].reduce_op, ir::ReduceOp::Max);
  EXPECT_EQ(p[2].shape, (Shape{2, 3, 4, 4}));
  EXPECT_EQ(p[2].reduce_ranges, (Shape{3, 3}));
  const std::string b = body(p, 2);
  EXPECT_NE(b.find("masked("), std::string::npos) << b;
  EXPECT_NE(b.find("float32(-inf))"), std::string::npos) << b;
  EXPECT_NE(b.find("buf1[126*x0 + 42*x1 + 12*x2 + 2*x3 + 6*r0 + r1 - 7]"), std::string::npos) << b;
  expect_numbers(g);
}

TEST(Lowering, PoolWithoutPaddingNeedsNoMask) {
  graph::Graph g = parse(R"([{"name": "x", "dtype": "float64", "shape": [3, 8, 8]}])",
                         R"([{"name": "y", "op": "max_pool2d", "args": ["x"], "kernel_size": 2}])", R"(["y"])");
  ir::Program p = lower(g);
  EXPECT_EQ(body(p, 1), "x[64*x0 + 16*x1 + 2*x2 + 8*r0 + r1]");
  expect_numbers(g);
}

TEST(Lowering, AvgPoolDividesByThePositionsCount) {
  graph::Graph g = parse(R"([{"name": "x", "dtype": "float32", "shape": [1, 2, 5, 5]}])",
                         R"([{"name": "a", "op": "avg_pool2d", "args": ["x"], "kernel_size": 2, "padding": 1, "ceil_mode": true},
                             {"name": "b", "op": "avg_pool2d", "args": ["x"], "kernel_size": 3, "stride": 2, "padding": 1,
                              "ceil_mode": true, "count_include_pad": false},
                             {"name": "c", "op": "avg_pool2d", "args": ["x"], "kernel_size": 2, "divisor_override": 3},
                             {"name": "d", "op": "avg_pool2d", "args": ["x"], "kernel_size": 2}])",
                         R"(["a", "b", "c", "d"])");
  ir::Program p = lower(g);
  ASSERT_EQ(kinds(p), (std::vector<K>{K::Input, K::Reduction, K::Pointwise, K::Reduction, K::Pointwise, K::Reduction,
                                      K::Pointwise, K::Reduction, K::Pointwise}));
  for (ir::BufferId id : {1, 3, 5, 7}) EXPECT_EQ(p[id].reduce_op, ir::ReduceOp::Sum);
  // a: every window lies inside the padded input [-1, 6): 4 elements.
  EXPECT_EQ(body(p, 2), "div(buf1[9*x1 + 3*x2 + x3], float32(4))");
  // b: the window within the input, [2o - 1, 2o + 2) clipped to [0, 5)
  EXPECT_EQ(body(p, 4), "div(buf3[9*x1 + 3*x2 + x3], cast<float32>(mul(sub(minimum(index<int64>(2*x2 + 2), int64(5)), "
                        "maximum(index<int64>(2*x2 - 1), int64(0))), sub(minimum(index<int64>(2*x3 + 2), int64(5)), "
                        "maximum(index<int64>(2*x3 - 1), int64(0))))))");
  EXPECT_EQ(body(p, 6), "div(buf5[4*x1 + 2*x2 + x3], float32(3))");
  EXPECT_EQ(body(p, 8), "div(buf7[4*x1 + 2*x2 + x3], float32(4))");
  expect_numbers(g);
}

TEST(Lowering, AdaptivePoolMasksTheShorterWindows) {
  graph::Graph g = parse(R"([{"name": "x", "dtype": "float32", "shape": [2, 5, 6]}])",
                         R"([{"name": "y", "op": "adaptive_avg_pool2d", "args": ["x"], "output_size": [3, 4]}])",
                         R"(["y"])");
  ir::Program p = lower(g);
  ASSERT_EQ(kinds(p), (std::vector<K>{K::Input, K::Reduction, K::Pointwise}));
  // rows: windows [0, 2), [1, 4), [3, 5): up to 3 long, masked; columns: [0, 2), [1, 3), [3, 5),
  // [4, 6): all 2 long, no mask.
  EXPECT_EQ(p[1].reduce_ranges, (Shape{3, 2}));
  EXPECT_NE(body(p, 1).find("masked(lt(index<int64>("), std::string::npos) << body(p, 1);
  expect_numbers(g);
  // An output larger than the input repeats elements; one as large is the identity window.
  expect_numbers(parse(R"([{"name": "x", "dtype": "float64", "shape": [1, 3, 2]}])",
                       R"([{"name": "y", "op": "adaptive_avg_pool2d", "args": ["x"], "output_size": [7, 2]}])", R"(["y"])"));
}

TEST(Lowering, IndexingOpsAreIndirectLoads) {
  graph::Graph g = parse(R"([{"name": "w", "dtype": "float32", "shape": [10, 4]}, {"name": "i", "dtype": "int32", "shape": [2, 3]},
                             {"name": "x", "dtype": "float64", "shape": [3, 5]}, {"name": "j", "dtype": "int64", "shape": [4]}])",
                         R"([{"name": "e", "op": "embedding", "args": ["w", {"op": "clamp", "args": ["i"], "min": 0, "max": 9}]},
                             {"name": "s", "op": "index_select", "args": ["x", {"op": "remainder", "args": ["j", 5]}], "dim": 1},
                             {"name": "t", "op": "gather", "args": ["x", {"op": "remainder", "args": [{"op": "reshape", "args": ["j"], "shape": [2, 2]}, 3]}], "dim": 0}])",
                         R"(["e", "s", "t"])");
  ir::Program p = lower(g);
  ASSERT_EQ(kinds(p), (std::vector<K>{K::Input, K::Input, K::Input, K::Input, K::Pointwise, K::Pointwise, K::Pointwise}));
  EXPECT_EQ(body(p, 4), "w[x2 + 4*checked(minimum(maximum(i[3*x0 + x1], int32(0)), int32(9)), 10)]");
  EXPECT_EQ(body(p, 5), "x[5*x0 + 1*checked(remainder(j[x1], int64(5)), 5)]");
  EXPECT_EQ(body(p, 6), "x[x1 + 5*checked(remainder(j[2*x0 + x1], int64(3)), 3)]");
  for (ir::BufferId id = 4; id <= 6; ++id) EXPECT_TRUE(ir::has_side_effects(p[id]));
  expect_numbers(g);
}

TEST(Lowering, IndexedDataThroughViewsOrACopy) {
  // A transposed input keeps one stride along the indexed dim: read in place. A reshape of a
  // transpose does not: its dense copy is indexed.
  graph::Graph g = parse(R"([{"name": "x", "dtype": "float32", "shape": [4, 6]}, {"name": "j", "dtype": "int64", "shape": [3]}])",
                         R"([{"name": "s", "op": "index_select", "args": [{"op": "transpose", "args": ["x"], "dim0": 0, "dim1": 1},
                                                                        {"op": "remainder", "args": ["j", 6]}], "dim": 0},
                             {"name": "r", "op": "index_select", "args": [{"op": "reshape", "args": [{"op": "transpose", "args": ["x"], "dim0": 0, "dim1": 1}], "shape": [3, 8]},
                                                                        {"op": "remainder", "args": ["j", 8]}], "dim": 1}])",
                         R"(["s", "r"])");
  ir::Program p = lower(g);
  ASSERT_EQ(kinds(p), (std::vector<K>{K::Input, K::Input, K::Pointwise, K::Pointwise, K::Pointwise}));
  EXPECT_EQ(body(p, 2), "x[6*x1 + 1*checked(remainder(j[x0], int64(6)), 6)]");
  EXPECT_EQ(body(p, 4).substr(0, 6), "buf3[8");  // the copy
  expect_numbers(g);
}

TEST(Lowering, IndexSelectOfAZeroDimValue) {
  graph::Graph g = parse(R"([{"name": "s", "dtype": "float32", "shape": []}, {"name": "j", "dtype": "int64", "shape": [1]}])",
                         R"([{"name": "y", "op": "index_select", "args": ["s", {"op": "mul", "args": ["j", 0]}], "dim": 0}])",
                         R"(["y"])");
  ir::Program p = lower(g);
  ASSERT_EQ(kinds(p), (std::vector<K>{K::Input, K::Input, K::Pointwise}));
  EXPECT_EQ(body(p, 2), "s[0 + 0*checked(mul(j[0], int64(0)), 1)]");
  expect_numbers(g);
}

TEST(Lowering, AnIndexOutOfRangeFailsEvenUnused) {
  graph::Graph g = parse(R"([{"name": "w", "dtype": "float32", "shape": [3, 2]}])",
                         R"([{"name": "e", "op": "embedding", "args": ["w", "i"]},
                             {"name": "y", "op": "neg", "args": ["w"]}])",
                         R"(["y"])", R"([{"name": "i", "dtype": "int64", "shape": [2], "data": [1, 3]}])");
  ir::Program p = lower(g);
  ASSERT_EQ(kinds(p), (std::vector<K>{K::Input, K::Constant, K::Pointwise, K::Pointwise}));
  EXPECT_TRUE(ir::has_side_effects(p[2]));
  EXPECT_EQ(testing::compare_with_interpreter(g, 1), "");  // both fail
  EXPECT_THROW(testing::run_ir(p, {Tensor(DType::Float32, {3, 2})}), RuntimeFailure);
}

// A convolution is an Extern over whole buffers: its pointwise producer is stored, a reshape
// of an input is read in place, a transpose is copied; conv1d is a conv2d of height 1.
TEST(Lowering, ConvolutionsAreExternsOverWholeBuffers) {
  graph::Graph g = parse(R"([{"name": "x", "dtype": "float32", "shape": [1, 2, 5, 6]},
                             {"name": "w", "dtype": "float32", "shape": [4, 1, 3, 2]},
                             {"name": "b", "dtype": "float32", "shape": [4]}])",
                         R"([{"name": "r", "op": "relu", "args": ["x"]},
                             {"name": "c", "op": "conv2d", "args": ["r", "w", "b"], "stride": [2, 1], "padding": [1, 0],
                              "dilation": [1, 2], "groups": 2}])",
                         R"(["c"])");
  ir::Program p = lower(g);
  ASSERT_EQ(kinds(p), (std::vector<K>{K::Input, K::Input, K::Input, K::Pointwise, K::Extern}));
  const ir::Conv& c = p[4].conv;
  EXPECT_EQ(p[4].extern_op, ir::ExternOp::Conv);
  EXPECT_EQ(std::vector<ir::BufferId>({c.input, c.weight, c.bias}), std::vector<ir::BufferId>({3, 1, 2}));
  EXPECT_EQ(std::vector<int64_t>({c.n, c.c, c.h, c.w, c.cout, c.kh, c.kw, c.oh, c.ow}),
            std::vector<int64_t>({1, 2, 5, 6, 4, 3, 2, 3, 4}));
  EXPECT_EQ(std::vector<int64_t>({c.sh, c.sw, c.ph, c.pw, c.dh, c.dw, c.groups}), std::vector<int64_t>({2, 1, 1, 0, 1, 2, 2}));
  EXPECT_EQ(ir::extern_operands(p[4]), std::vector<ir::BufferId>({3, 1, 2}));
  EXPECT_NE(ir::dump_buffer(p, p[4]).find("stride 2, 1 padding 1, 0 dilation 1, 2 groups 2"), std::string::npos);
  expect_numbers(g);

  graph::Graph g1 = parse(R"([{"name": "x", "dtype": "float64", "shape": [10, 3]},
                              {"name": "w", "dtype": "float64", "shape": [2, 5, 5]},
                              {"name": "v", "dtype": "float64", "shape": [3, 6, 2]}])",
                          R"([{"name": "c", "op": "conv1d", "args": [{"op": "reshape", "args": ["x"], "shape": [1, 5, 6]}, "w"],
                               "padding": "same"},
                              {"name": "d", "op": "conv1d", "args": [{"op": "transpose", "args": ["c"], "dim0": 1, "dim1": 2}, "v"],
                               "padding": 1}])",
                          R"(["d"])");
  p = lower(g1);
  ASSERT_EQ(kinds(p), (std::vector<K>{K::Input, K::Input, K::Input, K::Extern, K::Pointwise, K::Extern}));
  EXPECT_EQ(p[3].conv.input, 0);  // the reshape, in place
  EXPECT_EQ(std::vector<int64_t>({p[3].conv.h, p[3].conv.kh, p[3].conv.oh, p[3].conv.ph, p[3].conv.pw, p[3].conv.ow}),
            std::vector<int64_t>({1, 1, 1, 0, 2, 6}));
  EXPECT_EQ(p[5].conv.input, 4);  // the transpose, copied
  EXPECT_EQ(p[5].conv.ow, 3);
  expect_numbers(g1);
}

}  // namespace
}  // namespace stax::lowering
