// Epilogue fusion (KernelKind::Epilogue): a floating-point matmul or convolution takes the one pointwise node
// reading its product at the element it writes; every condition refused with its reason; the
// chapter's rules and --no-fuse keep the extern alone; the kernel plan and the memory plan see
// the product written into the epilogue's buffer.
#include <gtest/gtest.h>

#include "helpers.h"
#include "stax/kernelplan/plan.h"
#include "stax/memory/from_schedule.h"

namespace stax::scheduler {
namespace {

using testing::kernel_names;
using testing::parse;
using testing::refusals;
using testing::run;

const char* kMlpInputs = R"([{"name": "x", "dtype": "float32", "shape": [32, 64]}])";
const char* kMlpConstants = R"([{"name": "w1", "dtype": "float32", "shape": [128, 64], "fill": 0.01},
  {"name": "b1", "dtype": "float32", "shape": [128], "fill": 0.1},
  {"name": "w2", "dtype": "float32", "shape": [64, 128], "fill": 0.02},
  {"name": "b2", "dtype": "float32", "shape": [64], "fill": 0.2}])";
const char* kMlpNodes = R"([{"name": "h", "op": "gelu", "args": [{"op": "linear", "args": ["x", "w1", "b1"]}]},
  {"name": "y", "op": "add", "args": [{"op": "linear", "args": ["h", "w2", "b2"]}, "x"]}])";

TEST(Epilogue, TheMlpIsTwoKernelsEachAGemmWithItsEpilogue) {
  testing::Scheduled r = run(parse(kMlpInputs, kMlpNodes, R"(["y"])", kMlpConstants));
  ASSERT_EQ(r.schedule.kernels.size(), 2u) << r.log;
  for (const Kernel& k : r.schedule.kernels) {
    EXPECT_EQ(k.kind, KernelKind::Epilogue);
    ASSERT_EQ(k.nodes.size(), 2u);
    EXPECT_EQ(k.nodes[0].kind, NodeKind::Extern);
    EXPECT_EQ(k.nodes[1].kind, NodeKind::Pointwise);
    // The product never leaves the kernel; the epilogue's buffer does.
    EXPECT_EQ(k.internal, std::vector<ir::BufferId>{k.nodes[0].buffer});
  }
  EXPECT_NE(r.log.find("GEMM_EPILOGUE: op1 runs on each tile of op0's product"), std::string::npos) << r.log;
  EXPECT_NE(r.log.find("2 kernel(s): op0_op1 (extern_epilogue), op2_op3 (extern_epilogue)"), std::string::npos) << r.log;
}

TEST(Epilogue, TheProductNeedsNoMemoryAndTheEpilogueIsNeverInPlace) {
  testing::Scheduled r = run(parse(kMlpInputs, kMlpNodes, R"(["y"])", kMlpConstants));
  const kernelplan::Locals locals = kernelplan::plan_locals(r.program, r.schedule);
  for (const Kernel& k : r.schedule.kernels)
    EXPECT_EQ(locals.where[static_cast<std::size_t>(k.nodes[0].buffer)], kernelplan::Locality::Product);
}

TEST(Epilogue, TheEpilogueNeverWritesInPlaceOfWhatItReads) {
  // y = x @ w + e reads e (a scan's result, dead after y) at the element it writes; a pointwise kernel
  // could write y into e's memory, but the GEMM writes partial sums before the epilogue reads e.
  testing::Scheduled r = run(parse(R"([{"name": "x", "dtype": "float32", "shape": [32, 64]}])",
                                   R"([{"name": "e", "op": "cumsum", "args": ["x"], "dim": 1},
                                       {"name": "y", "op": "add", "args": [{"op": "matmul", "args": ["x", "w"]}, "e"]}])",
                                   R"(["y"])", R"([{"name": "w", "dtype": "float32", "shape": [64, 64], "fill": 0.5}])"));
  ASSERT_EQ(r.schedule.kernels.size(), 2u) << r.log;
  EXPECT_EQ(r.schedule.kernels[1].kind, KernelKind::Epilogue);
  const memory::MemoryProblem m = memory::problem_from_schedule(r.program, r.schedule);
  for (const memory::Step& st : m.steps) EXPECT_TRUE(st.inplace.empty()) << st.name;
  // The same graph without the matmul offers the in-place pair: the test can tell.
  testing::Scheduled plain = run(parse(R"([{"name": "x", "dtype": "float32", "shape": [32, 64]}])",
                                       R"([{"name": "e", "op": "cumsum", "args": ["x"], "dim": 1},
                                           {"name": "y", "op": "add", "args": [{"op": "exp", "args": ["x"]}, "e"]}])",
                                       R"(["y"])"));
  const memory::MemoryProblem pm = memory::problem_from_schedule(plain.program, plain.schedule);
  bool offered = false;
  for (const memory::Step& st : pm.steps) offered = offered || !st.inplace.empty();
  EXPECT_TRUE(offered) << plain.log;
}

TEST(Epilogue, ChapterRulesAndNoFuseKeepTheMatmulAlone) {
  FusionOptions chapter;
  chapter.epilogues = false;
  testing::Scheduled r = run(parse(kMlpInputs, kMlpNodes, R"(["y"])", kMlpConstants), chapter);
  EXPECT_EQ(r.schedule.kernels.size(), 4u);
  EXPECT_GE(refusals(r.schedule, Refusal::Extern), 2);
  EXPECT_NE(r.log.find("epilogues are off"), std::string::npos) << r.log;
  FusionOptions off;
  off.fuse = false;
  EXPECT_EQ(run(parse(kMlpInputs, kMlpNodes, R"(["y"])", kMlpConstants), off).schedule.kernels.size(), 4u);
}

// One refusal per condition, with its reason in the verbose log.
struct Refused {
  const char* nodes;
  const char* outputs;
  const char* reason;
};

TEST(Epilogue, EachConditionRefusedWithItsReason) {
  const char* inputs = R"([{"name": "a", "dtype": "float32", "shape": [8, 16]}, {"name": "b", "dtype": "float32", "shape": [16, 8]},
                           {"name": "i", "dtype": "int32", "shape": [8, 16]}, {"name": "j", "dtype": "int32", "shape": [16, 8]}])";
  const Refused cases[] = {
      {R"([{"name": "m", "op": "matmul", "args": ["a", "b"]}, {"name": "y", "op": "relu", "args": ["m"]}])", R"(["m", "y"])",
       "the product is a graph output"},
      {R"([{"name": "m", "op": "matmul", "args": ["a", "b"]}, {"name": "y", "op": "relu", "args": ["m"]},
           {"name": "z", "op": "sum", "args": ["m"], "dim": 1}])", R"(["y", "z"])", "it is not the product's only reader"},
      {R"([{"name": "m", "op": "matmul", "args": ["a", "b"]}, {"name": "y", "op": "exp", "args": [{"op": "transpose", "args": ["m"], "dim0": 0, "dim1": 1}]}])",
       R"(["y"])", "not at the element it writes"},
      {R"([{"name": "m", "op": "matmul", "args": ["i", "j"]}, {"name": "y", "op": "add", "args": ["m", 1]}])", R"(["y"])",
       "one floating-point dtype"},
      {R"([{"name": "m", "op": "matmul", "args": ["a", "b"]}, {"name": "y", "op": "to", "args": ["m"], "dtype": "float64"}])", R"(["y"])",
       "one floating-point dtype"},
  };
  for (const Refused& c : cases) {
    testing::Scheduled r = run(parse(inputs, c.nodes, c.outputs));
    EXPECT_NE(r.log.find(c.reason), std::string::npos) << c.reason << "\n" << r.log;
    for (const Kernel& k : r.schedule.kernels) EXPECT_NE(k.kind, KernelKind::Epilogue) << c.reason;
  }
}

TEST(Epilogue, BatchedProductTakesItsEpilogueOverItsOwnDims) {
  testing::Scheduled r = run(parse(
      R"([{"name": "q", "dtype": "float32", "shape": [2, 3, 20, 16]}, {"name": "k", "dtype": "float32", "shape": [3, 16, 24]}])",
      R"([{"name": "y", "op": "mul", "args": [{"op": "matmul", "args": ["q", "k"]}, 0.25]}])", R"(["y"])"));
  ASSERT_EQ(r.schedule.kernels.size(), 1u) << r.log;
  const Kernel& k = r.schedule.kernels[0];
  EXPECT_EQ(k.kind, KernelKind::Epilogue);
  EXPECT_EQ(k.outer, (std::vector<int64_t>{2, 3, 20, 24}));  // not merged into one loop
}

// A convolution takes its epilogue the same way (a ResNet block's residual add and relu), and
// refuses pointwise work that reads its output elsewhere than the element written.
TEST(Epilogue, AConvolutionTakesItsResidualAddAndRelu) {
  const char* inputs = R"([{"name": "x", "dtype": "float32", "shape": [1, 8, 10, 10]},
                           {"name": "w", "dtype": "float32", "shape": [8, 8, 3, 3]}])";
  testing::Scheduled r = run(parse(inputs, R"([{"name": "c", "op": "conv2d", "args": ["x", "w"], "padding": 1},
                                               {"name": "y", "op": "relu", "args": [{"op": "add", "args": ["c", "x"]}]}])",
                                   R"(["y"])"));
  ASSERT_EQ(r.schedule.kernels.size(), 1u) << r.log;
  EXPECT_EQ(r.schedule.kernels[0].kind, KernelKind::Epilogue);
  EXPECT_NE(r.log.find("GEMM_EPILOGUE: op1 runs on each tile of op0's convolution"), std::string::npos) << r.log;
  const kernelplan::Locals locals = kernelplan::plan_locals(r.program, r.schedule);
  EXPECT_EQ(locals.where[static_cast<std::size_t>(r.schedule.kernels[0].nodes[0].buffer)], kernelplan::Locality::Product);

  testing::Scheduled flipped = run(parse(inputs, R"([{"name": "c", "op": "conv2d", "args": ["x", "w"], "padding": 1},
      {"name": "y", "op": "exp", "args": [{"op": "transpose", "args": ["c"], "dim0": 2, "dim1": 3}]}])", R"(["y"])"));
  EXPECT_EQ(flipped.schedule.kernels.size(), 2u) << flipped.log;
  EXPECT_NE(flipped.log.find("(conv); op1 is no epilogue of it: it reads the product at"), std::string::npos) << flipped.log;
}

}  // namespace
}  // namespace stax::scheduler
