// Convolution, pooling and batch normalization. Their stax ops are checked in the document
// (conv2d, max_pool2d, avg_pool2d, batch_norm); the global pools, which map to reductions, by
// their values.
#include <cmath>

#include "op_check.h"

namespace stax::testing {
namespace {

using nlohmann::json;

// x [1, 2, 5, 5] through `op` with `attrs` (and a [4, 2 / group, 3, 3] weight for Conv); the
// node named y in the document.
json mapped(const std::string& op, const std::vector<onnx::AttributeProto>& attrs, Shape x_shape = {1, 2, 5, 5},
            Shape w_shape = {4, 2, 3, 3}) {
  OnnxModel m;
  std::vector<Dim> dims(x_shape.begin(), x_shape.end());
  m.input("x", DType::Float32, dims);
  std::vector<std::string> ins{"x"};
  if (op == "Conv") {
    m.initializer("w", iota(DType::Float32, w_shape)).initializer("b", iota(DType::Float32, {w_shape[0]}));
    ins = {"x", "w", "b"};
  }
  m.node(op, ins, {"y"}, attrs).output("y", DType::Float32);
  return node_named(document(import_model(m)), "y");
}

GraphError mapping_error(const std::string& op, const std::vector<onnx::AttributeProto>& attrs,
                         Shape x_shape = {1, 2, 5, 5}, Shape w_shape = {4, 2, 3, 3}, bool infer = true) {
  OnnxModel m;
  m.infer_output_shapes = infer;
  std::vector<Dim> dims(x_shape.begin(), x_shape.end());
  m.input("x", DType::Float32, dims);
  std::vector<std::string> ins{"x"};
  if (op == "Conv") {
    m.initializer("w", iota(DType::Float32, w_shape));
    ins = {"x", "w"};
  }
  // (without inference the checker wants the output's shape: any will do, the error comes first)
  if (infer) m.node(op, ins, {"y"}, attrs).output("y", DType::Float32);
  else m.node(op, ins, {"y"}, attrs).output("y", DType::Float32, {1, 1, 1, 1});
  return import_error(m);
}

TEST(ImportConv, SymmetricPadsAreConvPadding) {
  EXPECT_EQ(mapped("Conv", {attr_ints("pads", {1, 1, 1, 1}), attr_ints("strides", {2, 2})}), json::parse(R"(
      {"name": "y", "op": "conv2d", "args": ["x", "w", "b"], "stride": [2, 2], "padding": [1, 1],
       "dilation": [1, 1], "groups": 1})"));
  EXPECT_EQ(mapped("Conv", {attr_i("group", 2), attr_ints("dilations", {2, 1})}, {1, 2, 5, 5}, {4, 1, 3, 3})["groups"], 2);
  json one_d = mapped("Conv", {attr_ints("pads", {2, 2})}, {1, 2, 7}, {4, 2, 3});
  EXPECT_EQ(one_d, json::parse(R"({"name": "y", "op": "conv1d", "args": ["x", "w", "b"], "stride": [1],
      "padding": [2], "dilation": [1], "groups": 1})"));
}

TEST(ImportConv, AsymmetricAndAutoPads) {
  // pads [top, left, bottom, right] = [0, 1, 1, 2]: F.pad takes [left, right, top, bottom].
  json y = mapped("Conv", {attr_ints("pads", {0, 1, 1, 2})});
  EXPECT_EQ(y["args"][0], json::parse(R"({"op": "pad", "args": ["x"], "pad": [1, 2, 0, 1], "value": 0.0})"));
  EXPECT_EQ(y["padding"], json::parse("[0, 0]"));
  // SAME_UPPER with stride 2 on 5: 3 outputs, total pad 2 -> 1 and 1; kernel 2: total 1 -> 0 and 1.
  EXPECT_EQ(mapped("Conv", {attr_s("auto_pad", "SAME_UPPER"), attr_ints("strides", {2, 2})})["padding"], json::parse("[1, 1]"));
  json upper = mapped("Conv", {attr_s("auto_pad", "SAME_UPPER")}, {1, 2, 5, 5}, {4, 2, 2, 2});
  EXPECT_EQ(upper["args"][0]["pad"], json::parse("[0, 1, 0, 1]"));
  json lower = mapped("Conv", {attr_s("auto_pad", "SAME_LOWER")}, {1, 2, 5, 5}, {4, 2, 2, 2});
  EXPECT_EQ(lower["args"][0]["pad"], json::parse("[1, 0, 1, 0]"));
  EXPECT_EQ(mapped("Conv", {attr_s("auto_pad", "VALID")})["padding"], json::parse("[0, 0]"));
}

TEST(ImportConv, Refusals) {
  EXPECT_NE(std::string(mapping_error("Conv", {}, {1, 2, 3, 3, 3}, {4, 2, 1, 1, 1}).what()).find("only 1-D and 2-D convolutions"),
            std::string::npos);
  EXPECT_NE(std::string(mapping_error("Conv", {attr_ints("kernel_shape", {2, 2})}).what()).find("differs from the weight's"),
            std::string::npos);
  EXPECT_NE(std::string(mapping_error("Conv", {attr_i("group", 3)}, {1, 3, 5, 5}, {4, 1, 3, 3}).what()).find("group 3"),
            std::string::npos);
}

// A weight of higher rank than the input, without kernel_shape, would have ONNX's shape inference
// index the strides and pads past their end (a crash the ONNX fuzzer found; CI's sanitized
// stage sees the read): kernel_shape is written from the weight first, and inference refuses it.
TEST(ImportConv, WeightOfAnotherRankThanTheInputRefused) {
  const std::string e =
      mapping_error("Conv", {attr_ints("strides", {1, 1})}, {1, 2, 5, 5}, {4, 2, 3, 3, 3, 3}, false).what();
  EXPECT_NE(e.find("kernel_shape"), std::string::npos) << e;
  const std::string r = mapping_error("Conv", {}, {1, 2, 5, 5}, {4}, false).what();
  EXPECT_NE(r.find("has rank 1"), std::string::npos) << r;
}

// A stride of 0 would divide by zero inside ONNX's own shape inference (a crash the ONNX fuzzer
// found): refused before it runs, for convolutions and pools alike.
TEST(ImportConv, NonPositiveStridesRefusedBeforeShapeInference) {
  for (const std::string op : {"Conv", "MaxPool", "AveragePool"}) {
    std::vector<onnx::AttributeProto> attrs{attr_ints("strides", {0, 1})};
    if (op != "Conv") attrs.push_back(attr_ints("kernel_shape", {3, 3}));
    const Shape w{4, 2, 3, 3};
    EXPECT_NE(std::string(mapping_error(op, attrs, {1, 2, 5, 5}, w, false).what()).find("strides must be positive, got 0"),
              std::string::npos)
        << op;
    attrs[0] = attr_ints("strides", {1, -2});
    EXPECT_NE(std::string(mapping_error(op, attrs, {1, 2, 5, 5}, w, false).what()).find("strides must be positive, got -2"),
              std::string::npos)
        << op;
  }
}

TEST(ImportPool, MaxPool) {
  EXPECT_EQ(mapped("MaxPool", {attr_ints("kernel_shape", {3, 3}), attr_ints("strides", {2, 2}), attr_ints("pads", {1, 1, 1, 1})}),
            json::parse(R"({"name": "y", "op": "max_pool2d", "args": ["x"], "kernel_size": [3, 3], "stride": [2, 2],
                "padding": [1, 1], "dilation": [1, 1], "ceil_mode": false})"));
  // ONNX's strides default to 1 (PyTorch's to the kernel): always written.
  EXPECT_EQ(mapped("MaxPool", {attr_ints("kernel_shape", {2, 2})})["stride"], json::parse("[1, 1]"));
  // Asymmetric pads: an explicit -inf pad.
  json asym = mapped("MaxPool", {attr_ints("kernel_shape", {2, 2}), attr_ints("pads", {0, 0, 1, 1}), attr_ints("strides", {2, 2})});
  EXPECT_EQ(asym["args"][0], json::parse(R"({"op": "pad", "args": ["x"], "pad": [0, 1, 0, 1], "value": "-inf"})"));
  // ceil_mode on 5 with kernel 2, stride 2: 3 windows both ways.
  EXPECT_EQ(mapped("MaxPool", {attr_ints("kernel_shape", {2, 2}), attr_ints("strides", {2, 2}), attr_i("ceil_mode", 1)})["ceil_mode"], true);
  // ceil_mode where ONNX keeps a window starting in the padding and PyTorch drops it: refused.
  GraphError e = mapping_error("MaxPool", {attr_ints("kernel_shape", {2, 2}), attr_ints("strides", {2, 2}),
                                           attr_ints("pads", {1, 1, 1, 1}), attr_i("ceil_mode", 1)}, {1, 1, 5, 5});
  EXPECT_NE(std::string(e.what()).find("ONNX counts 4 windows along spatial dim 0 where PyTorch's pooling counts 3"),
            std::string::npos) << e.what();
  OnnxModel m;
  m.input("x", DType::Float32, {1, 1, 4, 4}).node("MaxPool", {"x"}, {"y", "idx"}, {attr_ints("kernel_shape", {2, 2})})
      .output("y", DType::Float32).output("idx", DType::Int64);
  EXPECT_IMPORT_ERROR(m, "the Indices output is not produced");
  EXPECT_NE(std::string(mapping_error("MaxPool", {attr_ints("kernel_shape", {2, 2, 2})}, {1, 2, 5, 5, 5}).what())
                .find("only 1-D and 2-D pooling"),
            std::string::npos);
}

// 1-D pools (PyTorch's max_pool1d and avg_pool1d export to them): the 2-D ones of [N, C, 1, L].
TEST(ImportPool, OneDimensional) {
  Tensor x = f32({1, 2, 5}, {1, 5, 2, 4, 3, -1, -5, -2, -4, -3});
  check_op({"MaxPool", {x}, f32({1, 2, 3}, {5, 4, 3, -1, -2, -3}), {attr_ints("kernel_shape", {2}), attr_ints("strides", {2}),
                                                                     attr_ints("pads", {0, 1})}});
  check_op({"AveragePool", {x}, f32({1, 2, 4}, {3, 3.5f, 3, 3.5f, -3, -3.5f, -3, -3.5f}), {attr_ints("kernel_shape", {2})}});
  EXPECT_EQ(mapped("MaxPool", {attr_ints("kernel_shape", {3})}, {1, 2, 5})["op"], "reshape");
}

TEST(ImportPool, AveragePool) {
  EXPECT_EQ(mapped("AveragePool", {attr_ints("kernel_shape", {3, 3}), attr_ints("pads", {1, 1, 1, 1})}),
            json::parse(R"({"name": "y", "op": "avg_pool2d", "args": ["x"], "kernel_size": [3, 3], "stride": [1, 1],
                "padding": [1, 1], "ceil_mode": false, "count_include_pad": false})"));
  // count_include_pad = 1 with asymmetric pads: explicit zeros, counted.
  json asym = mapped("AveragePool", {attr_ints("kernel_shape", {2, 2}), attr_ints("pads", {1, 0, 0, 0}),
                                     attr_i("count_include_pad", 1)});
  EXPECT_EQ(asym["args"][0]["pad"], json::parse("[0, 0, 1, 0]"));
  EXPECT_EQ(asym["count_include_pad"], true);
}

// count_include_pad = 0 with pads avg_pool2d cannot take (asymmetric, as auto_pad SAME makes
// them, or over half the kernel): each window's sum over its cells inside the input.
TEST(ImportPool, AveragePoolExcludingPadsItCannotTake) {
  Tensor x = iota(DType::Float32, {1, 1, 3, 3});  // 0 1 2 / 3 4 5 / 6 7 8
  // Pads 1 before each dim, kernel 2, stride 2: windows {0}, {1, 2}, {3, 6}, {4, 5, 7, 8}.
  check_op({"AveragePool", {x}, f32({1, 1, 2, 2}, {0, 1.5f, 4.5f, 6}),
            {attr_ints("kernel_shape", {2, 2}), attr_ints("strides", {2, 2}), attr_ints("pads", {1, 1, 0, 0})}, 13, 1e-6});
  // SAME_UPPER, kernel 2, stride 1 on 3: the pad after, the last row and column of windows halved.
  check_op({"AveragePool", {x}, f32({1, 1, 3, 3}, {2, 3, 3.5f, 5, 6, 6.5f, 6.5f, 7.5f, 8}),
            {attr_ints("kernel_shape", {2, 2}), attr_s("auto_pad", "SAME_UPPER")}, 13, 1e-6});
  // Pads 2 over a kernel of 3 (more than half), 1-D: windows of 1 to 3 cells.
  check_op({"AveragePool", {f32({1, 1, 3}, {3, 6, 9})}, f32({1, 1, 5}, {3, 4.5f, 6, 7.5f, 9}),
            {attr_ints("kernel_shape", {3}), attr_ints("pads", {2, 2})}, 13, 1e-6});
}

TEST(ImportPool, GlobalPoolsAreReductions) {
  Tensor x = iota(DType::Float32, {1, 2, 2, 2});
  check_op({"GlobalAveragePool", {x}, f32({1, 2, 1, 1}, {1.5f, 5.5f})});
  check_op({"GlobalMaxPool", {x}, f32({1, 2, 1, 1}, {3, 7})});
  check_op({"GlobalAveragePool", {iota(DType::Float32, {1, 1, 4})}, f32({1, 1, 1}, {1.5f})});
}

TEST(ImportBatchNorm, InferenceForm) {
  OnnxModel m(15);
  m.input("x", DType::Float32, {2, 3, 4})
      .initializer("scale", f32({3}, {1, 2, 3})).initializer("bias", f32({3}, {0, 1, 0}))
      .initializer("mean", f32({3}, {0.5f, 0, -1})).initializer("var", f32({3}, {1, 4, 9}))
      .node("BatchNormalization", {"x", "scale", "bias", "mean", "var"}, {"y"}, {attr_f("epsilon", 1e-3f)})
      .output("y", DType::Float32, {2, 3, 4});
  // stax's argument order: x, running_mean, running_var, weight, bias.
  EXPECT_EQ(node_named(document(import_model(m)), "y"), json::parse(R"({"name": "y", "op": "batch_norm",
      "args": ["x", "mean", "var", "scale", "bias"], "eps": 0.001})"));
  onnx::NodeProto* bn = m.proto.mutable_graph()->mutable_node(0);
  bn->add_attribute()->CopyFrom(attr_i("training_mode", 1));
  bn->add_output("running_mean");
  bn->add_output("running_var");
  EXPECT_IMPORT_ERROR(m, "training_mode = 1 is not supported");
}

// InstanceNormalization (PyTorch's InstanceNorm and GroupNorm): each (image, channel) normalized
// over its spatial dims with the biased variance, then scale and B per channel.
TEST(ImportInstanceNorm, PerImageAndChannel) {
  Tensor x = iota(DType::Float32, {2, 3, 4}, -3, 0.7), scale = f32({3}, {1, 2, -0.5f}), bias = f32({3}, {0, 1, 3});
  Tensor want(DType::Float32, {2, 3, 4});
  for (int64_t nc = 0; nc < 6; ++nc) {
    double mean = 0, var = 0;
    for (int64_t i = 0; i < 4; ++i) mean += x.get_double(nc * 4 + i) / 4;
    for (int64_t i = 0; i < 4; ++i) var += (x.get_double(nc * 4 + i) - mean) * (x.get_double(nc * 4 + i) - mean) / 4;
    for (int64_t i = 0; i < 4; ++i)
      want.set_double(nc * 4 + i, (x.get_double(nc * 4 + i) - mean) / std::sqrt(var + 1e-3) * scale.get_double(nc % 3) +
                                      bias.get_double(nc % 3));
  }
  check_op({"InstanceNormalization", {x, scale, bias}, want, {attr_f("epsilon", 1e-3f)}, 13, 1e-5});
  Tensor x4 = iota(DType::Float32, {1, 2, 2, 3}, 1, 0.25);
  Tensor want4(DType::Float32, {1, 2, 2, 3});
  for (int64_t c = 0; c < 2; ++c)
    for (int64_t i = 0; i < 6; ++i)  // each channel: 6 values a step of 0.25 apart, variance 35/12 steps^2
      want4.set_double(c * 6 + i, (i - 2.5) * 0.25 / std::sqrt(35.0 / 12 * 0.0625 + 1e-5));
  check_op({"InstanceNormalization", {x4, f32({2}, {1, 1}), f32({2}, {0, 0})}, want4, {}, 13, 1e-5});
  EXPECT_IMPORT_ERROR(single_node({"InstanceNormalization", {x, f32({2}, {1, 1}), bias}, x}, false), "is not [C] = [3]");
}

}  // namespace
}  // namespace stax::testing
