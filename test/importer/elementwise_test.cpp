// Elementwise ops: each mapping against hand-computed values, at run time and folded.
#include <cmath>

#include "op_check.h"

namespace stax::testing {
namespace {

float sigmoid(float x) { return static_cast<float>(1.0 / (1.0 + std::exp(-static_cast<double>(x)))); }

TEST(ImportElementwise, UnaryFloat) {
  Tensor x = f32({2, 2}, {-1.5f, 0.0f, 0.25f, 4.0f});
  check_op({"Abs", {x}, f32({2, 2}, {1.5f, 0, 0.25f, 4})});
  check_op({"Neg", {x}, f32({2, 2}, {1.5f, -0.0f, -0.25f, -4})});
  check_op({"Relu", {x}, f32({2, 2}, {0, 0, 0.25f, 4})});
  check_op({"Sign", {x}, f32({2, 2}, {-1, 0, 1, 1})});
  check_op({"Floor", {x}, f32({2, 2}, {-2, 0, 0, 4})});
  check_op({"Ceil", {x}, f32({2, 2}, {-1, 0, 1, 4})});
  check_op({"Sigmoid", {x}, f32({2, 2}, {sigmoid(-1.5f), 0.5f, sigmoid(0.25f), sigmoid(4)}), {}, 13, 1e-7});
  check_op({"Tanh", {x}, f32({2, 2}, {std::tanh(-1.5f), 0, std::tanh(0.25f), std::tanh(4.0f)}), {}, 13, 1e-7});
  check_op({"Erf", {x}, f32({2, 2}, {std::erf(-1.5f), 0, std::erf(0.25f), std::erf(4.0f)}), {}, 13, 1e-7});
  check_op({"Exp", {x}, f32({2, 2}, {std::exp(-1.5f), 1, std::exp(0.25f), std::exp(4.0f)}), {}, 13, 1e-7});
  Tensor pos = f32({3}, {0.25f, 1.0f, 16.0f});
  check_op({"Sqrt", {pos}, f32({3}, {0.5f, 1, 4})});
  check_op({"Log", {pos}, f32({3}, {std::log(0.25f), 0, std::log(16.0f)}), {}, 13, 1e-7});
  check_op({"Reciprocal", {pos}, f32({3}, {4, 1, 0.0625f})});
  // Round is half to even in ONNX and in PyTorch.
  check_op({"Round", {f32({4}, {0.5f, 1.5f, 2.5f, -0.5f})}, f32({4}, {0, 2, 2, -0.0f})});
  check_op({"Sin", {x}, f32({2, 2}, {std::sin(-1.5f), 0, std::sin(0.25f), std::sin(4.0f)}), {}, 13, 1e-7});
  check_op({"Atan", {x}, f32({2, 2}, {std::atan(-1.5f), 0, std::atan(0.25f), std::atan(4.0f)}), {}, 13, 1e-7});
}

TEST(ImportElementwise, UnaryIntAndBool) {
  Tensor x = i32({3}, {-3, 0, 5});
  check_op({"Abs", {x}, i32({3}, {3, 0, 5})});
  check_op({"Neg", {x}, i32({3}, {3, 0, -5})});
  check_op({"Relu", {x}, i32({3}, {0, 0, 5}), {}, 14});
  check_op({"Sign", {i64({3}, {-3, 0, 5})}, i64({3}, {-1, 0, 1})});
  check_op({"Not", {boolean({2}, {true, false})}, boolean({2}, {false, true})});
  Tensor special = f32({3}, {NAN, INFINITY, -INFINITY});
  check_op({"IsNaN", {special}, boolean({3}, {true, false, false})});
  check_op({"IsInf", {special}, boolean({3}, {false, true, true})});
  check_op({"IsInf", {special}, boolean({3}, {false, false, true}), {attr_i("detect_positive", 0)}});
  check_op({"IsInf", {special}, boolean({3}, {false, true, false}), {attr_i("detect_negative", 0)}});
}

TEST(ImportElementwise, Activations) {
  Tensor x = f32({4}, {-2.0f, -0.5f, 0.5f, 4.0f});
  check_op({"LeakyRelu", {x}, f32({4}, {-0.2f, -0.05f, 0.5f, 4}), {attr_f("alpha", 0.1f)}});
  check_op({"LeakyRelu", {x}, f32({4}, {-0.02f, -0.005f, 0.5f, 4})});
  // HardSigmoid's defaults (alpha 0.2, beta 0.5) are not PyTorch's hardsigmoid: a clamp.
  check_op({"HardSigmoid", {x}, f32({4}, {0.1f, 0.4f, 0.6f, 1}), {}, 13, 1e-6});
  check_op({"HardSigmoid", {x}, f32({4}, {0, 0, 1, 1}), {attr_f("alpha", 2.0f), attr_f("beta", 1.0f)}});
  check_op({"Softsign", {x}, f32({4}, {-2.0f / 3, -0.5f / 1.5f, 0.5f / 1.5f, 0.8f}), {}, 13, 1e-6});
  check_op({"PRelu", {x, f32({1}, {0.25f})}, f32({4}, {-0.5f, -0.125f, 0.5f, 4})});
  // Selu with ONNX's defaults (PyTorch's constants in float32), Celu, ThresholdedRelu.
  const double a = 1.67326319217681884765625, g = 1.05070102214813232421875;
  Tensor selu(DType::Float32, {4}), selu2(DType::Float32, {4}), celu(DType::Float32, {4});
  for (int64_t i = 0; i < 4; ++i) {
    double v = x.get_double(i);
    selu.set_double(i, v > 0 ? g * v : g * a * std::expm1(v));
    selu2.set_double(i, v > 0 ? 2 * v : 2 * 0.5 * std::expm1(v));
    celu.set_double(i, v > 0 ? v : 2 * std::expm1(v / 2));
  }
  check_op({"Selu", {x}, selu, {}, 13, 1e-6});
  check_op({"Selu", {x}, selu2, {attr_f("alpha", 0.5f), attr_f("gamma", 2.0f)}, 13, 1e-6});
  check_op({"Celu", {x}, celu, {attr_f("alpha", 2.0f)}, 13, 1e-6});
  check_op({"ThresholdedRelu", {x}, f32({4}, {0, 0, 0, 4})});
  check_op({"ThresholdedRelu", {x}, f32({4}, {0, 0, 0.5f, 4}), {attr_f("alpha", 0.25f)}});
  EXPECT_IMPORT_ERROR(single_node({"Celu", {x}, x, {attr_f("alpha", 0.0f)}}, false), "alpha must not be 0");
}

// Ops the graph format has but the front end may not take yet: the document is checked.
TEST(ImportElementwise, ActivationsOfTheNewOps) {
  OnnxModel m(14);
  m.input("x", DType::Float32, {4})
      .node("HardSigmoid", {"x"}, {"hs"}, {attr_f("alpha", 1.0f / 6), attr_f("beta", 0.5f)})
      .node("HardSwish", {"hs"}, {"hw"}, {}, "hswish")
      .node("Softplus", {"hw"}, {"sp"})
      .node("Elu", {"sp"}, {"y"}, {attr_f("alpha", 0.5f)})
      .output("y", DType::Float32);
  nlohmann::json doc = document(import_model(m));
  EXPECT_EQ(node_named(doc, "hs"), nlohmann::json::parse(R"({"name": "hs", "op": "hardsigmoid", "args": ["x"]})"));
  EXPECT_EQ(node_named(doc, "hw"), nlohmann::json::parse(R"({"name": "hw", "op": "hardswish", "args": ["hs"]})"));
  EXPECT_EQ(node_named(doc, "sp"), nlohmann::json::parse(R"({"name": "sp", "op": "softplus", "args": ["hw"]})"));
  EXPECT_EQ(node_named(doc, "y"), nlohmann::json::parse(R"({"name": "y", "op": "elu", "args": ["sp"], "alpha": 0.5})"));
}

TEST(ImportElementwise, BinaryArithmetic) {
  Tensor a = f32({2, 3}, {1, 2, 3, 4, 5, 6});
  Tensor b = f32({3}, {0.5f, -1, 2});
  check_op({"Add", {a, b}, f32({2, 3}, {1.5f, 1, 5, 4.5f, 4, 8})});
  check_op({"Sub", {a, b}, f32({2, 3}, {0.5f, 3, 1, 3.5f, 6, 4})});
  check_op({"Mul", {a, b}, f32({2, 3}, {0.5f, -2, 6, 2, -5, 12})});
  check_op({"Div", {a, b}, f32({2, 3}, {2, -2, 1.5f, 8, -5, 3})});
  // Integer Div truncates toward zero (C), not floor (Python).
  check_op({"Div", {i64({4}, {-7, 7, -7, 7}), i64({4}, {2, 2, -2, -2})}, i64({4}, {-3, 3, 3, -3})});
  check_op({"Div", {i32({2}, {-1, 9}), i32({1}, {4})}, i32({2}, {0, 2})});
}

TEST(ImportElementwise, ModBothSigns) {
  Tensor a = i64({4}, {-7, 7, -7, 7}), b = i64({4}, {2, 2, -2, -2});
  check_op({"Mod", {a, b}, i64({4}, {1, 1, -1, -1})});                              // divisor's sign
  check_op({"Mod", {a, b}, i64({4}, {-1, 1, -1, 1}), {attr_i("fmod", 1)}});          // dividend's sign
  EXPECT_IMPORT_ERROR(single_node({"Mod", {f32({1}, {1}), f32({1}, {2})}, f32({1}, {1}), {attr_i("fmod", 1)}}, false),
                      "Mod of floats");
}

TEST(ImportElementwise, PowMixedTypes) {
  check_op({"Pow", {f32({3}, {2, 3, -2}), i64({3}, {3, 2, 3})}, f32({3}, {8, 9, -8})});
  check_op({"Pow", {f32({2}, {4, 9}), f32({}, {0.5f})}, f32({2}, {2, 3})});
  // An int base with a float exponent: computed in float, truncated back to the base's type.
  check_op({"Pow", {i32({3}, {2, 3, 10}), f32({1}, {0.5f})}, i32({3}, {1, 1, 3})});
  check_op({"Pow", {i64({3}, {2, -3, 0}), i64({3}, {10, 3, 0})}, i64({3}, {1024, -27, 1})});
}

TEST(ImportElementwise, ComparisonsAndLogic) {
  Tensor a = i64({3}, {1, 2, 3}), b = i64({1}, {2});
  check_op({"Equal", {a, b}, boolean({3}, {false, true, false})});
  check_op({"Less", {a, b}, boolean({3}, {true, false, false})});
  check_op({"Greater", {a, b}, boolean({3}, {false, false, true})});
  check_op({"LessOrEqual", {a, b}, boolean({3}, {true, true, false})});
  check_op({"GreaterOrEqual", {a, b}, boolean({3}, {false, true, true})});
  check_op({"Less", {f32({2}, {NAN, 1}), f32({2}, {1, NAN})}, boolean({2}, {false, false})});
  Tensor p = boolean({4}, {false, false, true, true}), q = boolean({4}, {false, true, false, true});
  check_op({"And", {p, q}, boolean({4}, {false, false, false, true})});
  check_op({"Or", {p, q}, boolean({4}, {false, true, true, true})});
  check_op({"Xor", {p, q}, boolean({4}, {false, true, true, false})});
}

TEST(ImportElementwise, WhereBroadcasts) {
  check_op({"Where", {boolean({2, 1}, {true, false}), f32({3}, {1, 2, 3}), f32({}, {-1})},
            f32({2, 3}, {1, 2, 3, -1, -1, -1})});
  check_op({"Where", {boolean({3}, {true, false, true}), i64({3}, {1, 2, 3}), i64({3}, {7, 8, 9})}, i64({3}, {1, 8, 3})});
}

TEST(ImportElementwise, CastRoundsTowardZero) {
  Tensor x = f32({4}, {-1.75f, -0.5f, 2.5f, 3.99f});
  check_op({"Cast", {x}, i32({4}, {-1, 0, 2, 3}), {attr_i("to", onnx::TensorProto_DataType_INT32)}});
  check_op({"Cast", {x}, boolean({4}, {true, true, true, true}), {attr_i("to", onnx::TensorProto_DataType_BOOL)}});
  check_op({"Cast", {i64({2}, {0, 3})}, f64({2}, {0, 3}), {attr_i("to", onnx::TensorProto_DataType_DOUBLE)}});
  check_op({"Cast", {boolean({2}, {true, false})}, f32({2}, {1, 0}), {attr_i("to", onnx::TensorProto_DataType_FLOAT)}});
  check_op({"CastLike", {i32({2}, {1, -2}), f64({1}, {0})}, f64({2}, {1, -2}), {}, 15});
  // A cast to the same type is the input itself.
  check_op({"Cast", {x}, x, {attr_i("to", onnx::TensorProto_DataType_FLOAT)}});
  OnnxModel half;
  half.input("x", DType::Float32, {4}).node("Cast", {"x"}, {"y"}, {attr_i("to", onnx::TensorProto_DataType_FLOAT16)}, "c");
  half.proto.mutable_graph()->add_output()->CopyFrom(half.proto.graph().input(0));
  half.proto.mutable_graph()->mutable_output(0)->set_name("y");
  half.proto.mutable_graph()->mutable_output(0)->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto_DataType_FLOAT16);
  EXPECT_IMPORT_ERROR(half, "graph.node[0] (node 'c', op 'Cast'): a cast to float16 is not supported");
}

TEST(ImportElementwise, ClipForms) {
  Tensor x = f32({4}, {-2, -0.5f, 0.5f, 3});
  check_op({"Clip", {x, f32({}, {-1}), f32({}, {1})}, f32({4}, {-1, -0.5f, 0.5f, 1})});
  // Without bounds Clip is the identity; min > max gives max everywhere, as in PyTorch.
  check_op({"Clip", {x}, x});
  check_op({"Clip", {x, f32({}, {1}), f32({}, {0})}, f32({4}, {0, 0, 0, 0})});
  check_op({"Clip", {i64({3}, {-5, 0, 5}), i64({}, {-2}), i64({}, {3})}, i64({3}, {-2, 0, 3})});
  // One bound only: the other input is empty.
  OnnxModel m;
  m.input("x", DType::Float32, {4}).initializer("hi", f32({}, {0.0f}))
      .node("Clip", {"x", "", "hi"}, {"y"}).output("y", DType::Float32);
  EXPECT_TRUE(same_tensor(run_model(m, {x})[0], f32({4}, {-2, -0.5f, 0, 0})));
  EXPECT_EQ(node_named(document(import_model(m)), "y")["max"], 0.0);
  // Bounds computed at run time: maximum and minimum.
  OnnxModel r;
  r.input("x", DType::Float32, {4}).input("lo", DType::Float32, {})
      .node("Clip", {"x", "lo"}, {"y"}).output("y", DType::Float32);
  EXPECT_TRUE(same_tensor(run_model(r, {x, f32({}, {0.0f})})[0], f32({4}, {0, 0, 0.5f, 3})));
}

TEST(ImportElementwise, VariadicOps) {
  Tensor a = f32({2, 2}, {1, 5, 3, 7}), b = f32({2}, {4, 4}), c = f32({}, {6});
  check_op({"Max", {a, b, c}, f32({2, 2}, {6, 6, 6, 7})});
  check_op({"Min", {a, b, c}, f32({2, 2}, {1, 4, 3, 4})});
  check_op({"Sum", {a, b, c}, f32({2, 2}, {11, 15, 13, 17})});
  check_op({"Mean", {a, b}, f32({2, 2}, {2.5f, 4.5f, 3.5f, 5.5f})});
  check_op({"Max", {a}, a});
  check_op({"Max", {f32({2}, {NAN, 1}), f32({2}, {0, 2})}, f32({2}, {NAN, 2})});
}

// An int subexpression of initializers is computed at import; no node computes it.
TEST(ImportElementwise, IntegerConstantsFold) {
  OnnxModel m;
  m.initializer("a", i64({2}, {3, 4})).initializer("b", i64({2}, {10, 20}))
      .node("Mul", {"a", "b"}, {"y"}).output("y", DType::Int64);
  nlohmann::json doc = document(import_model(m));
  EXPECT_TRUE(doc["nodes"].empty()) << doc.dump();
  EXPECT_EQ(doc["constants"][0], nlohmann::json::parse(R"({"name": "y", "dtype": "int64", "shape": [2], "data": [30, 80]})"));
  // An integer division by zero at import is an error naming the node.
  OnnxModel z;
  z.initializer("a", i64({1}, {3})).initializer("b", i64({1}, {0})).node("Div", {"a", "b"}, {"y"}, {}, "div0").output("y", DType::Int64);
  EXPECT_IMPORT_ERROR(z, "graph.node[0] (node 'div0', op 'Div'): cannot compute at import: an integer division by zero");
}

}  // namespace
}  // namespace stax::testing
