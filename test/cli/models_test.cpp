// Tiny real models end to end, as a user runs them: `staxc import` of a PyTorch export, `staxc
// compile` to a source, its header and its weights file, the documented build command run from
// another folder (the weights are found through __FILE__), the program run on the committed
// input, and its output compared with PyTorch eager's (test/importer/models/make_models.py
// made the files).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "cli_fixture.h"
#include "stax/support/npy.h"

namespace stax::testing {
namespace {

namespace fs = std::filesystem;

std::string models_dir() { return std::string(STAX_SOURCE_DIR) + "/test/importer/models"; }

std::string compiler() {
  const char* cxx = std::getenv("CXX");
  return cxx != nullptr && *cxx != '\0' ? cxx : "g++";
}

void write_raw(const fs::path& file, const Tensor& t) {
  std::ofstream out(file, std::ios::binary);
  out.write(reinterpret_cast<const char*>(t.data()), static_cast<std::streamsize>(t.nbytes()));
}

class ModelTest : public StaxcTest {
 protected:
  // A shell command run in the test's folder.
  ProcessResult shell(const std::string& command) {
    return run_process("/bin/sh", {"-c", "cd '" + dir_.string() + "' && " + command},
                       dir_ / ("sh" + std::to_string(runs_++)));
  }

  // Import, compile, build, run; the output against PyTorch's within `tolerance` of its largest
  // magnitude. `weights_file`: whether the generated code must have one.
  void check_model(const std::string& name, double tolerance, bool weights_file) {
    const std::string onnx = models_dir() + "/" + name + ".onnx";
    ProcessResult r = staxc({"import", onnx, "-o", path("model.json")});
    ASSERT_EQ(r.status, 0) << r.err;
    ASSERT_TRUE(fs::exists(dir_ / "model.weights"));
    fs::create_directories(dir_ / "gen");
    r = staxc({"compile", path("model.json"), "-o", path("gen/model.cpp"), "--header", path("gen/model.h"), "--name", "model"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(fs::exists(dir_ / "gen/model.cpp.weights"), weights_file);
    // The documented build, from the test's folder: the source by a relative path.
    r = shell(compiler() + " -std=c++17 -O2 -march=native -fopenmp -Wall -Wextra -c gen/model.cpp -o model.o");
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.err, "") << "warnings building the generated code";
    r = shell(compiler() + " -std=c++17 -O2 -fopenmp -Igen '" + std::string(STAX_MODEL_MAIN) +
              "' model.o -o model -lsleef");
    ASSERT_EQ(r.status, 0) << r.err;
    const Tensor input = read_npy(models_dir() + "/" + name + ".input.npy");
    const Tensor expected = read_npy(models_dir() + "/" + name + ".expected.npy");
    write_raw(dir_ / "in.bin", input);
    r = shell("./model in.bin out.bin");
    ASSERT_EQ(r.status, 0) << r.err;
    std::ifstream in(dir_ / "out.bin", std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    ASSERT_EQ(bytes.size(), expected.nbytes());
    const float* got = reinterpret_cast<const float*>(bytes.data());
    const float* want = expected.data_as<float>();
    double largest = 0, worst = 0;
    for (int64_t i = 0; i < expected.numel(); ++i) largest = std::max(largest, std::fabs(static_cast<double>(want[i])));
    for (int64_t i = 0; i < expected.numel(); ++i) {
      const double err = std::fabs(static_cast<double>(got[i]) - static_cast<double>(want[i]));
      worst = std::max(worst, std::isnan(err) ? INFINITY : err);
    }
    ASSERT_GT(largest, 0.5) << "an output too small to compare";
    EXPECT_LE(worst, tolerance * largest) << name << ": worst error " << worst << ", largest |y| " << largest;
  }
};

// The weights file goes beside the source, named after it; stdout cannot take a second file.
TEST_F(ModelTest, WeightsFileBesideTheSourceOrNoStdout) {
  const std::string onnx = models_dir() + "/tiny_transformer.onnx";
  ProcessResult r = staxc({"compile", onnx, "-o", path("a.cpp"), "--header", path("a.h")});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(fs::file_size(dir_ / "a.cpp.weights"), 65536u);  // the two 64 x 128 MLP weights
  r = staxc({"compile", onnx, "-o", "-", "--header", path("b.h")});
  EXPECT_EQ(r.status, 1);
  EXPECT_TRUE(is_error_line(r.err, "raise --weights-threshold above the largest constant"));
  EXPECT_EQ(r.out, "");
  EXPECT_FALSE(fs::exists(dir_ / "b.h"));
  r = staxc({"compile", onnx, "-o", path("c.cpp"), "--weights-threshold", "-5"});
  EXPECT_EQ(r.status, 1);
  EXPECT_TRUE(is_error_line(r.err, "--weights-threshold"));
  EXPECT_FALSE(fs::exists(dir_ / "c.cpp"));
  r = staxc({"compile", onnx, "-o", "-", "--weights-threshold", "32768"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out.find(".incbin"), std::string::npos);
}

// Self-attention (4 heads), layer norms and an erf-GELU MLP: matmuls, softmax, reshapes.
TEST_F(ModelTest, TinyTransformer) { check_model("tiny_transformer", 1e-5, true); }

// Convolutions, batch norms, max pool, a residual add, a global average pool and a linear.
TEST_F(ModelTest, TinyCnn) { check_model("tiny_cnn", 1e-5, true); }

}  // namespace
}  // namespace stax::testing
