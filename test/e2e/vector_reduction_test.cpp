// End-to-end: the vector forms of argmax/argmin, prod, any and all (Proposition 8.1: W lane
// accumulators combined after the loop; across the columns for a reduction over a
// non-innermost dimension), against the interpreter with every instruction set this machine
// has, at the default tolerances (float32 within 1e-5 relative plus 1e-6 absolute; positions,
// ints and bools exact). Rows and columns are lengths that fill no whole number of vectors of 8
// or 16 lanes, so every case also runs a scalar remainder that combines with the lanes.
#include <gtest/gtest.h>

#include "e2e.h"
#include "stax/driver/compile.h"
#include "stax/graph/frontend.h"

namespace stax::e2e {
namespace {

std::string reduction_node(const std::string& name, const std::string& op, const std::string& arg, const std::string& attrs) {
  return R"({"name": ")" + name + R"(", "op": ")" + op + R"(", "args": [)" + arg + "]" + attrs + "}";
}

// x with NaN at the flat positions p where p % period == phase: in other lanes from row to row
// (or column to column), several in some reductions (the first must win) and none in others.
std::string nan_every(const std::string& x, const std::string& shape, int64_t numel, int period, int phase) {
  const std::string positions = R"({"op": "reshape", "args": [{"op": "arange", "end": )" + std::to_string(numel) +
                                R"(}], "shape": )" + shape + "}";
  const std::string at = R"({"op": "eq", "args": [{"op": "remainder", "args": [)" + positions + ", " +
                         std::to_string(period) + "]}, " + std::to_string(phase) + "]}";
  return R"({"op": "where", "args": [)" + at + R"(, "nan", ")" + x + R"("]})";
}

std::vector<Case> vector_reduction_cases() {
  Table t;
  const std::vector<std::string> arg_ops = {"argmax", "argmin"};
  const std::vector<std::string> dtypes = {"float32", "float64", "int32", "int64"};
  // Rows of 131 (the innermost dim) and columns of 259 (dim 0), with keepdim; random ints in
  // [-8, 8] tie in many lanes, so the first position of the extreme must come out.
  for (const std::string& op : arg_ops) {
    for (const std::string& dt : dtypes) {
      t.add(op + " " + dt + " rows", {input("x", dt, "[7, 131]")}, {reduction_node("y", op, R"("x")", R"(, "dim": -1)")}, {"y"});
      t.add(op + " " + dt + " rows keepdim", {input("x", dt, "[7, 131]")},
            {reduction_node("y", op, R"("x")", R"(, "dim": 1, "keepdim": true)")}, {"y"});
      t.add(op + " " + dt + " columns", {input("x", dt, "[45, 259]")}, {reduction_node("y", op, R"("x")", R"(, "dim": 0)")}, {"y"});
      t.add(op + " " + dt + " middle dim keepdim", {input("x", dt, "[4, 37, 19]")},
            {reduction_node("y", op, R"("x")", R"(, "dim": 1, "keepdim": true)")}, {"y"});
    }
    // Flattened: one reduction over every element; and columns of two blocks (1024 + 76).
    t.add(op + " float32 flattened", {input("x", "float32", "[5, 7, 9]")}, {reduction_node("y", op, R"("x")", "")}, {"y"});
    t.add(op + " int32 columns of two blocks", {input("x", "int32", "[9, 1100]")},
          {reduction_node("y", op, R"("x")", R"(, "dim": 0)")}, {"y"});
    // Ties of a few values across the lanes (floor of normal numbers); signed zeros tie.
    t.add(op + " float32 ties", {input("x", "float32", "[6, 83]")},
          {reduction_node("y", op, R"({"op": "floor", "args": ["x"]})", R"(, "dim": -1)")}, {"y"});
    t.add(op + " float64 signed zeros", {input("x", "float64", "[6, 83]")},
          {reduction_node("y", op, R"({"op": "mul", "args": ["x", 0.0]})", R"(, "dim": -1)")}, {"y"});
    t.add(op + " float32 column ties", {input("x", "float32", "[45, 83]")},
          {reduction_node("y", op, R"({"op": "floor", "args": ["x"]})", R"(, "dim": 0)")}, {"y"});
    // NaN in various lanes: several per row (period 29), two in the same lane of 8 or 16
    // (period 48) or at most one (period 97), in rows and in columns, float32 and float64.
    for (const std::string dt : {"float32", "float64"}) {
      t.add(op + " " + dt + " nan every 29th", {input("x", dt, "[6, 83]")},
            {reduction_node("y", op, nan_every("x", "[6, 83]", 6 * 83, 29, 5), R"(, "dim": -1)")}, {"y"});
      t.add(op + " " + dt + " nan every 48th", {input("x", dt, "[6, 83]")},
            {reduction_node("y", op, nan_every("x", "[6, 83]", 6 * 83, 48, 3), R"(, "dim": -1)")}, {"y"});
      t.add(op + " " + dt + " nan every 97th", {input("x", dt, "[6, 83]")},
            {reduction_node("y", op, nan_every("x", "[6, 83]", 6 * 83, 97, 40), R"(, "dim": -1)")}, {"y"});
      t.add(op + " " + dt + " column nan", {input("x", dt, "[45, 83]")},
            {reduction_node("y", op, nan_every("x", "[45, 83]", 45 * 83, 31, 7), R"(, "dim": 0)")}, {"y"});
    }
  }
  // Every element at the value the lanes start from (the identity of the reduction): the first
  // position still wins, in rows and in columns.
  const std::string minus_inf = R"({"op": "sub", "args": [{"op": "mul", "args": ["x", 0.0]}, "inf"]})";
  const std::string plus_inf = R"({"op": "add", "args": [{"op": "mul", "args": ["x", 0.0]}, "inf"]})";
  const std::string int32_min = R"({"op": "add", "args": [{"op": "mul", "args": ["x", 0]}, -2147483648]})";
  const std::string int64_max = R"({"op": "add", "args": [{"op": "mul", "args": ["x", 0]}, 9223372036854775807]})";
  t.add("argmax of -inf rows and columns", {input("x", "float32", "[40, 67]")},
        {reduction_node("a", "argmax", minus_inf, R"(, "dim": -1)"), reduction_node("b", "argmax", minus_inf, R"(, "dim": 0)")}, {"a", "b"});
  t.add("argmin of +inf rows and columns", {input("x", "float64", "[40, 67]")},
        {reduction_node("a", "argmin", plus_inf, R"(, "dim": -1)"), reduction_node("b", "argmin", plus_inf, R"(, "dim": 0)")}, {"a", "b"});
  t.add("argmax of INT32_MIN rows and columns", {input("x", "int32", "[40, 67]")},
        {reduction_node("a", "argmax", int32_min, R"(, "dim": -1)"), reduction_node("b", "argmax", int32_min, R"(, "dim": 0)")}, {"a", "b"});
  t.add("argmin of INT64_MAX rows and columns", {input("x", "int64", "[40, 67]")},
        {reduction_node("a", "argmin", int64_max, R"(, "dim": -1)"), reduction_node("b", "argmin", int64_max, R"(, "dim": 0)")}, {"a", "b"});

  // prod in the scalar accumulation dtype (float32 in double): values near 1 so that a row's
  // product neither overflows nor vanishes; ints wrap; bool and int32 give int64.
  const std::string near_one = R"({"op": "add", "args": [{"op": "mul", "args": ["x", 0.1]}, 1.0]})";
  for (const std::string dt : {"float32", "float64"}) {
    t.add("prod " + dt + " rows", {input("x", dt, "[6, 115]")}, {reduction_node("y", "prod", near_one, R"(, "dim": -1)")}, {"y"});
    t.add("prod " + dt + " columns keepdim", {input("x", dt, "[40, 70]")},
          {reduction_node("y", "prod", near_one, R"(, "dim": 0, "keepdim": true)")}, {"y"});
  }
  for (const std::string dt : {"int32", "int64", "bool"}) {
    t.add("prod " + dt + " rows", {input("x", dt, "[6, 115]")}, {reduction_node("y", "prod", R"("x")", R"(, "dim": -1)")}, {"y"});
    t.add("prod " + dt + " columns", {input("x", dt, "[40, 70]")}, {reduction_node("y", "prod", R"("x")", R"(, "dim": 0)")}, {"y"});
  }
  // any/all: of bool inputs (a fair coin: all is false, any true), and of rare comparisons so
  // that both answers occur.
  for (const std::string op : {"any", "all"}) {
    t.add(op + " bool rows keepdim", {input("x", "bool", "[5, 100]")},
          {reduction_node("y", op, R"("x")", R"(, "dim": -1, "keepdim": true)")}, {"y"});
    t.add(op + " bool columns", {input("x", "bool", "[30, 100]")}, {reduction_node("y", op, R"("x")", R"(, "dim": 0)")}, {"y"});
  }
  t.add("any and all of rare values, rows and columns", {input("x", "float32", "[60, 100]")},
        {reduction_node("a", "any", R"({"op": "lt", "args": ["x", -2.5]})", R"(, "dim": -1)"),
         reduction_node("b", "all", R"({"op": "gt", "args": ["x", -2.5]})", R"(, "dim": -1)"),
         reduction_node("c", "any", R"({"op": "gt", "args": ["x", 2.3]})", R"(, "dim": 0)"),
         reduction_node("d", "all", R"({"op": "le", "args": ["x", 2.3]})", R"(, "dim": 0)")},
        {"a", "b", "c", "d"});
  t.add("any of int64", {input("x", "int64", "[5, 100]")}, {reduction_node("y", "any", R"("x")", R"(, "dim": -1)")}, {"y"});

  // Horizontal groups (example 7.2): one loop accumulating several reductions of the same rows,
  // and of the same columns; and a row kernel whose argmax reads the row's maximum.
  t.add("horizontal row reductions", {input("x", "float32", "[9, 77]")},
        {reduction_node("m", "amax", R"("x")", R"(, "dim": -1)"), reduction_node("i", "argmax", R"("x")", R"(, "dim": -1)"),
         reduction_node("j", "argmin", R"("x")", R"(, "dim": -1)"), reduction_node("s", "sum", R"("x")", R"(, "dim": -1)"),
         reduction_node("p", "prod", near_one, R"(, "dim": -1)"), reduction_node("a", "any", R"({"op": "gt", "args": ["x", 2.0]})", R"(, "dim": -1)"),
         reduction_node("l", "all", R"({"op": "lt", "args": ["x", 2.5]})", R"(, "dim": -1)")},
        {"m", "i", "j", "s", "p", "a", "l"});
  t.add("horizontal column reductions", {input("x", "int64", "[33, 300]")},
        {reduction_node("m", "amax", R"("x")", R"(, "dim": 0)"), reduction_node("i", "argmax", R"("x")", R"(, "dim": 0)"),
         reduction_node("j", "argmin", R"("x")", R"(, "dim": 0)"), reduction_node("s", "sum", R"("x")", R"(, "dim": 0)")},
        {"m", "i", "j", "s"});
  t.add("argmax of a row minus its maximum", {input("x", "float64", "[12, 93]")},
        {reduction_node("m", "amax", R"("x")", R"(, "dim": -1, "keepdim": true)"),
         reduction_node("y", "argmax", R"({"op": "abs", "args": [{"op": "sub", "args": ["x", "m"]}]})", R"(, "dim": -1)")},
        {"y"});
  // Reductions of a row value that later loops read again (kept in a row-local array): they
  // run inside the loop that computes it, remainder included, as a softmax's sum does.
  t.add("reductions in the loop of the value they reduce", {input("x", "float32", "[11, 203]")},
        {reduction_node("m", "amax", R"("x")", R"(, "dim": -1, "keepdim": true)"), R"({"name": "e", "op": "exp", "args": [{"op": "sub", "args": ["x", "m"]}]})",
         reduction_node("s", "sum", R"("e")", R"(, "dim": -1, "keepdim": true)"), reduction_node("i", "argmin", R"("e")", R"(, "dim": -1, "keepdim": true)"),
         reduction_node("a", "any", R"({"op": "lt", "args": ["e", 0.05]})", R"(, "dim": -1, "keepdim": true)"),
         R"({"name": "y", "op": "mul", "args": [{"op": "div", "args": ["e", "s"]}, {"op": "add", "args": ["i", {"op": "to", "args": ["a"], "dtype": "int64"}]}]})"},
        {"y", "s", "i", "a"});
  // A float64 row sum whose body is a difference: the lanes add the difference as one operand
  // (adding the large minuend to the lanes first would drop what they hold).
  t.add("float64 sum of a difference", {input("x", "float64", "[4, 64]")},
        {R"({"name": "b", "op": "mul", "args": [{"op": "to", "args": [{"op": "gt", "args": ["x", 0.0]}], "dtype": "float64"}, 1e20]})",
         reduction_node("y", "sum", R"({"op": "sub", "args": [{"op": "add", "args": ["b", 1.0]}, "b"]})", R"(, "dim": -1)")},
        {"y"});
  return t.cases;
}

TEST(E2E, VectorReductionsWithEveryIsa) {
  const std::vector<Case> cases = vector_reduction_cases();
  EXPECT_GE(cases.size(), 75u);
  for (const IsaVariant& v : isa_variants()) {
    SCOPED_TRACE("--isa " + v.isa.name());
    EXPECT_EQ(run_cases(cases, v.cxxflags, v.isa), cases.size());
  }
}

// The same on AArch64 (--isa neon and scalar, cross-built, run under qemu).
TEST(E2E, VectorReductionsOnAarch64) {
  const std::vector<IsaVariant> variants = cross_variants();
  if (variants.empty()) GTEST_SKIP() << kNoCrossTools;
  const std::vector<Case> cases = vector_reduction_cases();
  for (const IsaVariant& v : variants) {
    SCOPED_TRACE("--isa " + v.name());
    EXPECT_EQ(run_cases(cases, v), cases.size());
  }
}

// Pinned to AVX-512 the same cases build warning-free (they run above where the CPU has it).
TEST(E2E, VectorReductionsBuildForAvx512) {
  const std::vector<Case> cases = vector_reduction_cases();
  std::vector<driver::CompiledModel> models;
  for (std::size_t k = 0; k < cases.size(); ++k) {
    driver::CompileOptions opts;
    opts.name = "m" + std::to_string(k);
    opts.isa = IsaTarget::of(Isa::Avx512);
    models.push_back(driver::compile_graph(graph::parse_graph(cases[k].json), opts));
  }
  std::vector<const codegen::GeneratedCode*> codes;
  for (const driver::CompiledModel& m : models) codes.push_back(&m.code);
  driver::BuildOptions build;
  build.cxxflags = {"-std=c++17", "-O1", "-mavx512f", "-mavx512dq", "-mavx2", "-mfma", "-fopenmp", "-Wall", "-Wextra", "-Werror"};
  EXPECT_NO_THROW(driver::Harness::build(codes, build));
}

}  // namespace
}  // namespace stax::e2e
