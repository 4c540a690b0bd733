// staxc interpret: files written, given and generated inputs, errors and determinism.
#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "cli_fixture.h"
#include "stax/support/npy.h"
#include "stax/support/random.h"

namespace stax::testing {
namespace {

namespace fs = std::filesystem;

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

std::string bytes_of(const Tensor& t) { return std::string(reinterpret_cast<const char*>(t.data()), t.nbytes()); }

std::vector<std::string> listing(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::recursive_directory_iterator(dir)) names.push_back(fs::relative(e.path(), dir).string());
  std::sort(names.begin(), names.end());
  return names;
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

Tensor float32_tensor(Shape shape, const std::vector<float>& values) {
  Tensor t(DType::Float32, std::move(shape));
  std::copy(values.begin(), values.end(), t.data_as<float>());
  return t;
}

TEST_F(StaxcTest, InterpretWritesInputsAndOutputs) {
  ProcessResult r = staxc({"interpret", data("add.json"), "--output-dir", path("out"), "--seed", "4"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(listing(dir_ / "out"), (std::vector<std::string>{"inputs", "inputs/x.npy", "inputs/y.npy", "z.npy"}));
  Tensor x = read_npy(dir_ / "out/inputs/x.npy"), y = read_npy(dir_ / "out/inputs/y.npy");
  EXPECT_EQ(bytes_of(x), bytes_of(random_tensor(DType::Float32, {2, 3}, 4, 0)));
  EXPECT_EQ(bytes_of(y), bytes_of(random_tensor(DType::Float32, {3}, 4, 1)));
  Tensor z = read_npy(dir_ / "out/z.npy");
  ASSERT_EQ(z.dtype(), DType::Float32);
  ASSERT_EQ(z.shape(), Shape({2, 3}));
  // The sum of two floats rounds the same from double as in float.
  for (int64_t i = 0; i < 6; ++i)
    EXPECT_EQ(z.data_as<float>()[i], x.data_as<float>()[i] + y.data_as<float>()[i % 3]) << i;
  for (const char* part : {"input  x: float32[2, 3] (generated, seed 4) -> ", "inputs/x.npy",
                           "output z: float32[2, 3] -> "})
    EXPECT_TRUE(contains(r.out, part)) << part << "\n" << r.out;
}

TEST_F(StaxcTest, InterpretGivenInputs) {
  write_npy(dir_ / "x.npy", float32_tensor({2, 3}, {1, 2, 3, 4, 5, 6}));
  write_npy(dir_ / "y.npy", float32_tensor({3}, {0.5f, -1, 100}));
  ProcessResult r = staxc({"interpret", data("add.json"), "--input", "x=" + path("x.npy"),
                           "--input=y=" + path("y.npy"), "--output-dir", path("out")});
  ASSERT_EQ(r.status, 0) << r.err;
  Tensor z = read_npy(dir_ / "out/z.npy");
  const float expected[] = {1.5f, 1, 103, 4.5f, 4, 106};
  for (int64_t i = 0; i < 6; ++i) EXPECT_EQ(z.data_as<float>()[i], expected[i]) << i;
  // Given inputs are copied into DIR/inputs too, so the folder holds everything of the run.
  EXPECT_EQ(slurp(dir_ / "out/inputs/x.npy"), slurp(dir_ / "x.npy"));
  EXPECT_TRUE(contains(r.out, "input  x: float32[2, 3] (given)")) << r.out;
  EXPECT_TRUE(contains(r.out, "1.5 1 103 4.5 4 106")) << r.out;
}

TEST_F(StaxcTest, InterpretOneGivenOneGenerated) {
  write_npy(dir_ / "y.npy", float32_tensor({3}, {0, 0, 0}));
  ProcessResult r = staxc({"interpret", data("add.json"), "--input", "y=" + path("y.npy"), "--output-dir", path("out")});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(bytes_of(read_npy(dir_ / "out/z.npy")), bytes_of(random_tensor(DType::Float32, {2, 3}, 0, 0)));
}

TEST_F(StaxcTest, InterpretBadInputFiles) {
  write_npy(dir_ / "f64.npy", Tensor(DType::Float64, {2, 3}));
  write_npy(dir_ / "shape.npy", Tensor(DType::Float32, {3, 2}));
  write_npy(dir_ / "y.npy", Tensor(DType::Float32, {3}));
  std::ofstream(dir_ / "text.npy") << "1,2,3\n";
  struct Case { std::vector<std::string> inputs; std::string fragment; };
  const Case cases[] = {
      {{"x=" + path("f64.npy")}, "input 'x': " + path("f64.npy") + " holds float64[2, 3], the graph expects float32[2, 3]"},
      {{"x=" + path("shape.npy")}, "input 'x': " + path("shape.npy") + " holds float32[3, 2], the graph expects float32[2, 3]"},
      {{"x=" + path("none.npy")}, "input 'x': " + path("none.npy") + ": cannot open (No such file or directory)"},
      {{"x=" + path("text.npy")}, "input 'x': " + path("text.npy") + ": not a .npy file (bad magic string)"},
      {{"w=" + path("y.npy")}, "--input w=" + path("y.npy") + ": the graph has no input named 'w' (its inputs: x, y)"},
      {{"y=" + path("y.npy"), "y=" + path("y.npy")}, "input 'y' is already given"},
  };
  for (const Case& c : cases) {
    std::vector<std::string> args = {"interpret", data("add.json"), "--output-dir", path("out")};
    for (const std::string& in : c.inputs) {
      args.push_back("--input");
      args.push_back(in);
    }
    ProcessResult r = staxc(args);
    EXPECT_EQ(r.status, 1) << c.fragment;
    EXPECT_TRUE(is_error_line(r.err, c.fragment));
    EXPECT_EQ(r.out, "");
    EXPECT_FALSE(fs::exists(dir_ / "out"));
  }
}

TEST_F(StaxcTest, InterpretDivisionByZeroExitsWithThreeAndWritesNothing) {
  ProcessResult r = staxc({"interpret", data("int_div_zero.json"), "--output-dir", path("out")});
  EXPECT_EQ(r.status, 3) << r.err;
  EXPECT_TRUE(is_error_line(r.err, "division by zero"));
  EXPECT_TRUE(contains(r.err, "'q'")) << r.err;
  EXPECT_FALSE(fs::exists(dir_ / "out"));
}

TEST_F(StaxcTest, InterpretIndexOutOfRangeExitsWithThreeAndWritesNothing) {
  ProcessResult r = staxc({"interpret", data("index_out_of_range.json"), "--output-dir", path("out")});
  EXPECT_EQ(r.status, 3) << r.err;
  EXPECT_TRUE(is_error_line(r.err, "node 'e' (embedding): index 3 is out of range [0, 3) of dim 0")) << r.err;
  EXPECT_FALSE(fs::exists(dir_ / "out"));
}

TEST_F(StaxcTest, InterpretEveryDtypeAndRepeatedOutputs) {
  ProcessResult r = staxc({"interpret", data("all_dtypes.json"), "--output-dir", path("out"), "--seed", "99"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(listing(dir_ / "out"),
            (std::vector<std::string>{"b.npy", "d.npy", "f.npy", "i.npy", "inputs", "inputs/b.npy", "inputs/d.npy",
                                      "inputs/f.npy", "inputs/i.npy", "inputs/l.npy", "inputs/s.npy", "l.npy", "s.npy"}));
  struct In { const char* name; DType dt; Shape shape; };
  const In ins[] = {{"f", DType::Float32, {2, 3}}, {"d", DType::Float64, {4}}, {"i", DType::Int32, {5}},
                    {"l", DType::Int64, {2, 2}}, {"b", DType::Bool, {3}}, {"s", DType::Float32, {}}};
  for (std::size_t k = 0; k < 6; ++k) {
    Tensor expected = random_tensor(ins[k].dt, ins[k].shape, 99, k);
    std::string name = ins[k].name;
    Tensor in = read_npy(dir_ / "out/inputs" / (name + ".npy"));
    EXPECT_EQ(in.dtype(), ins[k].dt) << name;
    EXPECT_EQ(in.shape(), ins[k].shape) << name;
    EXPECT_EQ(bytes_of(in), bytes_of(expected)) << name;
    // The outputs are the inputs themselves.
    EXPECT_EQ(slurp(dir_ / "out" / (name + ".npy")), slurp(dir_ / "out/inputs" / (name + ".npy"))) << name;
  }
}

TEST_F(StaxcTest, InterpretWithoutInputs) {
  ProcessResult r = staxc({"interpret", data("no_inputs.json"), "--output-dir", path("out")});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(listing(dir_ / "out"), (std::vector<std::string>{"c.npy", "u.npy"}));
  Tensor u = read_npy(dir_ / "out/u.npy");
  EXPECT_EQ(u.dtype(), DType::Int64);
  EXPECT_EQ(u.get_int(0), 12);
  EXPECT_EQ(u.get_int(1), -15);
  // With no inputs, any --input names something that is not there.
  write_npy(dir_ / "a.npy", Tensor(DType::Int64, {2}));
  ProcessResult bad = staxc({"interpret", data("no_inputs.json"), "--input", "c=" + path("a.npy"), "--output-dir", path("o2")});
  EXPECT_EQ(bad.status, 1);
  EXPECT_TRUE(is_error_line(bad.err, "the graph has no input named 'c' (it has no inputs)"));
}

TEST_F(StaxcTest, InterpretIsDeterministic) {
  auto run = [&](const std::string& out, const std::string& seed) {
    ProcessResult r = staxc({"interpret", data("all_dtypes.json"), "--output-dir", path(out), "--seed", seed});
    EXPECT_EQ(r.status, 0) << r.err;
  };
  run("a", "123");
  run("b", "000123");
  run("c", "124");
  std::vector<std::string> files = listing(dir_ / "a");
  ASSERT_EQ(files.size(), 13u);
  for (const std::string& f : files) {
    if (fs::is_directory(dir_ / "a" / f)) continue;
    EXPECT_EQ(slurp(dir_ / "a" / f), slurp(dir_ / "b" / f)) << f;
  }
  EXPECT_NE(slurp(dir_ / "a/inputs/f.npy"), slurp(dir_ / "c/inputs/f.npy"));
}

TEST_F(StaxcTest, InterpretIntoAnExistingFolderOverwrites) {
  fs::create_directories(dir_ / "out");
  std::ofstream(dir_ / "out/z.npy") << "old";
  std::ofstream(dir_ / "out/keep.txt") << "mine";
  ProcessResult r = staxc({"interpret", data("add.json"), "--output-dir", path("out")});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(read_npy(dir_ / "out/z.npy").shape(), Shape({2, 3}));
  EXPECT_EQ(slurp(dir_ / "out/keep.txt"), "mine");
  EXPECT_EQ(listing(dir_ / "out").size(), 5u);  // no temporary file left behind
}

TEST_F(StaxcTest, InterpretIntoAFileIsAnIoError) {
  std::ofstream(dir_ / "file") << "x";
  ProcessResult r = staxc({"interpret", data("add.json"), "--output-dir", path("file")});
  EXPECT_EQ(r.status, 1);
  EXPECT_TRUE(is_error_line(r.err, "cannot create directory"));
}

TEST_F(StaxcTest, InterpretEverySample) {
  for (const auto& e : fs::directory_iterator(fs::path(STAX_SOURCE_DIR) / "samples")) {
    if (e.path().extension() != ".json") continue;
    fs::path out = dir_ / e.path().stem();
    ProcessResult r = staxc({"interpret", e.path().string(), "--output-dir", out.string()});
    EXPECT_EQ(r.status, 0) << e.path() << "\n" << r.err;
    int outputs = 0;
    for (const auto& f : fs::directory_iterator(out)) {
      if (f.path().extension() != ".npy") continue;
      ++outputs;
      EXPECT_NO_THROW(read_npy(f.path())) << f.path();
    }
    EXPECT_GE(outputs, 1) << e.path();
  }
}

}  // namespace
}  // namespace stax::testing
