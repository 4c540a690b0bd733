// The edges of the interface: outputs that are inputs, constants or repeats; constants from
// data, file and fill (non-finite floats, integer extremes); graphs without inputs; names that
// are not C identifiers; 0-d tensors; integer division by zero (an error code, as PyTorch
// raises), also inside parallel loops and reductions; large kernels that run in parallel.
#include "cases.h"

#include <gtest/gtest.h>

namespace stax::e2e {

std::vector<Case> interface_cases() {
  Table t;
  const std::string x = input("x", "float32", "[3, 4]");
  t.add("output is the input", {x}, {}, {"x"});
  t.add("unused input", {x, input("unused", "int64", "[2]")}, {R"({"name": "y", "op": "neg", "args": ["x"]})"}, {"y"});
  t.add("bool input as output", {input("m", "bool", "[5]")}, {}, {"m", "m"});
  t.add("repeated outputs", {x}, {R"({"name": "y", "op": "exp", "args": ["x"]})"}, {"y", "y", "x", "y"});
  t.add("output read by a later kernel", {x},
        {R"({"name": "y", "op": "exp", "args": ["x"]})", R"({"name": "s", "op": "sum", "args": ["y"], "dim": 1})"}, {"s", "y"});
  const std::string w_data = R"({"name": "w", "dtype": "float32", "shape": [2, 2], "data": [0.5, "-inf", "nan", -0.0]})";
  t.add("constant output", {}, {}, {"w"}, {w_data});
  t.add("constant data with non-finite values", {input("a", "float32", "[2, 2]")},
        {R"({"name": "y", "op": "add", "args": ["a", "w"]})"}, {"y", "w"}, {w_data});
  t.add("constants from files", {input("a", "float32", "[3, 4]")},
        {R"({"name": "y", "op": "mul", "args": ["a", "w"]})",
         R"({"name": "k2", "op": "bitwise_xor", "args": ["k", 5]})",
         R"({"name": "mm", "op": "logical_not", "args": ["m"]})",
         R"({"name": "dd", "op": "mul", "args": ["d", 3]})"},
        {"y", "w", "k", "k2", "m", "mm", "d", "dd"},
        {R"({"name": "w", "dtype": "float32", "shape": [3, 4], "file": "data/w_f32_3x4.bin"})",
         R"({"name": "k", "dtype": "int64", "shape": [5], "file": "data/k_i64_5.bin"})",
         R"({"name": "m", "dtype": "bool", "shape": [2, 3], "file": "data/m_bool_6.bin"})",
         R"({"name": "d", "dtype": "float64", "shape": [2], "file": "data/d_f64_2.bin"})"});
  // Constants above the weights threshold (16384 bytes) go into the file beside the source and
  // are assembled by .incbin: read by kernels, by the GEMM and copied out as outputs.
  auto values = [](int n, auto value) {
    std::string s = "[";
    for (int i = 0; i < n; ++i) s += (i ? ", " : "") + value(i);
    return s + "]";
  };
  const std::string big_w = values(64 * 96, [](int i) { return std::to_string((i * 37 % 101 - 50) / 64.0); });
  const std::string big_k = values(4096, [](int i) { return std::to_string(i * 7919 % 65521 - 32760); });
  const std::string big_m = values(24576, [](int i) { return std::string(i % 7 < 3 ? "true" : "false"); });
  t.add("large constants in the weights file", {input("a", "float32", "[5, 64]"), input("b", "float32", "[64, 96]")},
        {R"({"name": "y", "op": "matmul", "args": ["a", "w"]})",
         R"({"name": "z", "op": "mul", "args": ["b", "w"]})",
         R"({"name": "k2", "op": "mul", "args": ["k", 3]})",
         R"({"name": "n", "op": "sum", "args": ["m"]})"},
        {"y", "z", "k2", "n", "w", "m"},
        {R"({"name": "w", "dtype": "float32", "shape": [64, 96], "data": )" + big_w + "}",
         R"({"name": "k", "dtype": "int64", "shape": [4096], "data": )" + big_k + "}",
         R"({"name": "m", "dtype": "bool", "shape": [24576], "data": )" + big_m + "}"})
      .tolerance = [](const std::vector<Tensor>&) { return matmul_tolerance(DType::Float32, 64, 64 * 4.0 * 0.8); };
  t.add("fill constants", {input("a", "int32", "[4]")},
        {R"({"name": "y", "op": "add", "args": ["a", "f"]})", R"({"name": "z", "op": "mul", "args": ["g", 2]})"},
        {"y", "z", "f"},
        {R"({"name": "f", "dtype": "int32", "shape": [4], "fill": -3})",
         R"({"name": "g", "dtype": "float64", "shape": [2, 2], "fill": "inf"})"});
  t.add("integer extremes wrap", {},
        {R"({"name": "q", "op": "div", "args": ["lo", -1], "rounding_mode": "trunc"})",
         R"({"name": "r", "op": "remainder", "args": ["lo", -1]})",
         R"({"name": "n", "op": "neg", "args": ["lo"]})",
         R"({"name": "a", "op": "abs", "args": ["lo"]})",
         R"({"name": "s", "op": "add", "args": ["hi", 1]})",
         R"({"name": "p", "op": "mul", "args": ["hi", "hi"]})"},
        {"q", "r", "n", "a", "s", "p"},
        {R"({"name": "lo", "dtype": "int32", "shape": [2], "data": [-2147483648, 7]})",
         R"({"name": "hi", "dtype": "int64", "shape": [2], "data": [9223372036854775807, -9223372036854775808]})"});
  t.add("no inputs", {},
        {R"({"name": "r", "op": "arange", "end": 6})", R"({"name": "y", "op": "mul", "args": ["r", "c"]})"}, {"y"},
        {R"({"name": "c", "dtype": "int64", "shape": [], "data": [3]})"});
  // Names that are not C identifiers, or that the generated code uses itself.
  t.add("awkward names",
        {input("x.1", "float32", "[2, 3]"), input("conv-out", "float32", "[3]"), input("and", "int32", "[3]"),
         input("int", "bool", "[2, 3]"), input("EOF", "float32", "[2, 3]"), input("x0", "float32", "[3]")},
        {R"({"name": "buf1", "op": "add", "args": ["x.1", "conv-out"]})",
         R"({"name": "kernel_buf2", "op": "mul", "args": ["buf1", "and"]})",
         R"({"name": "run_model", "op": "where", "args": ["int", "kernel_buf2", "EOF"]})",
         R"({"name": "t0", "op": "sub", "args": ["run_model", "x0"]})",
         R"({"name": "kWorkspaceSize", "op": "sum", "args": ["t0"], "dim": 0})",
         R"({"name": "std", "op": "exp", "args": ["kWorkspaceSize"]})",
         R"({"name": "1x", "op": "mul", "args": ["std", "kWorkspaceSize"]})",
         R"({"name": "float", "op": "add", "args": ["1x", "std"]})",
         R"({"name": "stax_rt", "op": "neg", "args": ["float"]})"},
        {"stax_rt", "x.1", "t0", "1x"});
  // 0-d tensors.
  t.add("0-d in and out", {input("s", "float32", "[]"), input("v", "float32", "[4]")},
        {R"({"name": "y", "op": "mul", "args": ["v", "s"]})", R"({"name": "z", "op": "exp", "args": ["s"]})",
         R"({"name": "m", "op": "amax", "args": ["y"]})", R"({"name": "i", "op": "argmax", "args": ["y"]})"},
        {"y", "z", "m", "i", "s"});
  t.add("0-d int reshape", {input("s", "int64", "[]")},
        {R"({"name": "r", "op": "reshape", "args": ["s"], "shape": [1, 1]})", R"({"name": "y", "op": "expand", "args": ["r"], "shape": [2, 3]})"},
        {"y"});
  // Large enough for an OpenMP parallel loop (also collapsed, and with the error flag reduced).
  t.add("parallel pointwise", {input("a", "float32", "[300, 300]"), input("b", "float32", "[300]")},
        {R"({"name": "y", "op": "tanh", "args": [{"op": "add", "args": ["a", "b"]}]})"}, {"y"});
  t.add("parallel collapsed", {input("a", "float32", "[2, 4, 9000]")},
        {R"({"name": "y", "op": "mul", "args": [{"op": "transpose", "args": ["a"], "dim0": 0, "dim1": 1}, 2]})"}, {"y"});
  t.add("parallel reduction", {input("a", "float64", "[400, 300]")},
        {R"({"name": "y", "op": "var", "args": ["a"], "dim": 1})"}, {"y"});
  t.add("parallel integer division", {input("a", "int32", "[256, 300]"), input("b", "int32", "[300]")},
        {R"({"name": "y", "op": "remainder", "args": ["a", "b"]})"}, {"y"})
      .nonzero_ints = true;
  t.add("parallel scan", {input("a", "int64", "[300, 250]")},
        {R"({"name": "y", "op": "cumsum", "args": ["a"], "dim": 0})"}, {"y"});
  // Integer division by zero: both sides report it.
  auto zero = [&](const std::string& name, const std::vector<std::string>& inputs,
                  const std::vector<std::string>& nodes) {
    t.add(name, inputs, nodes, {"y"}).expect = Expect::DivByZero;
  };
  zero("div by literal zero", {input("a", "int32", "[4]")}, {R"({"name": "y", "op": "div", "args": ["a", 0], "rounding_mode": "trunc"})"});
  zero("floor div by zero input", {input("a", "int64", "[3, 5]"), input("b", "int64", "[5]")},
       {R"({"name": "y", "op": "div", "args": ["a", {"op": "mul", "args": ["b", 0]}], "rounding_mode": "floor"})"});
  zero("remainder by zero", {input("a", "int32", "[6]")}, {R"({"name": "y", "op": "remainder", "args": ["a", {"op": "sub", "args": ["a", "a"]}]})"});
  zero("division by zero in the branch where does not take", {input("a", "int32", "[4]")},
       {R"({"name": "z", "op": "sub", "args": ["a", "a"]})",
        R"({"name": "y", "op": "where", "args": [{"op": "ne", "args": ["z", 0]}, {"op": "div", "args": ["a", "z"], "rounding_mode": "floor"}, 0]})"});
  zero("division by zero inside a reduction", {input("a", "int64", "[4, 5]")},
       {R"({"name": "y", "op": "sum", "args": [{"op": "remainder", "args": ["a", {"op": "mul", "args": ["a", 0]}]}], "dim": 1})"});
  zero("division by zero in a parallel loop", {input("a", "int32", "[256, 300]")},
       {R"({"name": "y", "op": "div", "args": ["a", {"op": "sub", "args": ["a", "a"]}], "rounding_mode": "trunc"})"});
  // Float division by zero is IEEE, no error.
  t.add("float division by zero", {input("a", "float32", "[4]")},
        {R"({"name": "y", "op": "div", "args": ["a", 0.0]})", R"({"name": "z", "op": "div", "args": ["a", 0], "rounding_mode": "floor"})",
         R"({"name": "r", "op": "remainder", "args": ["a", 0.0]})"},
        {"y", "z", "r"});
  t.add("int true division by zero is float", {input("a", "int32", "[4]")}, {R"({"name": "y", "op": "div", "args": ["a", 0]})"}, {"y"});
  return t.cases;
}

// Models named like the generated code's own identifiers: the runtime's namespace (rt,
// stax_rt), the C API's types and prefix (layout, stax, stax_layout), the dispatch file's
// (isa, isa_index, kIsas, stax_isa_avx2) and the wrapper's, each with values named alike. They
// are compiled under their own names, all in one translation unit.
std::vector<Case> model_name_cases() {
  std::vector<Case> cases;
  const std::vector<std::string> names = {"layout", "rt", "stax", "isa", "stax_rt", "stax_layout", "stax_model",
                                          "run", "strerror", "run_model", "kIsas", "isa_index", "stax_isa_avx2",
                                          "isa_avx2", "ISA", "W", "kWorkspaceSize", "workspace_size"};
  for (std::size_t i = 0; i < names.size(); ++i) {
    const std::string& n = names[i];
    const std::string other = names[(i + 1) % names.size()];
    Case c;
    c.name = "model named " + n;
    c.keep_name = true;
    c.json = R"({"format": "stax-graph", "version": 1, "name": ")" + n + R"(",
 "inputs": [{"name": ")" + n + R"(", "dtype": "float32", "shape": [4, 40]}],
 "nodes": [{"name": ")" + other + R"(", "op": "softmax", "args": [")" + n + R"("], "dim": -1},
           {"name": "stax_isa_scalar", "op": "sum", "args": [")" + other + R"("], "dim": 0}],
 "outputs": [")" + other + R"(", "stax_isa_scalar"]})";
    EXPECT_TRUE(accepted(c.json)) << c.json;
    cases.push_back(std::move(c));
  }
  return cases;
}

}  // namespace stax::e2e
