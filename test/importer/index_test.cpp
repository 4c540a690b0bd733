// Indexing: Slice (steps, negative and out-of-range starts and ends), Split in its opset forms,
// Gather with known and run-time indices, GatherElements.
#include "op_check.h"

namespace stax::testing {
namespace {

using nlohmann::json;

Tensor ints(std::vector<int64_t> v) { return i64({static_cast<int64_t>(v.size())}, v); }

TEST(ImportSlice, ClampsAsOnnx) {
  Tensor x = iota(DType::Float32, {10});
  // Reversing steps map to index_select, not in the front end yet: only their folded form runs.
  auto slice = [&](std::vector<int64_t> starts, std::vector<int64_t> ends, std::vector<int64_t> steps, std::vector<float> want) {
    OpCase c{"Slice", {x, ints(starts), ints(ends), ints({0}), ints(steps)}, f32({static_cast<int64_t>(want.size())}, want)};
    if (steps[0] > 0 || want.size() == 1) check_op(c);
    else check_folded(c);
  };
  slice({2}, {5}, {1}, {2, 3, 4});
  slice({-3}, {INT64_MAX}, {1}, {7, 8, 9});
  slice({1}, {100}, {3}, {1, 4, 7});
  slice({-100}, {2}, {1}, {0, 1});
  slice({INT64_MIN}, {2}, {1}, {0, 1});
  // Reversing steps: start clamps to [0, dim - 1], end to [-1, dim - 1].
  slice({9}, {INT64_MIN}, {-1}, {9, 8, 7, 6, 5, 4, 3, 2, 1, 0});
  slice({100}, {5}, {-2}, {9, 7});
  slice({-1}, {-3}, {-1}, {9, 8});
  slice({3}, {2}, {-1}, {3});
}

TEST(ImportSlice, AxesDefaultAndNegative) {
  Tensor x = iota(DType::Float32, {3, 4});
  check_op({"Slice", {x, ints({1, 1}), ints({3, 3})}, f32({2, 2}, {5, 6, 9, 10})});
  check_op({"Slice", {x, ints({-2}), ints({INT64_MAX}), ints({-1})}, f32({3, 2}, {2, 3, 6, 7, 10, 11})});
  check_folded({"Slice", {x, ints({0, 3}), ints({3, 0}), ints({0, 1}), ints({2, -2})}, f32({2, 2}, {3, 1, 11, 9})});
  check_op({"Slice", {iota(DType::Int64, {4}), ints({1}), ints({3})}, i64({2}, {1, 2})});
}

TEST(ImportSlice, MapsToSliceOrIndexSelect) {
  OnnxModel m;
  m.input("x", DType::Float32, {3, 4})
      .initializer("s", ints({1, 3})).initializer("e", ints({3, 0})).initializer("a", ints({0, 1}))
      .initializer("st", ints({1, -1}))
      .node("Slice", {"x", "s", "e", "a", "st"}, {"y"}).output("y", DType::Float32);
  json doc = document(import_model(m));
  EXPECT_EQ(node_named(doc, "y"), json::parse(R"({"name": "y", "op": "index_select", "args": [
      {"op": "slice", "args": ["x"], "dim": 0, "start": 1, "end": 3, "step": 1}, "y.index1"], "dim": 1})"));
  EXPECT_EQ(doc["constants"][0], json::parse(R"({"name": "y.index1", "dtype": "int64", "shape": [3], "data": [3, 2, 1]})"));
  OnnxModel e;
  e.input("x", DType::Float32, {4}).initializer("s", ints({3})).initializer("e", ints({1}))
      .node("Slice", {"x", "s", "e"}, {"y"}, {}, "empty").output("y", DType::Float32);
  EXPECT_IMPORT_ERROR(e, "(node 'empty', op 'Slice'): the slice along axis 0 is empty");
  OnnxModel z;
  z.input("x", DType::Float32, {4}).initializer("s", ints({0})).initializer("e", ints({4})).initializer("a", ints({0}))
      .initializer("st", ints({0})).node("Slice", {"x", "s", "e", "a", "st"}, {"y"}).output("y", DType::Float32, {"n"});
  EXPECT_IMPORT_ERROR(z, "(op_type:Slice, node name: Slice_0): [ShapeInferenceError] 'step' cannot be 0 for Slice");
}

TEST(ImportSplit, OpsetForms) {
  Tensor x = iota(DType::Float32, {2, 5});
  for (int opset : {11, 13}) {
    SCOPED_TRACE(opset);
    OnnxModel m(opset);
    m.input("x", DType::Float32, {2, 5});
    if (opset < 13) m.node("Split", {"x"}, {"a", "b"}, {attr_i("axis", 1), attr_ints("split", {2, 3})});
    else m.initializer("sizes", ints({2, 3})).node("Split", {"x", "sizes"}, {"a", "b"}, {attr_i("axis", -1)});
    m.output("a", DType::Float32).output("b", DType::Float32);
    std::vector<Tensor> out = run_model(m, {x});
    EXPECT_TRUE(same_tensor(out[0], f32({2, 2}, {0, 1, 5, 6})));
    EXPECT_TRUE(same_tensor(out[1], f32({2, 3}, {2, 3, 4, 7, 8, 9})));
  }
  OnnxModel eq;
  eq.input("x", DType::Float32, {4, 2}).node("Split", {"x"}, {"a", "b"}).output("a", DType::Float32).output("b", DType::Float32);
  std::vector<Tensor> out = run_model(eq, {iota(DType::Float32, {4, 2})});
  EXPECT_TRUE(same_tensor(out[1], f32({2, 2}, {4, 5, 6, 7})));
  OnnxModel odd;
  odd.input("x", DType::Float32, {3}).node("Split", {"x"}, {"a", "b"}).output("a", DType::Float32, {"n"}).output("b", DType::Float32, {"m"});
  EXPECT_IMPORT_ERROR(odd, "(op_type:Split, node name: Split_0): [ShapeInferenceError] The input is not evenly splittable");
}

TEST(ImportGather, KnownIndices) {
  Tensor x = iota(DType::Float32, {3, 4});
  // 0-d index: select; negative indices count from the end.
  check_op({"Gather", {x, i64({}, {-1})}, f32({4}, {8, 9, 10, 11})});
  check_op({"Gather", {x, i64({}, {2})}, f32({3}, {2, 6, 10}), {attr_i("axis", 1)}});
  check_op({"Gather", {x, ints({0, 2})}, f32({2, 4}, {0, 1, 2, 3, 8, 9, 10, 11})});
  // index_select (not in the front end yet): the folded form.
  check_folded({"Gather", {x, i32({2, 2}, {3, -4, 1, 1})}, f32({3, 2, 2}, {3, 0, 1, 1, 7, 4, 5, 5, 11, 8, 9, 9}), {attr_i("axis", -1)}});
  check_folded({"Gather", {ints({5, 6, 7}), ints({-1, 0})}, i64({2}, {7, 5})});
  EXPECT_IMPORT_ERROR(single_node({"Gather", {x, i64({}, {3})}, f32({4}, {})}, false),
                      "(node 'Gather_0', op 'Gather'): index 3 is out of range for a dim of size 3");
}

TEST(ImportGather, KnownIndicesBecomeSelectSliceOrIndexSelect) {
  OnnxModel m;
  m.input("x", DType::Float32, {3, 4})
      .initializer("i0", i64({}, {-1})).initializer("i1", ints({1, 2})).initializer("i2", ints({2, 0}))
      .node("Gather", {"x", "i0"}, {"a"}).node("Gather", {"x", "i1"}, {"b"}, {attr_i("axis", 1)})
      .node("Gather", {"x", "i2"}, {"c"})
      .output("a", DType::Float32).output("b", DType::Float32).output("c", DType::Float32);
  json doc = document(import_model(m));
  EXPECT_EQ(node_named(doc, "a"), json::parse(R"({"name": "a", "op": "select", "args": ["x"], "dim": 0, "index": 2})"));
  EXPECT_EQ(node_named(doc, "b"), json::parse(R"({"name": "b", "op": "slice", "args": ["x"], "dim": 1, "start": 1, "end": 3, "step": 1})"));
  EXPECT_EQ(node_named(doc, "c"), json::parse(R"({"name": "c", "op": "index_select", "args": ["x", "c.index"], "dim": 0})"));
}

// Indices at run time (counted from the end when negative): a 2-D float table along axis 0 is
// an embedding; otherwise index_select of the flattened indices, reshaped.
TEST(ImportGather, RunTimeIndices) {
  OnnxModel m;
  m.input("ids", DType::Int64, {2, 3}).input("x", DType::Float32, {4, 5})
      .initializer("table", iota(DType::Float32, {10, 8}))
      .node("Gather", {"table", "ids"}, {"emb"})
      .node("Gather", {"x", "ids"}, {"cols"}, {attr_i("axis", 1)})
      .output("emb", DType::Float32).output("cols", DType::Float32);
  json doc = document(import_model(m));
  EXPECT_EQ(node_named(doc, "emb"), json::parse(R"({"name": "emb", "op": "embedding", "args": ["table",
      {"op": "where", "args": [{"op": "lt", "args": ["ids", 0]}, {"op": "add", "args": ["ids", 10]}, "ids"]}]})"));
  EXPECT_EQ(node_named(doc, "cols"), json::parse(R"({"name": "cols", "op": "reshape", "args": [
      {"op": "index_select", "args": ["x", {"op": "reshape", "args": [
          {"op": "where", "args": [{"op": "lt", "args": ["ids", 0]}, {"op": "add", "args": ["ids", 5]}, "ids"]}],
          "shape": [6]}], "dim": 1}],
      "shape": [4, 2, 3]})"));
}

// Negative indices computed at run time count from the end, as ONNX counts them (ONNX's own
// node tests test_gather_negative_indices and test_gather_elements_negative_indices): an
// embedding, an index_select of int32 indices, a gather.
TEST(ImportGather, RunTimeNegativeIndicesCountFromTheEnd) {
  const std::size_t both = 2;
  check_op({"Gather", {iota(DType::Float32, {3, 4}), ints({-1, 0})}, f32({2, 4}, {8, 9, 10, 11, 0, 1, 2, 3}), {}, 13, 0,
            both});
  check_op({"Gather", {iota(DType::Float32, {3, 4}), i32({2, 2}, {3, -4, 1, -1})},
            f32({3, 2, 2}, {3, 0, 1, 3, 7, 4, 5, 7, 11, 8, 9, 11}), {attr_i("axis", 1)}, 13, 0, both});
  check_op({"GatherElements", {iota(DType::Float32, {2, 3}), i32({2, 2}, {-1, 0, 1, -3})}, f32({2, 2}, {2, 0, 4, 3}),
            {attr_i("axis", 1)}, 13, 0, both});
}

TEST(ImportGather, GatherElements) {
  OnnxModel m;
  m.input("x", DType::Float32, {2, 3}).input("i", DType::Int32, {2, 2}).initializer("k", i64({2, 1}, {-1, 0}))
      .node("GatherElements", {"x", "i"}, {"a"}, {attr_i("axis", 1)})
      .node("GatherElements", {"x", "k"}, {"b"}, {attr_i("axis", 1)})
      .output("a", DType::Float32).output("b", DType::Float32);
  json doc = document(import_model(m));
  const json i = json::parse(R"({"op": "to", "args": ["i"], "dtype": "int64"})");
  const json index = {{"op", "where"}, {"args", {{{"op", "lt"}, {"args", {i, 0}}}, {{"op", "add"}, {"args", {i, 3}}}, i}}};
  EXPECT_EQ(node_named(doc, "a"), (json{{"name", "a"}, {"op", "gather"}, {"args", {"x", index}}, {"dim", 1}}));
  EXPECT_EQ(node_named(doc, "b"), json::parse(R"({"name": "b", "op": "gather", "args": ["x", "b.index"], "dim": 1})"));
  EXPECT_EQ(doc["constants"][0], json::parse(R"({"name": "b.index", "dtype": "int64", "shape": [2, 1], "data": [2, 0]})"));
}

// An empty slice of a shape vector folds (it is concatenated away); only at run time is it an
// error.
TEST(ImportSlice, EmptySliceOfAShapeFolds) {
  OnnxModel m;
  m.input("x", DType::Float32, {2, 3})
      .initializer("s", ints({2})).initializer("e", ints({INT64_MAX})).initializer("minus_one", ints({-1}))
      .node("Shape", {"x"}, {"shape"})
      .node("Slice", {"shape", "s", "e"}, {"rest"})
      .node("Concat", {"minus_one", "rest"}, {"target"}, {attr_i("axis", 0)})
      .node("Reshape", {"x", "target"}, {"y"}).output("y", DType::Float32, {6});
  EXPECT_TRUE(same_tensor(run_model(m, {iota(DType::Float32, {2, 3})})[0], iota(DType::Float32, {6})));
}

TEST(ImportScatterND, KnownInputsOnly) {
  // Rows 0 and 2 of a [3, 2] zero tensor replaced; the result is known at import.
  OnnxModel m;
  m.input("x", DType::Float32, {3, 2})
      .initializer("data", f32({3, 2}, {0, 0, 0, 0, 0, 0})).initializer("idx", i64({2, 1}, {0, -1}))
      .initializer("upd", f32({2, 2}, {1, 2, 3, 4}))
      .node("ScatterND", {"data", "idx", "upd"}, {"mask"}).node("Add", {"x", "mask"}, {"y"}).output("y", DType::Float32);
  EXPECT_TRUE(same_tensor(run_model(m, {f32({3, 2}, {1, 1, 1, 1, 1, 1})})[0], f32({3, 2}, {2, 3, 1, 1, 4, 5})));
  OnnxModel r;
  r.input("x", DType::Float32, {3, 2}).initializer("idx", i64({1, 2}, {0, 1})).initializer("upd", f32({1}, {9}))
      .node("ScatterND", {"x", "idx", "upd"}, {"y"}, {}, "scatter").output("y", DType::Float32);
  EXPECT_IMPORT_ERROR(r, "(node 'scatter', op 'ScatterND'): ScatterND is supported only on values known at import");
}

}  // namespace
}  // namespace stax::testing
