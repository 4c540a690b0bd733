// torch.result_type corner cases: Python scalars, 0-d tensors, categories.
#include <gtest/gtest.h>

#include "graph_test_util.h"
#include "stax/graph/promote.h"

namespace stax::graph {
namespace {

using testing::type_of;
using R = PromoteOperand::Rank;

TEST(Promote, PromoteTypesTable) {
  EXPECT_EQ(promote_types(DType::Bool, DType::Bool), DType::Bool);
  EXPECT_EQ(promote_types(DType::Bool, DType::Int32), DType::Int32);
  EXPECT_EQ(promote_types(DType::Int32, DType::Int64), DType::Int64);
  EXPECT_EQ(promote_types(DType::Int64, DType::Float32), DType::Float32);
  EXPECT_EQ(promote_types(DType::Float32, DType::Int32), DType::Float32);
  EXPECT_EQ(promote_types(DType::Float32, DType::Float64), DType::Float64);
  EXPECT_EQ(promote_types(DType::Bool, DType::Float64), DType::Float64);
}

TEST(Promote, ResultTypeDirect) {
  struct Case { std::vector<PromoteOperand> ops; DType want; };
  const Case cases[] = {
      {{{DType::Int32, R::Dim}, {DType::Int64, R::ZeroDim}}, DType::Int32},
      {{{DType::Int32, R::Dim}, {DType::Float64, R::ZeroDim}}, DType::Float64},
      {{{DType::Int32, R::Dim}, {DType::Float64, R::PythonScalar}}, DType::Float32},
      {{{DType::Int32, R::Dim}, {DType::Int64, R::PythonScalar}}, DType::Int32},
      {{{DType::Bool, R::Dim}, {DType::Int64, R::PythonScalar}}, DType::Int64},
      {{{DType::Bool, R::Dim}, {DType::Bool, R::PythonScalar}}, DType::Bool},
      {{{DType::Bool, R::Dim}, {DType::Int32, R::ZeroDim}}, DType::Int32},
      {{{DType::Float32, R::Dim}, {DType::Float64, R::ZeroDim}}, DType::Float32},
      {{{DType::Float64, R::Dim}, {DType::Float64, R::PythonScalar}}, DType::Float64},
      {{{DType::Int32, R::ZeroDim}, {DType::Float64, R::PythonScalar}}, DType::Float32},
      {{{DType::Int32, R::ZeroDim}, {DType::Int64, R::PythonScalar}}, DType::Int32},
      {{{DType::Bool, R::ZeroDim}, {DType::Int64, R::PythonScalar}}, DType::Int64},
      {{{DType::Int64, R::PythonScalar}, {DType::Float64, R::PythonScalar}}, DType::Float32},
      {{{DType::Int32, R::Dim}, {DType::Int64, R::Dim}}, DType::Int64},
      {{{DType::Int64, R::Dim}, {DType::Float32, R::ZeroDim}}, DType::Float32},
  };
  for (std::size_t k = 0; k < std::size(cases); ++k)
    EXPECT_EQ(result_type(cases[k].ops), cases[k].want) << "case " << k;
}

TEST(Promote, ThroughBinaryOps) {
  struct Case { const char* inputs; const char* body; const char* want; };
  const Case cases[] = {
      {"a:int32[4]", R"({"op": "mul", "args": ["a", 2]})", "int32[4]"},
      {"a:int32[4]", R"({"op": "add", "args": ["a", 2.5]})", "float32[4]"},
      {"a:int32[4]", R"({"op": "add", "args": [2.5, "a"]})", "float32[4]"},
      {"a:bool[4]", R"({"op": "add", "args": ["a", 1]})", "int64[4]"},
      {"a:bool[4]", R"({"op": "add", "args": ["a", true]})", "bool[4]"},
      {"a:bool[4]", R"({"op": "mul", "args": ["a", 1.5]})", "float32[4]"},
      {"a:int64[4]", R"({"op": "mul", "args": ["a", 1e3]})", "float32[4]"},
      {"a:float64[4]", R"({"op": "mul", "args": ["a", 2]})", "float64[4]"},
      {"a:int32[4] s:int64[]", R"({"op": "add", "args": ["a", "s"]})", "int32[4]"},
      {"a:int32[4] s:float64[]", R"({"op": "mul", "args": ["a", "s"]})", "float64[4]"},
      {"a:float32[4] s:float64[]", R"({"op": "sub", "args": ["a", "s"]})", "float32[4]"},
      {"a:int32[] s:int64[]", R"({"op": "add", "args": ["a", "s"]})", "int64[]"},
      {"a:int32[] ", R"({"op": "add", "args": ["a", 2.5]})", "float32[]"},
      {"a:bool[] ", R"({"op": "add", "args": ["a", 2]})", "int64[]"},
      {"a:int32[3] b:int64[3]", R"({"op": "maximum", "args": ["a", "b"]})", "int64[3]"},
      {"a:int64[3] b:float32[3]", R"({"op": "minimum", "args": ["a", "b"]})", "float32[3]"},
      {"a:int32[3]", R"({"op": "remainder", "args": ["a", 3]})", "int32[3]"},
      {"a:int32[3]", R"({"op": "remainder", "args": ["a", 2.5]})", "float32[3]"},
      {"a:int32[3]", R"({"op": "div", "args": ["a", 2], "rounding_mode": "floor"})", "int32[3]"},
      {"a:int32[3]", R"({"op": "div", "args": ["a", 2.0], "rounding_mode": "trunc"})", "float32[3]"},
      {"a:bool[3]", R"({"op": "div", "args": ["a", true], "rounding_mode": "trunc"})",
       "error: op 'div' with a rounding_mode does not accept bool operands"},
      {"a:bool[3] b:bool[3]", R"({"op": "remainder", "args": ["a", "b"]})",
       "error: op 'remainder' does not accept bool operands"},
      {"a:bool[3] b:bool[3]", R"({"op": "pow", "args": ["a", "b"]})",
       "error: op 'pow' does not accept bool operands"},
      {"a:bool[3]", R"({"op": "pow", "args": ["a", 2]})", "int64[3]"},
      {"a:int32[3] b:float64[3]", R"({"op": "atan2", "args": ["a", "b"]})", "float64[3]"},
      {"a:int32[3] b:int64[3]", R"({"op": "atan2", "args": ["a", "b"]})", "float32[3]"},
      {"a:int32[3] b:float64[3]", R"({"op": "lt", "args": ["a", "b"]})", "bool[3]"},
      {"a:int32[3]", R"({"op": "eq", "args": ["a", 2.5]})", "bool[3]"},
      {"a:float32[3] b:int32[3]", R"({"op": "logical_and", "args": ["a", "b"]})", "bool[3]"},
      {"a:float32[3]", R"({"op": "logical_xor", "args": ["a", true]})", "bool[3]"},
      {"a:int32[3]", R"({"op": "add", "args": [1, 2]})", "error: op 'add' needs at least one tensor argument"},
      {"a:int32[3]", R"({"op": "bitwise_and", "args": ["a", true]})", "int32[3]"},
  };
  for (const Case& c : cases) EXPECT_EQ(type_of(c.inputs, c.body), c.want) << c.body;
}

TEST(Promote, ComputeDtype) {
  using testing::node_of;
  Value lt = node_of("a:int32[3] b:float64[3]", R"({"op": "lt", "args": ["a", "b"]})");
  EXPECT_EQ(lt.compute_dtype, DType::Float64);
  Value div = node_of("a:int32[3] b:int32[3]", R"({"op": "div", "args": ["a", "b"]})");
  EXPECT_EQ(div.compute_dtype, DType::Float32);
  Value isn = node_of("a:float64[3]", R"({"op": "isnan", "args": ["a"]})");
  EXPECT_EQ(isn.dtype, DType::Bool);
  EXPECT_EQ(isn.compute_dtype, DType::Float64);
  Value to = node_of("a:float64[3]", R"({"op": "to", "args": ["a"], "dtype": "int32"})");
  EXPECT_EQ(to.dtype, DType::Int32);
  EXPECT_EQ(to.compute_dtype, DType::Float64);
  EXPECT_EQ(to.attrs.dtype, DType::Int32);
  Value any = node_of("a:float32[3]", R"({"op": "any", "args": ["a"]})");
  EXPECT_EQ(any.dtype, DType::Bool);
  EXPECT_EQ(any.compute_dtype, DType::Float32);
  Value sum = node_of("a:int32[3]", R"({"op": "sum", "args": ["a"]})");
  EXPECT_EQ(sum.compute_dtype, DType::Int64);
  Value am = node_of("a:int32[3]", R"({"op": "argmax", "args": ["a"]})");
  EXPECT_EQ(am.dtype, DType::Int64);
  EXPECT_EQ(am.compute_dtype, DType::Int32);
}

}  // namespace
}  // namespace stax::graph
