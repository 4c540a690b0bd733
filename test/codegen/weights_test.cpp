// Constants above the threshold go into the weights file: its bytes are each constant's
// little-endian bytes at a 64-byte aligned offset, the source assembles exactly those ranges
// with .incbin and declares them with their C++ types; the others stay literal arrays.
// (test/e2e builds and runs such code; test/cli/models_test.cpp builds it from another folder.)
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "stax/codegen/codegen.h"
#include "stax/driver/compile.h"
#include "stax/graph/frontend.h"

namespace stax::codegen {
namespace {

// x float32[64, 128]; a float32[64, 128] (32768 bytes), c int32[64, 128] (32768), m bool[64, 128]
// (8192), b float32[128] (512), d float64[64, 128] (65536):
// y = where(m, x * a + b, to(c) + d).
std::string graph_json() {
  auto list = [](int n, auto value) {
    std::string s = "[";
    for (int i = 0; i < n; ++i) s += (i ? ", " : "") + value(i);
    return s + "]";
  };
  const auto f = [](int i) { return std::to_string((i % 977) * 0.125 - 50.0); };
  const auto k = [](int i) { return std::to_string(i * 7919 % 100003 - 50000); };
  const auto tf = [](int i) { return std::string(i % 3 == 0 ? "true" : "false"); };
  const auto d = [](int i) { return std::to_string(i * 1e-3 - 2.5); };
  return R"({"format": "stax-graph", "version": 1, "name": "wts",
    "inputs": [{"name": "x", "dtype": "float32", "shape": [64, 128]}],
    "constants": [
      {"name": "a", "dtype": "float32", "shape": [64, 128], "data": )" + list(8192, f) + R"(},
      {"name": "b", "dtype": "float32", "shape": [128], "data": )" + list(128, f) + R"(},
      {"name": "c", "dtype": "int32", "shape": [64, 128], "data": )" + list(8192, k) + R"(},
      {"name": "m", "dtype": "bool", "shape": [64, 128], "data": )" + list(8192, tf) + R"(},
      {"name": "d", "dtype": "float64", "shape": [64, 128], "data": )" + list(8192, d) + R"(}],
    "nodes": [
      {"name": "xa", "op": "mul", "args": ["x", "a"]},
      {"name": "xab", "op": "add", "args": ["xa", "b"]},
      {"name": "cf", "op": "to", "args": ["c"], "dtype": "float32"},
      {"name": "cd", "op": "add", "args": ["cf", "d"]},
      {"name": "cdf", "op": "to", "args": ["cd"], "dtype": "float32"},
      {"name": "y", "op": "where", "args": ["m", "xab", "cdf"]}],
    "outputs": ["y"]})";
}

driver::CompiledModel compile(std::size_t threshold, IsaTarget isa = IsaTarget::native()) {
  driver::CompileOptions o;
  o.weights_threshold = threshold;
  o.isa = isa;
  return driver::compile_graph(graph::parse_graph(graph_json()), o);
}

bool contains(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

const Tensor& constant(const driver::CompiledModel& m, const std::string& name) {
  for (graph::ValueId id = 0; id < static_cast<graph::ValueId>(m.graph.values.size()); ++id)
    if (m.graph[id].name == name) return m.graph[id].data;
  throw std::runtime_error("no constant " + name);
}

TEST(Weights, FileHoldsTheLargeConstantsBytesAligned) {
  const driver::CompiledModel m = compile(kDefaultWeightsThreshold);
  const std::string& w = m.code.weights;
  // In buffer order a, c, d (b and m are below 16384 bytes): a at 0, c at 32768, d at 65536.
  ASSERT_EQ(w.size(), 32768u + 32768u + 65536u);
  EXPECT_EQ(std::memcmp(w.data(), constant(m, "a").data(), 32768), 0);
  EXPECT_EQ(std::memcmp(w.data() + 32768, constant(m, "c").data(), 32768), 0);
  EXPECT_EQ(std::memcmp(w.data() + 65536, constant(m, "d").data(), 65536), 0);
  const std::string& s = m.code.source;
  EXPECT_TRUE(contains(s, "\"stax_weights.wts.a:\\n\"\n        \".incbin \\\"\" __FILE__ \".weights\\\", 0, 32768\\n\""));
  EXPECT_TRUE(contains(s, "\".incbin \\\"\" __FILE__ \".weights\\\", 32768, 32768\\n\""));
  EXPECT_TRUE(contains(s, "\".incbin \\\"\" __FILE__ \".weights\\\", 65536, 65536\\n\""));
  EXPECT_TRUE(contains(s, "extern const float a[8192] __asm__(\"stax_weights.wts.a\") __attribute__((visibility(\"hidden\")));"));
  EXPECT_TRUE(contains(s, "extern const int32_t c[8192] __asm__(\"stax_weights.wts.c\") __attribute__((visibility(\"hidden\")));"));
  EXPECT_TRUE(contains(s, "extern const double d[8192] __asm__(\"stax_weights.wts.d\") __attribute__((visibility(\"hidden\")));"));
  EXPECT_TRUE(contains(s, "using ::stax_wts_weights::a;"));
  // The small ones stay literal.
  EXPECT_TRUE(contains(s, "alignas(64) const float b[128] = {"));
  EXPECT_TRUE(contains(s, "alignas(64) const bool m[8192] = {"));
  EXPECT_FALSE(contains(s, "const float a[8192] = {"));
}

TEST(Weights, PaddingBetweenConstantsIsZero) {
  // A threshold of 1 byte puts b (512 bytes) and m (8192) in the file too: a 0, b 32768,
  // c 33280, m 66048, d 74240; every offset a multiple of 64.
  const driver::CompiledModel m = compile(1);
  const std::string& w = m.code.weights;
  ASSERT_EQ(w.size(), 74240u + 65536u);
  EXPECT_EQ(std::memcmp(w.data() + 32768, constant(m, "b").data(), 512), 0);
  EXPECT_EQ(std::memcmp(w.data() + 66048, constant(m, "m").data(), 8192), 0);
  EXPECT_TRUE(contains(m.code.source, "extern const bool m[8192] __asm__(\"stax_weights.wts.m\") __attribute__((visibility(\"hidden\")));"));
}

TEST(Weights, NoFileBelowTheThreshold) {
  const driver::CompiledModel m = compile(1 << 20);
  EXPECT_TRUE(m.code.weights.empty());
  EXPECT_FALSE(contains(m.code.source, ".incbin"));
  EXPECT_FALSE(contains(m.code.source, "STAX_WEIGHTS_SECTION"));
}

TEST(Weights, SameInputSameBytes) {
  const driver::CompiledModel a = compile(kDefaultWeightsThreshold), b = compile(kDefaultWeightsThreshold);
  EXPECT_EQ(a.code.source, b.code.source);
  EXPECT_EQ(a.code.weights, b.code.weights);
}

TEST(Weights, DispatchFilesDeclareThemOnce) {
  const driver::CompiledModel m = compile(kDefaultWeightsThreshold, IsaTarget::dispatch());
  const std::string& s = m.code.source;
  EXPECT_EQ(m.code.weights.size(), 32768u + 32768u + 65536u);
  const std::size_t first = s.find(".incbin");
  ASSERT_NE(first, std::string::npos);
  EXPECT_EQ(s.find("extern const float a[8192]"), s.rfind("extern const float a[8192]"));
}

// A matmul's constant B: under --isa native packed once, on the first call, into a function-local
// static (the panel width is the C++ compiler's choice); pinned, packed by staxc into the file.
driver::CompiledModel compile_linear(IsaTarget isa) {
  std::string w = "[";
  for (int i = 0; i < 8 * 16; ++i) w += (i ? ", " : "") + std::to_string(i % 7 - 3);
  const std::string g = R"({"format": "stax-graph", "version": 1, "name": "lin",
    "inputs": [{"name": "x", "dtype": "float32", "shape": [4, 8]}],
    "constants": [{"name": "w", "dtype": "float32", "shape": [8, 16], "data": )" + w + R"(]}],
    "nodes": [{"name": "y", "op": "relu", "args": [{"op": "matmul", "args": ["x", "w"]}]}],
    "outputs": ["y"]})";
  driver::CompileOptions o;
  o.isa = isa;
  return driver::compile_graph(graph::parse_graph(g), o);
}

TEST(Weights, ConstantBUnderNativeIsPackedOnceOnTheFirstCall) {
  const driver::CompiledModel m = compile_linear(IsaTarget::native());
  const kernelplan::KernelPlan& kp = m.kernels.at(0).kernels.at(0);
  EXPECT_TRUE(kp.pack_once);
  EXPECT_FALSE(kp.pack_b);
  EXPECT_TRUE(contains(kp.pack_reason, "packed on the first call")) << kp.pack_reason;
  EXPECT_TRUE(contains(m.code.source, "static const float* const packed = stax_rt::matmul_pack_b_native<float>(w, 16, 1, 8, 16);"));
  EXPECT_TRUE(contains(m.code.source, "stax_rt::matmul_packed_once<float>("));
  const driver::CompiledModel pinned = compile_linear(IsaTarget::of(Isa::Avx2));
  const kernelplan::KernelPlan& pp = pinned.kernels.at(0).kernels.at(0);
  EXPECT_TRUE(pp.pack_b);
  EXPECT_FALSE(pp.pack_once);
  EXPECT_FALSE(contains(pinned.code.source, "matmul_pack_b_native<float>("));
  EXPECT_TRUE(contains(pinned.code.source, "stax_rt::matmul_prepacked<float, "));
}

}  // namespace
}  // namespace stax::codegen
