// One test per validation error that issue 2 lists: each asserts the JSON path and the message.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "graph_test_util.h"

namespace stax::graph {
namespace {

using testing::doc;
using testing::error_of;
using testing::one_node;

TEST(GraphErrors, InvalidJsonReportsLineAndColumn) {
  GraphError e = error_of("{\"format\": \"stax-graph\",\n \"version\": 1,\n \"name\": x}");
  EXPECT_EQ(e.path(), "");
  EXPECT_NE(e.message().find("invalid JSON at line 3, column 10"), std::string::npos) << e.what();
  GraphError trailing = error_of("{\"a\": [1, 2,]}");
  EXPECT_NE(trailing.message().find("line 1, column 13"), std::string::npos) << trailing.what();
  GraphError cut = error_of("{\"a\": [1, 2");
  EXPECT_NE(cut.message().find("invalid JSON at line 1"), std::string::npos) << cut.what();
  EXPECT_NE(error_of("").message().find("invalid JSON"), std::string::npos);
}

TEST(GraphErrors, UnknownOp) {
  std::string j = one_node("x:float32[4]", R"({"op": "expp", "args": ["x"]})");
  EXPECT_GRAPH_ERROR(j, "nodes[0].op", "unknown op 'expp'");
  EXPECT_EQ(error_of(j).node(), "y");
}

TEST(GraphErrors, WrongArity) {
  EXPECT_GRAPH_ERROR(one_node("x:float32[4]", R"({"op": "add", "args": ["x"]})"), "nodes[0].args",
                     "op 'add' takes 2 arguments, got 1");
  EXPECT_GRAPH_ERROR(one_node("x:float32[4]", R"({"op": "exp", "args": ["x", "x"]})"),
                     "nodes[0].args", "op 'exp' takes 1 argument, got 2");
  EXPECT_GRAPH_ERROR(one_node("x:float32[4]", R"({"op": "exp"})"), "nodes[0].args",
                     "takes 1 argument, got 0");
  EXPECT_GRAPH_ERROR(one_node("x:float32[4]", R"({"op": "full", "args": ["x"], "shape": [1], "value": 1})"),
                     "nodes[0].args", "takes no arguments, got 1");
  EXPECT_GRAPH_ERROR(one_node("x:float32[4]", R"({"op": "layer_norm", "args": ["x", null, null, null], "normalized_shape": 4})"),
                     "nodes[0].args", "takes 1 to 3 arguments, got 4");
  EXPECT_GRAPH_ERROR(one_node("x:float32[4]", R"({"op": "cat", "args": [], "dim": 0})"),
                     "nodes[0].args", "takes at least 1 argument, got 0");
}

TEST(GraphErrors, UnknownName) {
  EXPECT_GRAPH_ERROR(one_node("x:float32[4]", R"({"op": "exp", "args": ["z"]})"),
                     "nodes[0].args[0]", "unknown value 'z'");
  // Inline nodes cannot be referred to by their internal names.
  EXPECT_GRAPH_ERROR(doc("x:float32[4]", R"([{"name": "a", "op": "exp", "args": [{"op": "neg", "args": ["x"]}]},
                                             {"name": "y", "op": "exp", "args": ["a#0"]}])"),
                     "nodes[1].args[0]", "unknown value 'a#0'");
}

TEST(GraphErrors, DuplicateName) {
  EXPECT_GRAPH_ERROR(doc("x:float32[4] x:float32[4]", "[]", R"(["x"])"), "inputs[1].name",
                     "duplicate name 'x' (already defined at inputs[0])");
  EXPECT_GRAPH_ERROR(doc("x:float32[4]", R"([{"name": "x", "op": "exp", "args": ["x"]}])", R"(["x"])"),
                     "nodes[0].name", "duplicate name 'x'");
  EXPECT_GRAPH_ERROR(doc("x:float32[4]", "[]", R"(["x"])",
                         R"([{"name": "x", "dtype": "float32", "shape": [], "fill": 1}])"),
                     "constants[0].name", "duplicate name 'x' (already defined at inputs[0])");
}

TEST(GraphErrors, UseBeforeDefinition) {
  EXPECT_GRAPH_ERROR(doc("x:float32[4]", R"([{"name": "y", "op": "exp", "args": ["z"]},
                                             {"name": "z", "op": "neg", "args": ["x"]}])"),
                     "nodes[0].args[0]", "'z' is used before its definition (nodes[1])");
  EXPECT_GRAPH_ERROR(one_node("x:float32[4]", R"({"op": "exp", "args": ["y"]})"),
                     "nodes[0].args[0]", "node 'y' uses itself");
}

TEST(GraphErrors, BadDtype) {
  EXPECT_GRAPH_ERROR(doc("x:float16[4]", "[]", R"(["x"])"), "inputs[0].dtype",
                     "unknown dtype 'float16'");
  EXPECT_GRAPH_ERROR(one_node("x:float32[4]", R"({"op": "to", "args": ["x"], "dtype": "int8"})"),
                     "nodes[0].dtype", "unknown dtype 'int8'");
}

TEST(GraphErrors, NonPositiveShapeEntry) {
  EXPECT_GRAPH_ERROR(doc("x:float32[4,-2]", "[]", R"(["x"])"), "inputs[0].shape[1]",
                     "shape entries must be >= 1, got -2");
  EXPECT_GRAPH_ERROR(doc("x:float32[0]", "[]", R"(["x"])"), "inputs[0].shape[0]",
                     "zero-size values are not supported");
}

TEST(GraphErrors, NonIntegerShapeEntry) {
  EXPECT_GRAPH_ERROR(doc("x:float32[4,2.0]", "[]", R"(["x"])"), "inputs[0].shape[1]",
                     "expected an integer, got 2.0");
  EXPECT_GRAPH_ERROR(doc("x:float32[\"4\"]", "[]", R"(["x"])"), "inputs[0].shape[0]",
                     "expected an integer, got \"4\"");
  EXPECT_GRAPH_ERROR(doc("x:float32[99999999999999999999]", "[]", R"(["x"])"),
                     "inputs[0].shape[0]", "out of the range of int64");
}

TEST(GraphErrors, ElementCountOverflow) {
  EXPECT_GRAPH_ERROR(doc("x:float32[4294967296,4294967296]", "[]", R"(["x"])"), "inputs[0].shape",
                     "element count of shape [4294967296, 4294967296] overflows int64");
  // Broadcasting two fine shapes into one too large.
  EXPECT_GRAPH_ERROR(one_node("a:bool[4294967296,1] b:bool[1,4294967296]",
                              R"({"op": "logical_and", "args": ["a", "b"]})"),
                     "nodes[0]", "overflows int64");
  EXPECT_GRAPH_ERROR(one_node("x:float32[2]",
                              R"({"op": "full", "shape": [4611686018427387904, 2], "value": 1.0})"),
                     "nodes[0]", "overflows int64");
}

TEST(GraphErrors, BroadcastMismatch) {
  std::string j = one_node("a:float32[3] b:float32[4]", R"({"op": "add", "args": ["a", "b"]})");
  EXPECT_GRAPH_ERROR(j, "nodes[0]", "cannot broadcast shapes [3] and [4]");
  EXPECT_EQ(std::string(error_of(j).what()),
            "nodes[0] (node 'y', op 'add'): cannot broadcast shapes [3] and [4]");
}

TEST(GraphErrors, OutOfRangeDim) {
  EXPECT_GRAPH_ERROR(one_node("x:float32[2,3]", R"({"op": "sum", "args": ["x"], "dim": 2})"),
                     "nodes[0].dim", "dim 2 is out of range for a 2-d tensor (expected -2..1)");
  EXPECT_GRAPH_ERROR(one_node("x:float32[2,3]", R"({"op": "amax", "args": ["x"], "dim": [0, -3]})"),
                     "nodes[0].dim[1]", "dim -3 is out of range");
  EXPECT_GRAPH_ERROR(one_node("x:float32[2,3]", R"({"op": "unsqueeze", "args": ["x"], "dim": 3})"),
                     "nodes[0].dim", "out of range for unsqueeze of a 2-d tensor (expected -3..2)");
}

TEST(GraphErrors, ReshapeSizeMismatch) {
  EXPECT_GRAPH_ERROR(one_node("x:float32[2,3]", R"({"op": "reshape", "args": ["x"], "shape": [4, 2]})"),
                     "nodes[0].shape", "cannot reshape [2, 3] (6 elements) into [4, 2]");
  EXPECT_GRAPH_ERROR(one_node("x:float32[2,3]", R"({"op": "reshape", "args": ["x"], "shape": [4, -1]})"),
                     "nodes[0].shape", "cannot reshape [2, 3] (6 elements) into [4, -1]");
  EXPECT_GRAPH_ERROR(one_node("x:float32[2,3]", R"({"op": "reshape", "args": ["x"], "shape": [-1, -1]})"),
                     "nodes[0].shape", "only one dim may be -1");
}

TEST(GraphErrors, ConstantDataLengthMismatch) {
  EXPECT_GRAPH_ERROR(doc("", "[]", R"(["w"])",
                         R"([{"name": "w", "dtype": "float32", "shape": [2, 2], "data": [1, 2, 3]}])"),
                     "constants[0].data", "has 3 elements; float32[2, 2] needs 4");
}

TEST(GraphErrors, MissingConstantFile) {
  EXPECT_GRAPH_ERROR(doc("", "[]", R"(["w"])",
                         R"([{"name": "w", "dtype": "float32", "shape": [2], "file": "no_such_file.bin"}])"),
                     "constants[0].file", "does not exist");
}

TEST(GraphErrors, ShortConstantFile) {
  std::filesystem::path dir = std::filesystem::temp_directory_path() / "stax_graph_errors_short";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "w.bin", std::ios::binary).write("\0\0\0\0\0\0", 6);
  std::string j = doc("", "[]", R"(["w"])",
                      R"([{"name": "w", "dtype": "float32", "shape": [2], "file": "w.bin"}])");
  GraphError e = error_of(j, dir);
  EXPECT_EQ(e.path(), "constants[0].file");
  EXPECT_NE(e.message().find("has 6 bytes; float32[2] needs 8 (file too short)"), std::string::npos)
      << e.what();
  std::filesystem::remove_all(dir);
}

TEST(GraphErrors, DtypeTheOpDoesNotAccept) {
  EXPECT_GRAPH_ERROR(one_node("x:bool[4]", R"({"op": "neg", "args": ["x"]})"), "nodes[0].args[0]",
                     "op 'neg' does not accept bool");
  EXPECT_GRAPH_ERROR(one_node("x:int32[4]", R"({"op": "softmax", "args": ["x"], "dim": 0})"),
                     "nodes[0].args[0]", "op 'softmax' needs a floating-point tensor, got int32");
  EXPECT_GRAPH_ERROR(one_node("x:float32[4]", R"({"op": "bitwise_and", "args": ["x", 1]})"),
                     "nodes[0].args[0]", "needs integer or bool operands, got float32");
}

TEST(GraphErrors, UnknownOrMisspeltKey) {
  std::string j = one_node("x:float32[4,2]", R"({"op": "sum", "args": ["x"], "dim": 1, "keepdims": true})");
  EXPECT_GRAPH_ERROR(j, "nodes[0].keepdims", "unknown key 'keepdims' for op 'sum' (did you mean 'keepdim'?)");
  EXPECT_GRAPH_ERROR(R"({"format": "stax-graph", "version": 1, "name": "g", "inputs": [],
                        "outputs": ["x"], "extra": 1})",
                     "extra", "unknown key 'extra' for the graph");
  EXPECT_GRAPH_ERROR(R"({"format": "stax-graph", "version": 1, "name": "g",
                        "inputs": [{"name": "x", "dtype": "float32", "shape": [1], "shap": [1]}],
                        "outputs": ["x"]})",
                     "inputs[0].shap", "unknown key 'shap' for an input (did you mean 'shape'?)");
  EXPECT_GRAPH_ERROR(doc("", "[]", R"(["w"])",
                         R"([{"name": "w", "dtype": "float32", "shape": [1], "fill": 1, "value": 2}])"),
                     "constants[0].value", "unknown key 'value' for a constant");
  // An attribute of another op is unknown too.
  EXPECT_GRAPH_ERROR(one_node("x:float32[4]", R"({"op": "exp", "args": ["x"], "dim": 0})"),
                     "nodes[0].dim", "unknown key 'dim' for op 'exp'");
}

TEST(GraphErrors, DuplicateJsonKey) {
  EXPECT_GRAPH_ERROR(one_node("x:float32[4,2]", R"({"op": "sum", "args": ["x"], "dim": 1, "dim": 0})"),
                     "nodes[0].dim", "duplicate key 'dim'");
  EXPECT_GRAPH_ERROR(R"({"format": "stax-graph", "format": "stax-graph"})", "format",
                     "duplicate key 'format'");
}

TEST(GraphErrors, EmptyDimList) {
  EXPECT_GRAPH_ERROR(one_node("x:float32[4,2]", R"({"op": "sum", "args": ["x"], "dim": []})"),
                     "nodes[0].dim", "dim: [] is not allowed");
  EXPECT_GRAPH_ERROR(one_node("x:float32[4,1]", R"({"op": "squeeze", "args": ["x"], "dim": []})"),
                     "nodes[0].dim", "dim: [] is not allowed");
}

TEST(GraphErrors, ZeroSizeValue) {
  EXPECT_GRAPH_ERROR(one_node("x:float32[4]", R"({"op": "slice", "args": ["x"], "dim": 0, "start": 3, "end": 1})"),
                     "nodes[0]", "the slice 3:1 of dim 0 (size 4) is empty");
  EXPECT_GRAPH_ERROR(one_node("x:float32[4]", R"({"op": "arange", "end": 0})"), "nodes[0]",
                     "is empty; zero-size values are not supported");
  EXPECT_GRAPH_ERROR(one_node("x:float32[4]", R"({"op": "pad", "args": ["x"], "pad": [-2, -2]})"),
                     "nodes[0].pad", "leaves it empty");
  EXPECT_GRAPH_ERROR(one_node("x:float32[4]", R"({"op": "full", "shape": [2, 0], "value": 1})"),
                     "nodes[0].shape[1]", "zero-size values are not supported");
}

// graph-format.md, "Non-finite numbers": "inf", "-inf" and "nan" stand for scalar arguments,
// float constants, full.value, pad.value and clamp.min/max only; other float attributes take
// JSON numbers.
TEST(GraphErrors, NonFiniteAttributeWhereTheFormatAllowsNone) {
  EXPECT_GRAPH_ERROR(one_node("x:float32[4]", R"({"op": "leaky_relu", "args": ["x"], "negative_slope": "inf"})"),
                     "nodes[0].negative_slope", "expected a finite number, got \"inf\"");
  EXPECT_GRAPH_ERROR(one_node("x:float32[4]", R"({"op": "leaky_relu", "args": ["x"], "negative_slope": "nan"})"),
                     "nodes[0].negative_slope", "expected a finite number, got \"nan\"");
  EXPECT_GRAPH_ERROR(one_node("x:float32[4]", R"({"op": "leaky_relu", "args": ["x"], "negative_slope": "0.2"})"),
                     "nodes[0].negative_slope", "expected a number");
  EXPECT_GRAPH_ERROR(one_node("x:float32[4,8]", R"({"op": "layer_norm", "args": ["x"], "normalized_shape": 8, "eps": "-inf"})"),
                     "nodes[0].eps", "expected a finite number, got \"-inf\"");
  EXPECT_GRAPH_ERROR(one_node("x:float64[4,8]", R"({"op": "rms_norm", "args": ["x"], "normalized_shape": 8, "eps": "nan"})"),
                     "nodes[0].eps", "non-finite numbers stand only in scalar arguments");
  // Where the format allows them, they stay accepted.
  EXPECT_EQ(testing::type_of("x:float32[4]", R"({"op": "clamp", "args": ["x"], "min": "-inf", "max": 1})"), "float32[4]");
  EXPECT_EQ(testing::type_of("x:float32[4]", R"({"op": "leaky_relu", "args": ["x"], "negative_slope": 1e30})"), "float32[4]");
}

TEST(GraphErrors, BadValueName) {
  EXPECT_GRAPH_ERROR(doc("x/y:float32[4]", "[]", R"(["x/y"])"), "inputs[0].name",
                     "invalid value name 'x/y'");
  EXPECT_GRAPH_ERROR(doc("nan:float32[4]", "[]", R"(["nan"])"), "inputs[0].name",
                     "invalid value name 'nan'");
  EXPECT_GRAPH_ERROR(doc("x:float32[4]", R"([{"name": "", "op": "exp", "args": ["x"]}])", R"(["x"])"),
                     "nodes[0].name", "invalid value name ''");
}

TEST(GraphErrors, OutputNamesNothing) {
  EXPECT_GRAPH_ERROR(doc("x:float32[4]", "[]", R"(["x", "y"])"), "outputs[1]",
                     "output 'y' names no input, constant or node");
  // Inline nodes have no user-visible name.
  EXPECT_GRAPH_ERROR(doc("x:float32[4]", R"([{"name": "y", "op": "exp", "args": [{"op": "neg", "args": ["x"]}]}])",
                         R"(["y#0"])"),
                     "outputs[0]", "output 'y#0' names no input");
  EXPECT_GRAPH_ERROR(doc("x:float32[4]", "[]", "[]"), "outputs", "at least one output");
}

// Errors are one clean line: user text with control characters is escaped, never echoed raw.
TEST(GraphErrors, MessagesEscapeControlCharacters) {
  EXPECT_GRAPH_ERROR(one_node("x:float32[4]", R"({"op": "ne\ng", "args": ["x"]})"), "nodes[0].op",
                     "unknown op 'ne\\ng'");
  EXPECT_GRAPH_ERROR(one_node("x:float32[4]", R"({"op": "neg", "args": ["x"], "ke\u001bpdim": 1})"),
                     "nodes[0].ke\\x1bpdim", "unknown key 'ke\\x1bpdim'");
  EXPECT_GRAPH_ERROR(doc("x:float\\r32[4]", "[]", R"(["x"])"), "inputs[0].dtype",
                     "unknown dtype 'float\\r32'");
  EXPECT_GRAPH_ERROR(doc("", "[]", R"(["w"])",
                         R"([{"name": "w", "dtype": "float32", "shape": [1], "file": "a\u0000b"}])"),
                     "constants[0].file", "the file name contains a NUL byte");
  std::string long_name(1000, 'q');
  GraphError e = error_of(one_node("x:float32[4]", R"({"op": "exp", "args": [")" + long_name + R"("]})"));
  EXPECT_LT(e.message().size(), 400u);
  EXPECT_NE(e.message().find("qqq..."), std::string::npos);
}

}  // namespace
}  // namespace stax::graph
