// Shapes and layout: the view ops in their attribute and opset forms, and the folding of shape
// computations into constants.
#include "op_check.h"

namespace stax::testing {
namespace {

using nlohmann::json;

TEST(ImportShape, ReshapeZeroAndMinusOne) {
  Tensor x = iota(DType::Float32, {2, 3, 4});
  check_op({"Reshape", {x, i64({3}, {0, -1, 2})}, iota(DType::Float32, {2, 6, 2})});
  check_op({"Reshape", {x, i64({2}, {-1, 4})}, iota(DType::Float32, {6, 4})});
  check_op({"Reshape", {x, i64({1}, {-1})}, iota(DType::Float32, {24})});
  // Invalid shapes: ONNX's shape inference names the node and the problem.
  EXPECT_IMPORT_ERROR(single_node({"Reshape", {x, i64({2}, {-1, -1})}, x}, false),
                      "(op_type:Reshape, node name: Reshape_0): [ShapeInferenceError] Target shape may not have multiple -1 dimensions");
  EXPECT_IMPORT_ERROR(single_node({"Reshape", {x, i64({2}, {5, -1})}, x}, false), "incompatible shapes");
  // allowzero (opset 14): a 0 is a zero-size dim, which stax has not.
  EXPECT_IMPORT_ERROR(single_node({"Reshape", {x, i64({2}, {0, 24})}, f32({0, 24}, {}), {attr_i("allowzero", 1)}, 14}, false),
                      "graph.node[0] (node 'Reshape_0', op 'Reshape'): shape [0, 24] has a 0 with allowzero: an empty tensor");
}

TEST(ImportShape, ReshapeNeedsAKnownShape) {
  OnnxModel m;
  m.input("x", DType::Float32, {2, 3}).input("s", DType::Int64, {2})
      .node("Reshape", {"x", "s"}, {"y"}, {}, "r").output("y", DType::Float32, {"a", "b"});
  EXPECT_IMPORT_ERROR(m, "graph.node[0] (node 'r', op 'Reshape'): input 1 (shape, 's') must be known at import");
}

TEST(ImportShape, FlattenAxes) {
  Tensor x = iota(DType::Float32, {2, 3, 4});
  check_op({"Flatten", {x}, iota(DType::Float32, {2, 12})});
  check_op({"Flatten", {x}, iota(DType::Float32, {1, 24}), {attr_i("axis", 0)}});
  check_op({"Flatten", {x}, iota(DType::Float32, {6, 4}), {attr_i("axis", -1)}});
  check_op({"Flatten", {x}, iota(DType::Float32, {24, 1}), {attr_i("axis", 3)}});
}

TEST(ImportShape, TransposeDefaultReverses) {
  Tensor x = iota(DType::Float32, {2, 3});
  check_op({"Transpose", {x}, f32({3, 2}, {0, 3, 1, 4, 2, 5})});
  Tensor y = iota(DType::Int64, {2, 1, 3});
  check_op({"Transpose", {y}, i64({1, 3, 2}, {0, 3, 1, 4, 2, 5}), {attr_ints("perm", {1, 2, 0})}});
  // ONNX's shape inference finds this one first, naming the node too.
  EXPECT_IMPORT_ERROR(single_node({"Transpose", {y}, y, {attr_ints("perm", {0, 0, 1})}}, false),
                      "(op_type:Transpose, node name: Transpose_0): [TypeInferenceError] Attribute perm for Transpose has repeated value");
}

TEST(ImportShape, SqueezeOpsetForms) {
  Tensor x = iota(DType::Float32, {1, 3, 1, 2});
  Tensor all = iota(DType::Float32, {3, 2});
  check_op({"Squeeze", {x}, all, {}, 11});
  check_op({"Squeeze", {x}, iota(DType::Float32, {3, 1, 2}), {attr_ints("axes", {0})}, 11});
  check_op({"Squeeze", {x}, all, {attr_ints("axes", {0, -2})}, 12});
  check_op({"Squeeze", {x, i64({1}, {-2})}, iota(DType::Float32, {1, 3, 2})});  // axes input, opset 13
  check_op({"Squeeze", {x}, all, {}, 13});
  EXPECT_IMPORT_ERROR(single_node({"Squeeze", {x, i64({1}, {1})}, x}, false), "Dimension of input 1 must be 1 instead of 3");
}

TEST(ImportShape, UnsqueezeOpsetForms) {
  Tensor x = iota(DType::Float32, {3, 2});
  check_op({"Unsqueeze", {x}, iota(DType::Float32, {1, 3, 1, 2}), {attr_ints("axes", {0, 2})}, 11});
  check_op({"Unsqueeze", {x, i64({2}, {-1, 0})}, iota(DType::Float32, {1, 3, 2, 1})});
  check_op({"Unsqueeze", {f32({}, {5})}, f32({1}, {5}), {attr_ints("axes", {0})}, 12});
  EXPECT_IMPORT_ERROR(single_node({"Unsqueeze", {x, i64({2}, {1, 1})}, x}, false), "must not contain any duplicates");
}

TEST(ImportShape, ConcatSkipsEmptyInputs) {
  Tensor a = iota(DType::Float32, {2, 1}), b = iota(DType::Float32, {2, 2}, 10);
  check_op({"Concat", {a, b}, f32({2, 3}, {0, 10, 11, 1, 12, 13}), {attr_i("axis", -1)}});
  check_op({"Concat", {i64({2}, {1, 2}), i64({1}, {3})}, i64({3}, {1, 2, 3}), {attr_i("axis", 0)}});
  // An empty initializer along the axis (as exporters write for an empty list) is left out.
  OnnxModel m;
  m.input("x", DType::Float32, {2}).initializer("e", f32({0}, {}))
      .node("Concat", {"e", "x"}, {"y"}, {attr_i("axis", 0)}).output("y", DType::Float32);
  EXPECT_TRUE(same_tensor(run_model(m, {f32({2}, {4, 5})})[0], f32({2}, {4, 5})));
}

TEST(ImportShape, ExpandBroadcastsBothWays) {
  // A 1 in `shape` keeps the input's dim (ONNX's bidirectional broadcast).
  check_op({"Expand", {f32({2, 1}, {1, 2}), i64({2}, {1, 3})}, f32({2, 3}, {1, 1, 1, 2, 2, 2})});
  check_op({"Expand", {f32({3}, {1, 2, 3}), i64({3}, {2, 1, 1})}, f32({2, 1, 3}, {1, 2, 3, 1, 2, 3})});
  check_op({"Expand", {i64({1}, {7}), i64({1}, {4})}, i64({4}, {7, 7, 7, 7})});
}

TEST(ImportShape, TileRepeatsBlocks) {
  check_op({"Tile", {f32({2, 2}, {1, 2, 3, 4}), i64({2}, {2, 1})}, f32({4, 2}, {1, 2, 3, 4, 1, 2, 3, 4})});
  check_op({"Tile", {f32({1, 2}, {1, 2}), i64({2}, {2, 2})}, f32({2, 4}, {1, 2, 1, 2, 1, 2, 1, 2})});
}

TEST(ImportShape, PadConstantMode) {
  Tensor x = f32({2, 2}, {1, 2, 3, 4});
  // pads: [begin of each dim..., end of each dim...]
  check_op({"Pad", {x, i64({4}, {0, 1, 1, 0}), f32({}, {9})}, f32({3, 3}, {9, 1, 2, 9, 3, 4, 9, 9, 9})});
  check_op({"Pad", {x, i64({4}, {1, 0, 0, 0})}, f32({3, 2}, {0, 0, 1, 2, 3, 4})});
  // Negative pads crop.
  check_op({"Pad", {x, i64({4}, {0, -1, 0, 1})}, f32({2, 2}, {2, 0, 4, 0})});
  check_op({"Pad", {i64({2}, {5, 6}), i64({2}, {1, 1}), i64({}, {-1})}, i64({4}, {-1, 5, 6, -1})});
  EXPECT_IMPORT_ERROR(single_node({"Pad", {x, i64({4}, {1, 1, 1, 1})}, f32({4, 4}, {}), {attr_s("mode", "reflect")}}, false),
                      "(node 'Pad_0', op 'Pad'): mode 'reflect' is not supported (only 'constant' is)");
  OnnxModel m;
  m.input("x", DType::Float32, {2, 2}).initializer("p", i64({4}, {0, 1, 0, 0}))
      .node("Pad", {"x", "p"}, {"y"}).output("y", DType::Float32);
  EXPECT_EQ(node_named(document(import_model(m)), "y"),
            json::parse(R"({"name": "y", "op": "pad", "args": ["x"], "pad": [1, 0], "value": 0.0})"));
}

// Shape -> Gather -> Unsqueeze -> Concat -> Reshape, as torch.onnx.export writes x.view(n, -1):
// everything but the Reshape is computed at import, and the Reshape gets a static shape.
TEST(ImportShape, ShapeChainsFold) {
  OnnxModel m(11);
  m.input("x", DType::Float32, {"batch", 3, 4})
      .initializer("zero", i64({}, {0}))
      .initializer("minus_one", i64({1}, {-1}))
      .node("Shape", {"x"}, {"s"})
      .node("Gather", {"s", "zero"}, {"n"}, {attr_i("axis", 0)})
      .node("Unsqueeze", {"n"}, {"n1"}, {attr_ints("axes", {0})})
      .node("Concat", {"n1", "minus_one"}, {"shape"}, {attr_i("axis", 0)})
      .node("Reshape", {"x", "shape"}, {"y"})
      .output("y", DType::Float32, {"batch", 12});
  importer::ImportOptions opts;
  opts.input_shapes["x"] = {2, 3, 4};
  json doc = document(import_model(m, opts));
  ASSERT_EQ(doc["nodes"].size(), 1u) << doc.dump();
  EXPECT_EQ(doc["nodes"][0], json::parse(R"({"name": "y", "op": "reshape", "args": ["x"], "shape": [2, 12]})"));
  EXPECT_TRUE(doc["constants"].empty());
  EXPECT_TRUE(same_tensor(run_model(m, {iota(DType::Float32, {2, 3, 4})}, opts)[0], iota(DType::Float32, {2, 12})));
}

TEST(ImportShape, ShapeStartEndAndSize) {
  Tensor x = iota(DType::Float32, {2, 3, 4});
  check_op({"Shape", {x}, i64({3}, {2, 3, 4})});
  check_op({"Shape", {x}, i64({2}, {3, 4}), {attr_i("start", 1)}, 15});
  check_op({"Shape", {x}, i64({2}, {2, 3}), {attr_i("end", -1)}, 15});
  check_op({"Shape", {x}, i64({1}, {4}), {attr_i("start", -1), attr_i("end", 10)}, 15});
  check_op({"Size", {x}, i64({}, {24})});
}

TEST(ImportShape, ConstantOfShapeAndRange) {
  OnnxModel m;
  m.input("x", DType::Float32, {2, 3})
      .node("Shape", {"x"}, {"s"})
      .node("ConstantOfShape", {"s"}, {"ones"}, {attr_t("value", f32({1}, {1.0f}))})
      .node("Add", {"x", "ones"}, {"y"})
      .initializer("start", i64({}, {10})).initializer("limit", i64({}, {1})).initializer("delta", i64({}, {-3}))
      .node("Range", {"start", "limit", "delta"}, {"r"})
      .node("ConstantOfShape", {"s"}, {"zeros"})
      .output("y", DType::Float32).output("r", DType::Int64).output("zeros", DType::Float32);
  json doc = document(import_model(m));
  // ConstantOfShape's float result is a fill constant; Range's a data constant.
  EXPECT_EQ(doc["constants"][0], json::parse(R"({"name": "ones", "dtype": "float32", "shape": [2, 3], "fill": 1.0})"));
  EXPECT_EQ(doc["constants"][1], json::parse(R"({"name": "r", "dtype": "int64", "shape": [3], "data": [10, 7, 4]})"));
  std::vector<Tensor> out = run_model(m, {iota(DType::Float32, {2, 3})});
  EXPECT_TRUE(same_tensor(out[0], iota(DType::Float32, {2, 3}, 1)));
  EXPECT_TRUE(same_tensor(out[2], f32({2, 3}, {0, 0, 0, 0, 0, 0})));
  // Range needs known inputs: only the folded form exists.
  OpCase f{"Range", {f32({}, {0.5f}), f32({}, {2}), f32({}, {0.5f})}, f32({3}, {0.5f, 1, 1.5f})};
  EXPECT_TRUE(same_tensor(run_model(single_node(f, true), {})[0], f.expected));
  OpCase i{"Range", {i32({}, {-2}), i32({}, {3}), i32({}, {2})}, i32({3}, {-2, 0, 2})};
  EXPECT_TRUE(same_tensor(run_model(single_node(i, true), {})[0], i.expected));
}

TEST(ImportShape, RangeOfRunTimeValuesIsRefused) {
  OnnxModel m;
  m.input("n", DType::Int64, {}).initializer("zero", i64({}, {0})).initializer("one", i64({}, {1}))
      .node("Range", {"zero", "n", "one"}, {"r"}, {}, "range").output("r", DType::Int64);
  EXPECT_IMPORT_ERROR(m, "(node 'range', op 'Range'): input 1 (limit, 'n') must be known at import");
}

TEST(ImportShape, ConstantForms) {
  OnnxModel m;
  onnx::AttributeProto floats;
  floats.set_name("value_floats");
  floats.set_type(onnx::AttributeProto_AttributeType_FLOATS);
  floats.add_floats(1.5f);
  floats.add_floats(-2);
  m.node("Constant", {}, {"a"}, {attr_t("value", i32({2}, {3, 4}))})
      .node("Constant", {}, {"b"}, {attr_i("value_int", 7)})
      .node("Constant", {}, {"c"}, {attr_ints("value_ints", {1, 2})})
      .node("Constant", {}, {"d"}, {floats})
      .node("Constant", {}, {"e"}, {attr_f("value_float", 0.25f)})
      .output("a", DType::Int32).output("b", DType::Int64).output("c", DType::Int64)
      .output("d", DType::Float32).output("e", DType::Float32);
  std::vector<Tensor> out = run_model(m, {});
  EXPECT_TRUE(same_tensor(out[0], i32({2}, {3, 4})));
  EXPECT_TRUE(same_tensor(out[1], i64({}, {7})));
  EXPECT_TRUE(same_tensor(out[2], i64({2}, {1, 2})));
  EXPECT_TRUE(same_tensor(out[3], f32({2}, {1.5f, -2})));
  EXPECT_TRUE(same_tensor(out[4], f32({}, {0.25f})));
}

// Identity and Dropout pass their input through; a graph output keeps its ONNX name.
TEST(ImportShape, IdentityAndDropout) {
  OnnxModel m(12);
  m.input("x", DType::Float32, {3})
      .initializer("ratio", f32({}, {0.5f}))
      .node("Dropout", {"x", "ratio"}, {"d", "mask"})
      .node("Identity", {"d"}, {"y"})
      .node("Not", {"mask"}, {"nm"})
      .output("y", DType::Float32).output("nm", DType::Bool);
  json doc = document(import_model(m));
  EXPECT_EQ(node_named(doc, "y"), json::parse(R"({"name": "y", "op": "reshape", "args": ["x"], "shape": [3]})"));
  std::vector<Tensor> out = run_model(m, {f32({3}, {1, 2, 3})});
  EXPECT_TRUE(same_tensor(out[0], f32({3}, {1, 2, 3})));
  EXPECT_TRUE(same_tensor(out[1], boolean({3}, {false, false, false})));
  OnnxModel t(13);
  t.input("x", DType::Float32, {3}).initializer("train", boolean({}, {true}))
      .node("Dropout", {"x", "", "train"}, {"y"}).output("y", DType::Float32);
  EXPECT_IMPORT_ERROR(t, "training_mode is true with a nonzero ratio");
  // Training with ratio 0 drops nothing: the identity.
  OnnxModel z(13);
  z.input("x", DType::Float32, {3}).initializer("train", boolean({}, {true})).initializer("ratio", f32({}, {0.0f}))
      .node("Dropout", {"x", "ratio", "train"}, {"y"}).output("y", DType::Float32);
  EXPECT_TRUE(same_tensor(run_model(z, {f32({3}, {1, 2, 3})})[0], f32({3}, {1, 2, 3})));
}

TEST(ImportShape, TriluKeepsATriangle) {
  Tensor x = iota(DType::Float32, {2, 3}, 1);
  check_op({"Trilu", {x}, f32({2, 3}, {1, 2, 3, 0, 5, 6}), {}, 14});
  check_op({"Trilu", {x, i64({}, {1})}, f32({2, 3}, {0, 2, 3, 0, 0, 6}), {}, 14, 0, 1});
  check_op({"Trilu", {x}, f32({2, 3}, {1, 0, 0, 4, 5, 0}), {attr_i("upper", 0)}, 14});
  check_op({"Trilu", {i64({2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8}), i64({}, {-1})}, i64({2, 2, 2}, {0, 0, 3, 0, 0, 0, 7, 0}),
            {attr_i("upper", 0)}, 14, 0, 1});
}

}  // namespace
}  // namespace stax::testing
