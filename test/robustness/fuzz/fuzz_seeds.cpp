// Writes the seed corpora of the .npy and ONNX harnesses: `fuzz_seeds NPY_DIR ONNX_DIR`. The
// .npy seeds are every dtype at ranks 0 to 3 and both header versions; the ONNX seeds are small
// models covering the importer's paths (elementwise math, initializers in raw and typed fields,
// a folded shape computation, reductions, matmul, convolution, pooling, indexing, symbolic
// dims). The JSON seeds are the samples and the test graphs (scripts/fuzz.sh copies them).
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "onnx_builder.h"
#include "stax/support/npy.h"

namespace stax::testing {
namespace {

namespace fs = std::filesystem;

void write(const fs::path& file, const std::string& bytes) {
  std::ofstream out(file, std::ios::binary);
  out << bytes;
}

void npy_seeds(const fs::path& dir) {
  int k = 0;
  for (DType dt : {DType::Float32, DType::Float64, DType::Int32, DType::Int64, DType::Bool})
    for (const Shape& s : {Shape{}, Shape{3}, Shape{2, 3}, Shape{2, 1, 2}, Shape{0, 4}})
      write(dir / ("seed_" + std::to_string(k++) + ".npy"), serialize_npy(iota(dt == DType::Bool ? DType::Int32 : dt, s)));
  // A header too long for format 1.0 (written as 2.0).
  write(dir / "seed_v2.npy", serialize_npy(iota(DType::Float32, Shape(20, 1))));
}

void onnx_seeds(const fs::path& dir) {
  auto save = [&](const std::string& name, const OnnxModel& m) { m.write(dir / (name + ".onnx")); };
  OnnxModel a;
  a.input("x", DType::Float32, {2, 3}).initializer("b", f32({3}, {1, 2, 3}))
      .node("Add", {"x", "b"}, {"s"}).node("Relu", {"s"}, {"r"}).node("Exp", {"r"}, {"y"}).output("y", DType::Float32);
  save("elementwise", a);
  OnnxModel t;
  t.input("x", DType::Float32, {2, 3}).initializer("b", f32({3}, {1, 2, 3}), false)
      .node("Mul", {"x", "b"}, {"y"}).output("y", DType::Float32);
  save("typed_initializer", t);
  OnnxModel r;
  r.input("x", DType::Float32, {"n", 6}).node("Shape", {"x"}, {"s"})
      .initializer("i", i64({1}, {0})).node("Gather", {"s", "i"}, {"d"}, {attr_i("axis", 0)})
      .initializer("m", i64({1}, {-1})).node("Concat", {"d", "m"}, {"shape"}, {attr_i("axis", 0)})
      .node("Reshape", {"x", "shape"}, {"y"}).output("y", DType::Float32);
  save("shape_chain", r);
  OnnxModel red;
  red.input("x", DType::Float32, {4, 5}).node("ReduceSum", {"x"}, {"y"}, {attr_ints("axes", {1}), attr_i("keepdims", 0)}, "sum")
      .node("Softmax", {"x"}, {"z"}, {attr_i("axis", -1)}).output("y", DType::Float32).output("z", DType::Float32);
  save("reduce_softmax", red);
  OnnxModel mm;
  mm.input("x", DType::Float32, {2, 4}).initializer("w", iota(DType::Float32, {4, 3}))
      .initializer("c", f32({3}, {1, 0, -1})).node("Gemm", {"x", "w", "c"}, {"g"})
      .node("MatMul", {"g", "w2"}, {"y"}).initializer("w2", iota(DType::Float32, {3, 2})).output("y", DType::Float32);
  save("gemm_matmul", mm);
  OnnxModel cv;
  cv.input("x", DType::Float32, {1, 2, 6, 6}).initializer("w", iota(DType::Float32, {3, 2, 3, 3}))
      .node("Conv", {"x", "w"}, {"c"}, {attr_ints("pads", {1, 1, 1, 1}), attr_ints("strides", {2, 2})})
      .node("MaxPool", {"c"}, {"p"}, {attr_ints("kernel_shape", {2, 2})})
      .node("GlobalAveragePool", {"p"}, {"y"}).output("y", DType::Float32);
  save("conv_pool", cv);
  OnnxModel ix;
  ix.input("i", DType::Int64, {3}).initializer("table", iota(DType::Float32, {5, 4}))
      .node("Gather", {"table", "i"}, {"y"}, {attr_i("axis", 0)}).node("Cast", {"y"}, {"z"}, {attr_i("to", 11)})
      .output("z", DType::Float64);
  save("gather_cast", ix);
}

}  // namespace

void write_seeds(const char* npy_dir, const char* onnx_dir) {
  npy_seeds(npy_dir);
  onnx_seeds(onnx_dir);
}

}  // namespace stax::testing

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: fuzz_seeds NPY_DIR ONNX_DIR\n");
    return 1;
  }
  std::filesystem::create_directories(argv[1]);
  std::filesystem::create_directories(argv[2]);
  stax::testing::write_seeds(argv[1], argv[2]);
  return 0;
}
