// ONNX models on the command line: `staxc import`, and every command taking a .onnx model
// directly; exit statuses, messages, and nothing written when a command fails.
#include <algorithm>
#include <cmath>
#include <fstream>
#include <string>
#include <vector>

#include "cli_fixture.h"
#include "onnx_builder.h"
#include "stax/support/npy.h"

namespace stax::testing {
namespace {

namespace fs = std::filesystem;

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// y = relu(x @ w + b) with w [4, 20] and b [20] (in the weights file), x [batch, 4].
OnnxModel mlp(const Dim& batch = int64_t{2}) {
  OnnxModel m;
  m.input("x", DType::Float32, {batch, 4})
      .initializer("w", iota(DType::Float32, {4, 20}, -1, 0.125))
      .initializer("b", iota(DType::Float32, {20}, 0.5, -0.25))
      .node("MatMul", {"x", "w"}, {"h"}).node("Add", {"h", "b"}, {"a"}).node("Relu", {"a"}, {"y"})
      .output("y", DType::Float32);
  return m;
}

// The expected y for x = 0, 1, 2, ... as [2, 4].
Tensor mlp_expected() {
  Tensor y(DType::Float32, {2, 20});
  for (int64_t i = 0; i < 2; ++i)
    for (int64_t j = 0; j < 20; ++j) {
      double s = 0.5 - 0.25 * static_cast<double>(j);
      for (int64_t k = 0; k < 4; ++k) s += static_cast<double>(i * 4 + k) * (-1 + 0.125 * static_cast<double>(k * 20 + j));
      y.set_double(i * 20 + j, s > 0 ? s : 0);
    }
  return y;
}

TEST_F(StaxcTest, ImportWritesTheGraphAndItsWeights) {
  mlp().write(dir_ / "mlp.onnx");
  fs::create_directories(dir_ / "out");
  ProcessResult r = staxc({"import", path("mlp.onnx"), "-o", path("out/mlp.json")});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "out/mlp.weights (400 bytes)")) << r.out;
  std::string json = slurp(dir_ / "out/mlp.json");
  EXPECT_TRUE(contains(json, R"({"name": "w", "dtype": "float32", "shape": [4, 20], "file": "mlp.weights", "offset": 0})")) << json;
  EXPECT_TRUE(contains(json, R"({"name": "b", "dtype": "float32", "shape": [20], "file": "mlp.weights", "offset": 320})")) << json;
  EXPECT_EQ(fs::file_size(dir_ / "out/mlp.weights"), 400u);
  write_npy(dir_ / "x.npy", iota(DType::Float32, {2, 4}));
  ProcessResult run = staxc({"interpret", path("out/mlp.json"), "--input", "x=" + path("x.npy"), "--output-dir", path("res")});
  ASSERT_EQ(run.status, 0) << run.err;
  Tensor y = read_npy(dir_ / "res/y.npy");
  Tensor want = mlp_expected();
  for (int64_t i = 0; i < 40; ++i) EXPECT_NEAR(y.get_double(i), want.get_double(i), 1e-5) << i;
}

// --weights elsewhere: the graph names it by its path relative to the graph's folder.
TEST_F(StaxcTest, ImportWeightsElsewhere) {
  mlp().write(dir_ / "mlp.onnx");
  fs::create_directories(dir_ / "g");
  fs::create_directories(dir_ / "w");
  ProcessResult r = staxc({"import", path("mlp.onnx"), "-o", path("g/m.json"), "--weights", path("w/m.bin")});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(contains(slurp(dir_ / "g/m.json"), R"("file": "../w/m.bin")"));
  // Outside the document's folder: read only when allowed (docs/cli.md).
  EXPECT_EQ(staxc({"validate", path("g/m.json")}).status, 2);
  EXPECT_EQ(staxc({"validate", path("g/m.json"), "--allow-outside-files"}).status, 0);
}

// Every command takes the .onnx itself, imported in memory; nothing but their own files written.
TEST_F(StaxcTest, CommandsTakeOnnxModels) {
  mlp("batch").write(dir_ / "mlp.onnx");
  ProcessResult v = staxc({"validate", path("mlp.onnx"), "--input-shape", "x=2,4"});
  ASSERT_EQ(v.status, 0) << v.err;
  EXPECT_TRUE(contains(v.out, "graph mlp\n")) << v.out;
  EXPECT_TRUE(contains(v.out, "y: float32[2, 20] = relu(a)")) << v.out;
  write_npy(dir_ / "x.npy", iota(DType::Float32, {2, 4}));
  ProcessResult i = staxc({"interpret", path("mlp.onnx"), "--input-shape=x=2,4", "--input", "x=" + path("x.npy"),
                           "--output-dir", path("res")});
  ASSERT_EQ(i.status, 0) << i.err;
  EXPECT_NEAR(read_npy(dir_ / "res/y.npy").get_double(39), mlp_expected().get_double(39), 1e-5);
  ProcessResult c = staxc({path("mlp.onnx"), "-o", path("mlp.cpp"), "--input-shape", "x=3,4"});
  ASSERT_EQ(c.status, 0) << c.err;
  EXPECT_TRUE(contains(slurp(dir_ / "mlp.cpp"), "mlp_run")) << "the graph is named after the file";
  std::vector<std::string> files;
  for (const auto& e : fs::directory_iterator(dir_))
    if (e.is_regular_file()) files.push_back(e.path().filename().string());
  std::sort(files.begin(), files.end());
  EXPECT_EQ(files, (std::vector<std::string>{"mlp.cpp", "mlp.onnx", "x.npy"})) << "no weights file written";
  ProcessResult check = staxc({"check", path("mlp.onnx"), "--input-shape", "x=5,4"});
  EXPECT_EQ(check.status, 0) << check.err << check.out;
}

// A small CNN as torch.onnx.export writes one: Conv, BatchNormalization, Relu, MaxPool, a
// depthwise Conv, GlobalAveragePool, Flatten, Gemm. The batch norm folds into the first
// convolution; the generated code matches the interpreter within the products' bound (K <= 72
// terms of magnitude below 2: well inside rtol 1e-4 and atol 1e-5).
OnnxModel tiny_cnn() {
  OnnxModel m;
  m.input("x", DType::Float32, {int64_t{2}, 3, 12, 12})
      .initializer("w1", iota(DType::Float32, {8, 3, 3, 3}, -0.9, 0.0085))
      .initializer("b1", iota(DType::Float32, {8}, -0.3, 0.07))
      .initializer("scale", iota(DType::Float32, {8}, 0.6, 0.1))
      .initializer("shift", iota(DType::Float32, {8}, -0.2, 0.05))
      .initializer("mean", iota(DType::Float32, {8}, 0.1, -0.03))
      .initializer("var", iota(DType::Float32, {8}, 0.5, 0.2))
      .initializer("w2", iota(DType::Float32, {8, 1, 3, 3}, 0.4, -0.011))
      .initializer("wf", iota(DType::Float32, {10, 8}, -0.5, 0.0125))
      .initializer("bf", iota(DType::Float32, {10}, 0.2, -0.04))
      .node("Conv", {"x", "w1", "b1"}, {"c1"}, {attr_ints("pads", {1, 1, 1, 1})}, "/conv1/Conv")
      .node("BatchNormalization", {"c1", "scale", "shift", "mean", "var"}, {"n1"}, {}, "/bn1/BatchNormalization")
      .node("Relu", {"n1"}, {"r1"})
      .node("MaxPool", {"r1"}, {"p1"}, {attr_ints("kernel_shape", {2, 2}), attr_ints("strides", {2, 2})})
      .node("Conv", {"p1", "w2"}, {"c2"}, {attr_ints("pads", {1, 1, 1, 1}), attr_i("group", 8)}, "/dw/Conv")
      .node("Relu", {"c2"}, {"r2"})
      .node("GlobalAveragePool", {"r2"}, {"g"})
      .node("Flatten", {"g"}, {"f"})
      .node("Gemm", {"f", "wf", "bf"}, {"y"}, {attr_i("transB", 1)})
      .output("y", DType::Float32);
  return m;
}

TEST_F(StaxcTest, TinyCnnFromOnnxCompilesAndMatches) {
  tiny_cnn().write(dir_ / "cnn.onnx");
  ProcessResult c = staxc({path("cnn.onnx"), "-o", path("cnn.cpp"), "--dump-ir", path("cnn.ir")});
  ASSERT_EQ(c.status, 0) << c.err;
  const std::string code = slurp(dir_ / "cnn.cpp"), ir = slurp(dir_ / "cnn.ir");
  std::size_t convs = 0;
  for (std::size_t at = code.find("stax_rt::conv<float>("); at != std::string::npos; at = code.find("stax_rt::conv<float>(", at + 1))
    ++convs;
  EXPECT_EQ(convs, 2u);
  EXPECT_TRUE(contains(ir, "#folded_weight")) << ir;  // the batch norm is in the first convolution
  ProcessResult check = staxc({"check", path("cnn.onnx"), "--rtol", "1e-4", "--atol", "1e-5"});
  EXPECT_EQ(check.status, 0) << check.err << check.out;
}

TEST_F(StaxcTest, OnnxErrorsAndExitStatuses) {
  mlp("batch").write(dir_ / "sym.onnx");
  OnnxModel bad;
  bad.input("x", DType::Float32, {4}).node("NonZero", {"x"}, {"y"}, {}, "nz").output("y", DType::Int64, {1, "n"});
  bad.write(dir_ / "bad.onnx");
  std::string bytes = mlp().bytes();
  std::ofstream(dir_ / "cut.onnx", std::ios::binary) << bytes.substr(0, bytes.size() / 2);
  OnnxModel old = mlp();
  old.proto.mutable_opset_import(0)->set_version(9);
  old.write(dir_ / "old.onnx");
  struct Case {
    std::vector<std::string> args;
    int status;
    std::string message;
  };
  const std::vector<Case> cases = {
      {{"import", path("bad.onnx"), "-o", path("bad.json")}, 2,
       "graph.node[0] (node 'nz', op 'NonZero'): op 'NonZero' is not supported by the importer"},
      {{"validate", path("bad.onnx")}, 2, "op 'NonZero' is not supported"},
      {{"import", path("sym.onnx"), "-o", path("sym.json")}, 2,
       "graph.input[0] (node 'x'): dim 0 ('batch') is symbolic: fix it with --input-shape x=DIMS"},
      {{path("sym.onnx"), "-o", path("sym.cpp")}, 2, "dim 0 ('batch') is symbolic"},
      {{"import", path("cut.onnx"), "-o", path("cut.json")}, 2, "not a valid ONNX model: the file is truncated or corrupt"},
      {{"import", path("old.onnx"), "-o", path("old.json")}, 2, "opset 9 is not supported (opsets 11 to 17 are"},
      {{"import", path("none.onnx"), "-o", path("none.json")}, 1, "none.onnx: no such file"},
      {{"validate", path("none.onnx")}, 1, "none.onnx: no such file"},
      {{"import", path("sym.onnx"), "-o", path("sym.json"), "--input-shape", "x=2,0"}, 1, "dims are integers >= 1, got '0'"},
      {{"import", path("sym.onnx"), "-o", path("sym.json"), "--input-shape", "y=2,4"}, 1,
       "--input-shape names 'y', which is not an input of the model (inputs: x)"},
      {{"import", path("sym.onnx"), "-o", path("sym.json"), "--input-shape", "x=2,4", "--input-shape", "x=3,4"}, 1,
       "--input-shape gives input 'x' twice"},
      {{"validate", data("add.json"), "--input-shape", "x=2"}, 1, "--input-shape applies to ONNX models (.onnx) only"},
      {{"import", path("sym.onnx"), "-o", path("nodir/sym.json"), "--input-shape", "x=2,4"}, 1, "cannot write"},
      {{"import", path("sym.onnx")}, 1, "--output is required"},
  };
  for (const Case& c : cases) {
    ProcessResult r = staxc(c.args);
    EXPECT_EQ(r.status, c.status) << c.args[0] << " " << c.args[1] << ": " << r.err;
    EXPECT_TRUE(is_error_line(r.err, c.message)) << c.args[0] << " " << c.args[1];
  }
  for (const char* f : {"bad.json", "bad.weights", "sym.json", "sym.weights", "sym.cpp", "cut.json", "old.json"})
    EXPECT_FALSE(fs::exists(dir_ / f)) << f;
}

// A failed import leaves the files of an earlier one as they were.
TEST_F(StaxcTest, FailedImportKeepsEarlierFiles) {
  mlp().write(dir_ / "m.onnx");
  ASSERT_EQ(staxc({"import", path("m.onnx"), "-o", path("m.json")}).status, 0);
  std::string json = slurp(dir_ / "m.json"), weights = slurp(dir_ / "m.weights");
  OnnxModel bad = mlp();
  bad.proto.mutable_graph()->mutable_node(2)->set_op_type("Shrink");
  bad.write(dir_ / "m.onnx");
  EXPECT_EQ(staxc({"import", path("m.onnx"), "-o", path("m.json")}).status, 2);
  EXPECT_EQ(slurp(dir_ / "m.json"), json);
  EXPECT_EQ(slurp(dir_ / "m.weights"), weights);
  std::vector<std::string> left;
  for (const auto& e : fs::directory_iterator(dir_))
    if (e.is_regular_file()) left.push_back(e.path().filename().string());
  EXPECT_EQ(left.size(), 3u) << "no temporary left";
}

// External data beside the model is read; missing, it is an I/O error.
TEST_F(StaxcTest, ExternalData) {
  OnnxModel m = mlp();
  Tensor w = iota(DType::Float32, {4, 20}, -1, 0.125);
  std::ofstream(dir_ / "w.data", std::ios::binary) << std::string(reinterpret_cast<const char*>(w.data()), w.nbytes());
  onnx::TensorProto* t = m.proto.mutable_graph()->mutable_initializer(0);
  t->clear_raw_data();
  t->set_data_location(onnx::TensorProto_DataLocation_EXTERNAL);
  onnx::StringStringEntryProto* e = t->add_external_data();
  e->set_key("location");
  e->set_value("w.data");
  m.write(dir_ / "m.onnx");
  write_npy(dir_ / "x.npy", iota(DType::Float32, {2, 4}));
  ProcessResult r = staxc({"interpret", path("m.onnx"), "--input", "x=" + path("x.npy"), "--output-dir", path("res")});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NEAR(read_npy(dir_ / "res/y.npy").get_double(21), mlp_expected().get_double(21), 1e-5);
  fs::remove(dir_ / "w.data");
  ProcessResult missing = staxc({"import", path("m.onnx"), "-o", path("m.json")});
  EXPECT_EQ(missing.status, 1);
  EXPECT_TRUE(is_error_line(missing.err, "w.data: no such file (the external data of initializer 'w')"));
}

// A model whose constants are all small writes no weights file.
TEST_F(StaxcTest, ImportWithoutWeights) {
  OnnxModel m;
  m.input("x", DType::Float32, {3}).initializer("s", f32({3}, {1, 2, 3})).node("Mul", {"x", "s"}, {"y"})
      .output("y", DType::Float32);
  m.write(dir_ / "small.onnx");
  ProcessResult r = staxc({"import", path("small.onnx"), "-o", path("small.json")});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "weights: none")) << r.out;
  EXPECT_FALSE(fs::exists(dir_ / "small.weights"));
  EXPECT_TRUE(contains(slurp(dir_ / "small.json"), R"({"name": "s", "dtype": "float32", "shape": [3], "data": [1.0, 2.0, 3.0]})"));
}

// What the front end rejects in an imported graph is reported as such, naming the node.
TEST_F(StaxcTest, ErrorInTheImportedGraph) {
  OnnxModel m;
  m.input("x", DType::Float32, {3}).node("LeakyRelu", {"x"}, {"y"}, {attr_f("alpha", NAN)}).output("y", DType::Float32);
  m.write(dir_ / "nan.onnx");
  ProcessResult r = staxc({"validate", path("nan.onnx")});
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(is_error_line(r.err, "nodes[0].negative_slope (node 'y', op 'leaky_relu'): in the graph imported from nan.onnx:"));
}

TEST_F(StaxcTest, ImportHelp) {
  ProcessResult r = staxc({"import", "--help"});
  EXPECT_EQ(r.status, 0);
  for (const char* part : {"MODEL.onnx", "--output", "--weights", "--input-shape", "NAME=DIMS", "Examples:",
                           "staxc import resnet18.onnx -o resnet18.json"})
    EXPECT_TRUE(contains(r.out, part)) << part << "\n" << r.out;
  EXPECT_TRUE(contains(staxc({"--help"}).out, "staxc import resnet18.onnx -o resnet18.json"));
  EXPECT_TRUE(contains(staxc({"validate", "--help"}).out, "--input-shape"));
}

}  // namespace
}  // namespace stax::testing
