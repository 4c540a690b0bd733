// The model as a whole: what is refused (unsupported ops, domains and opsets, corrupt files,
// symbolic dims, element types), external data, the weights file's layout, value and graph
// names, input shapes, determinism.
#include <unistd.h>

#include <cstring>
#include <fstream>

#include "import_util.h"

namespace stax::testing {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

OnnxModel relu_model(int opset = 13) {
  OnnxModel m(opset);
  m.input("x", DType::Float32, {2, 3}).node("Relu", {"x"}, {"y"}).output("y", DType::Float32);
  return m;
}

std::string user_error(const std::function<void()>& f) {
  try {
    f();
  } catch (const GraphError& e) {
    ADD_FAILURE() << "a GraphError, not a UserError: " << e.what();
  } catch (const UserError& e) {
    return e.what();
  }
  ADD_FAILURE() << "no error";
  return "";
}

// A fresh folder per test, removed afterwards.
class ImportFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("stax_import_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  void write(const std::string& name, const std::string& bytes) const {
    std::ofstream(dir_ / name, std::ios::binary) << bytes;
  }
  fs::path dir_;
};

TEST(ImportModel, UnsupportedOpsAndDomains) {
  OnnxModel m;
  m.input("x", DType::Float32, {4}).node("NonZero", {"x"}, {"y"}, {}, "nz").output("y", DType::Int64, {1, "n"});
  EXPECT_IMPORT_ERROR(m, "graph.node[0] (node 'nz', op 'NonZero'): op 'NonZero' is not supported by the importer");
  OnnxModel d;
  d.input("x", DType::Float32, {4}).node("Gelu", {"x"}, {"y"}, {}, "g").output("y", DType::Float32, {4});
  d.proto.mutable_graph()->mutable_node(0)->set_domain("com.microsoft");
  EXPECT_IMPORT_ERROR(d, "graph.node[0] (node 'g', op 'Gelu'): op of domain 'com.microsoft' is not supported");
}

TEST(ImportModel, OpsetsOutsideElevenToSeventeen) {
  EXPECT_IMPORT_ERROR(relu_model(10), "model: opset 10 is not supported (opsets 11 to 17 are");
  EXPECT_IMPORT_ERROR(relu_model(18), "opset 18 is not supported");
  OnnxModel none = relu_model();
  none.proto.mutable_opset_import(0)->set_domain("ai.onnx.ml");
  EXPECT_IMPORT_ERROR(none, "imports no opset of the default ONNX domain");
  for (int opset = 11; opset <= 17; ++opset) EXPECT_NO_THROW(import_model(relu_model(opset))) << opset;
}

TEST(ImportModel, CorruptFiles) {
  std::string bytes = relu_model().bytes();
  auto error_of = [](const std::string& b) {
    try {
      importer::import_onnx_bytes(b, ".", "m");
    } catch (const GraphError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  for (std::size_t cut : {bytes.size() - 1, bytes.size() / 2, std::size_t{7}})
    EXPECT_NE(error_of(bytes.substr(0, cut)).find("not a valid ONNX model: the file is truncated or corrupt"), std::string::npos) << cut;
  EXPECT_NE(error_of("").find("not an ONNX model: it has no ir_version"), std::string::npos);
  EXPECT_NE(error_of("{\"format\": \"stax-graph\"}").find("not a valid ONNX model"), std::string::npos);
  OnnxModel bad;
  bad.input("x", DType::Float32, {2, 3}).node("Relu", {"nowhere"}, {"y"}).output("y", DType::Float32, {2, 3});
  EXPECT_IMPORT_ERROR(bad, "invalid ONNX model: Nodes in a graph must be topologically sorted");
}

TEST(ImportModel, SymbolicDimsNeedInputShapes) {
  OnnxModel m;
  m.input("x", DType::Float32, {"batch", 3}).node("Relu", {"x"}, {"y"}).output("y", DType::Float32);
  EXPECT_IMPORT_ERROR(m, "graph.input[0] (node 'x'): dim 0 ('batch') is symbolic: fix it with --input-shape x=DIMS");
  importer::ImportOptions opts;
  opts.input_shapes["x"] = {5, 3};
  json doc = document(import_model(m, opts));
  EXPECT_EQ(doc["inputs"][0], json::parse(R"({"name": "x", "dtype": "float32", "shape": [5, 3]})"));
  opts.input_shapes["x"] = {5, 4};
  EXPECT_NE(user_error([&] { import_model(m, opts); }).find("--input-shape x gives dim 1 as 4; the model fixes it to 3"), std::string::npos);
  opts.input_shapes["x"] = {5};
  EXPECT_NE(user_error([&] { import_model(m, opts); }).find("--input-shape x has 1 dims; the model's input has 2"), std::string::npos);
  opts.input_shapes = {{"z", {1}}};
  EXPECT_NE(user_error([&] { import_model(m, opts); }).find("names 'z', which is not an input of the model (inputs: x)"), std::string::npos);
  // An unknown dim (no value, no name).
  OnnxModel u;
  u.input("x", DType::Float32, {2}).node("Relu", {"x"}, {"y"}).output("y", DType::Float32, {2});
  u.proto.mutable_graph()->mutable_input(0)->mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim(0)->clear_dim_value();
  EXPECT_IMPORT_ERROR(u, "dim 0 (unknown) is symbolic");
}

TEST(ImportModel, ElementTypes) {
  OnnxModel m;
  m.input("x", DType::Float32, {2}).node("Relu", {"x"}, {"y"}).output("y", DType::Float32);
  m.proto.mutable_graph()->mutable_input(0)->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto_DataType_UINT8);
  m.proto.mutable_graph()->mutable_output(0)->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto_DataType_UINT8);
  EXPECT_IMPORT_ERROR(m, "graph.input[0] (node 'x'): input of element type uint8 is not supported");
  OnnxModel h;
  onnx::TensorProto half;
  half.set_name("w");
  half.set_data_type(onnx::TensorProto_DataType_FLOAT16);
  half.add_dims(1);
  half.set_raw_data(std::string(2, '\0'));
  *h.proto.mutable_graph()->add_initializer() = half;
  h.node("Cast", {"w"}, {"y"}, {attr_i("to", onnx::TensorProto_DataType_FLOAT)}).output("y", DType::Float32);
  EXPECT_IMPORT_ERROR(h, "graph.initializer[0]: initializer 'w': element type float16 is not supported");
}

// Constants of more than 16 elements live in the weights file, little-endian and row-major, at
// 64-byte aligned offsets; smaller ones are inline, uniform ones a fill.
TEST(ImportModel, WeightsFileLayout) {
  Tensor w1 = iota(DType::Float32, {3, 7}, 0.5), w2 = iota(DType::Int64, {20}, -3);
  OnnxModel m;
  m.input("x", DType::Float32, {3, 7}).input("i", DType::Int64, {20})
      .initializer("w1", w1).initializer("w2", w2, /*raw=*/false)
      .initializer("small", f32({2}, {1.5f, -2})).initializer("same", f32({2}, {1.5f, -2}))
      .initializer("zeros", f32({3, 7}, std::vector<float>(21, 0.0f)))
      .node("Add", {"x", "w1"}, {"a"}).node("Add", {"a", "zeros"}, {"b"})
      .node("Mul", {"i", "w2"}, {"c"})
      .node("Concat", {"small", "same"}, {"d"}, {attr_i("axis", 0)})
      .output("b", DType::Float32).output("c", DType::Int64).output("d", DType::Float32);
  importer::ImportOptions opts;
  opts.weights_file = "weights.bin";
  importer::ImportedModel im = import_model(m, opts);
  json doc = document(im);
  EXPECT_EQ(doc["constants"][0], json::parse(R"({"name": "w1", "dtype": "float32", "shape": [3, 7], "file": "weights.bin", "offset": 0})"));
  EXPECT_EQ(doc["constants"][1], json::parse(R"({"name": "zeros", "dtype": "float32", "shape": [3, 7], "fill": 0.0})"));
  EXPECT_EQ(doc["constants"][2], json::parse(R"({"name": "w2", "dtype": "int64", "shape": [20], "file": "weights.bin", "offset": 128})"));
  // d, computed from two small initializers, is small and float: folded, written inline.
  EXPECT_EQ(doc["constants"][3], json::parse(R"({"name": "d", "dtype": "float32", "shape": [4], "data": [1.5, -2.0, 1.5, -2.0]})"));
  ASSERT_EQ(im.weights.size(), 128u + 160u);
  EXPECT_EQ(std::memcmp(im.weights.data(), w1.data(), w1.nbytes()), 0);
  EXPECT_EQ(im.weights.substr(84, 44), std::string(44, '\0'));
  EXPECT_EQ(std::memcmp(im.weights.data() + 128, w2.data(), w2.nbytes()), 0);
  std::vector<Tensor> out = run_model(m, {iota(DType::Float32, {3, 7}), iota(DType::Int64, {20})}, opts);
  EXPECT_TRUE(same_tensor(out[0], iota(DType::Float32, {3, 7}, 0.5, 2)));
  EXPECT_EQ(out[1].get_int(19), 19 * 16);
}

TEST(ImportModel, SmallConstantsWrittenOnce) {
  OnnxModel m;
  m.input("x", DType::Float32, {2})
      .node("Constant", {}, {"c1"}, {attr_t("value", f32({}, {2.0f}))})
      .node("Constant", {}, {"c2"}, {attr_t("value", f32({}, {2.0f}))})
      .node("Mul", {"x", "c1"}, {"a"}).node("Div", {"a", "c2"}, {"y"}).output("y", DType::Float32);
  json doc = document(import_model(m));
  ASSERT_EQ(doc["constants"].size(), 1u) << doc.dump();
  EXPECT_EQ(node_named(doc, "y")["args"], json::parse(R"(["a", "c1"])"));
}

TEST(ImportModel, NamesAreMadeValidAndUnique) {
  OnnxModel m;
  m.input("in:0", DType::Float32, {2})
      .node("Relu", {"in:0"}, {"/layer/act"}).node("Neg", {"/layer/act"}, {"_layer_act"})
      .node("Abs", {"_layer_act"}, {"nan"}).output("nan", DType::Float32);
  json doc = document(import_model(m));
  EXPECT_EQ(doc["inputs"][0]["name"], "in_0");
  EXPECT_EQ(doc["nodes"][0]["name"], "_layer_act");
  EXPECT_EQ(doc["nodes"][1]["name"], "_layer_act.1");
  EXPECT_EQ(doc["nodes"][2]["name"], "v_nan");
  EXPECT_EQ(doc["outputs"], json::parse(R"(["v_nan"])"));
  EXPECT_NO_THROW(graph_of(import_model(m)));
  auto name_of = [](const std::string& stem) {
    return json::parse(importer::import_onnx_bytes(relu_model().bytes(), ".", stem).json)["name"];
  };
  EXPECT_EQ(name_of("resnet-18"), "resnet_18");
  EXPECT_EQ(name_of("float"), "model_float");
  EXPECT_EQ(name_of("3d"), "model_3d");
  EXPECT_EQ(name_of("__"), "model");
}

// An initializer listed among the graph inputs (as IR versions before 4 required) is a constant;
// an output may be an input; weights in the typed fields read as raw ones.
TEST(ImportModel, InitializersAsInputsAndPassThrough) {
  OnnxModel m;
  m.input("x", DType::Float32, {2}).input("w", DType::Float32, {2})
      .initializer("w", f32({2}, {3, 4}), /*raw=*/false)
      .node("Mul", {"x", "w"}, {"y"}).output("y", DType::Float32).output("x", DType::Float32, {2});
  json doc = document(import_model(m));
  EXPECT_EQ(doc["inputs"].size(), 1u);
  EXPECT_EQ(doc["outputs"], json::parse(R"(["y", "x"])"));
  std::vector<Tensor> out = run_model(m, {f32({2}, {1, 2})});
  EXPECT_TRUE(same_tensor(out[0], f32({2}, {3, 8})));
  EXPECT_TRUE(same_tensor(out[1], f32({2}, {1, 2})));
}

TEST(ImportModel, Deterministic) {
  OnnxModel m;
  m.input("x", DType::Float32, {4, 5}).initializer("w", iota(DType::Float32, {5, 6}))
      .node("MatMul", {"x", "w"}, {"y"}).output("y", DType::Float32);
  importer::ImportedModel a = import_model(m), b = import_model(m);
  EXPECT_EQ(a.json, b.json);
  EXPECT_EQ(a.weights, b.weights);
  EXPECT_EQ(a.json.back(), '\n');
}

TEST(ImportModel, ParseInputShape) {
  EXPECT_EQ(importer::parse_input_shape("x=1,3,224,224"), (std::pair<std::string, Shape>{"x", {1, 3, 224, 224}}));
  EXPECT_EQ(importer::parse_input_shape("a=b=7"), (std::pair<std::string, Shape>{"a=b", {7}}));
  EXPECT_EQ(importer::parse_input_shape("s="), (std::pair<std::string, Shape>{"s", {}}));
  for (const char* bad : {"x", "=1", "x=0", "x=1,,2", "x=1,", "x=-1", "x=a", "x=99999999999999999999"})
    EXPECT_THROW(importer::parse_input_shape(bad), UserError) << bad;
  EXPECT_TRUE(importer::is_onnx_path("dir/m.ONNX"));
  EXPECT_FALSE(importer::is_onnx_path("m.json"));
}

// External data: read from the model's folder at its offset; a missing file is an I/O error, a
// location outside the folder or data past the end of the file an invalid model.
TEST_F(ImportFiles, ExternalData) {
  Tensor w = iota(DType::Float32, {4, 5});
  write("w.bin", std::string(12, 'x') + std::string(reinterpret_cast<const char*>(w.data()), w.nbytes()));
  OnnxModel m;
  m.input("x", DType::Float32, {4, 5}).initializer("w", f32({4, 5}, {}))
      .node("Add", {"x", "w"}, {"y"}).output("y", DType::Float32);
  onnx::TensorProto* t = m.proto.mutable_graph()->mutable_initializer(0);
  t->clear_raw_data();
  t->set_data_location(onnx::TensorProto_DataLocation_EXTERNAL);
  auto entry = [&](const std::string& k, const std::string& v) {
    onnx::StringStringEntryProto* e = t->add_external_data();
    e->set_key(k);
    e->set_value(v);
  };
  entry("location", "w.bin");
  entry("offset", "12");
  entry("length", "80");
  m.write(dir_ / "m.onnx");
  importer::ImportedModel im = importer::import_onnx(dir_ / "m.onnx");
  EXPECT_EQ(im.weights, std::string(reinterpret_cast<const char*>(w.data()), w.nbytes()));
  EXPECT_EQ(json::parse(im.json)["name"], "m");

  t->mutable_external_data(0)->set_value("gone.bin");
  m.write(dir_ / "m.onnx");
  EXPECT_NE(user_error([&] { importer::import_onnx(dir_ / "m.onnx"); }).find("gone.bin: no such file (the external data of initializer 'w')"),
            std::string::npos);
  t->mutable_external_data(0)->set_value("../w.bin");
  m.write(dir_ / "sub.onnx");
  fs::create_directories(dir_ / "sub");
  fs::copy_file(dir_ / "sub.onnx", dir_ / "sub" / "m.onnx");
  try {
    importer::import_onnx(dir_ / "sub" / "m.onnx");
    ADD_FAILURE() << "imported";
  } catch (const GraphError& e) {
    EXPECT_NE(std::string(e.what()).find("'../w.bin' is not a path inside the model's folder"), std::string::npos) << e.what();
  }
  t->mutable_external_data(0)->set_value("w.bin");
  t->mutable_external_data(1)->set_value("40");
  t->mutable_external_data(2)->set_value("80");
  m.write(dir_ / "m.onnx");
  try {
    importer::import_onnx(dir_ / "m.onnx");
    ADD_FAILURE() << "imported";
  } catch (const GraphError& e) {
    EXPECT_NE(std::string(e.what()).find("external data 'w.bin' has 92 bytes; 80 are needed from offset 40"), std::string::npos) << e.what();
  }
}

TEST_F(ImportFiles, MissingOrUnreadableModel) {
  EXPECT_NE(user_error([&] { importer::import_onnx(dir_ / "none.onnx"); }).find("none.onnx: no such file"), std::string::npos);
  EXPECT_NE(user_error([&] { importer::import_onnx(dir_); }).find("not a regular file"), std::string::npos);
}

}  // namespace
}  // namespace stax::testing
