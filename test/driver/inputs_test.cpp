// Input preparation and the result folder layout, on graphs built by hand (no front end).
#include "stax/driver/inputs.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "stax/support/error.h"
#include "stax/support/npy.h"
#include "stax/support/random.h"

namespace stax::driver {
namespace {

namespace fs = std::filesystem;

graph::ValueId add_value(graph::Graph& g, graph::ValueKind kind, const std::string& name, DType dt,
                         Shape shape) {
  graph::Value v;
  v.kind = kind;
  v.name = name;
  v.dtype = dt;
  v.shape = std::move(shape);
  g.values.push_back(std::move(v));
  auto id = static_cast<graph::ValueId>(g.values.size() - 1);
  if (kind == graph::ValueKind::Input) g.inputs.push_back(id);
  return id;
}

// Inputs x: float32[2, 3], n: int64[], b: bool[4]; outputs y, x, y.
graph::Graph three_inputs() {
  graph::Graph g;
  g.name = "t";
  graph::ValueId x = add_value(g, graph::ValueKind::Input, "x", DType::Float32, {2, 3});
  add_value(g, graph::ValueKind::Input, "n", DType::Int64, {});
  add_value(g, graph::ValueKind::Input, "b", DType::Bool, {4});
  graph::ValueId y = add_value(g, graph::ValueKind::Node, "y", DType::Float32, {2, 3});
  g.outputs = {y, x, y};
  return g;
}

std::string bytes_of(const Tensor& t) { return std::string(reinterpret_cast<const char*>(t.data()), t.nbytes()); }

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const UserError& e) {
    return e.what();
  }
  return "";
}

class DriverFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(STAX_BINARY_DIR) / "test-tmp" /
           ("driver-" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST(ParseInputSpec, SplitsAtTheFirstEquals) {
  InputFile a = parse_input_spec("x=a.npy");
  EXPECT_EQ(a.name, "x");
  EXPECT_EQ(a.file, fs::path("a.npy"));
  InputFile b = parse_input_spec("x.1=dir/a=b.npy");
  EXPECT_EQ(b.name, "x.1");
  EXPECT_EQ(b.file, fs::path("dir/a=b.npy"));
  for (const char* bad : {"x", "=a.npy", "x=", ""})
    EXPECT_EQ(error_of([&] { parse_input_spec(bad); }),
              std::string("--input '") + bad + "': expected NAME=FILE.npy");
}

TEST(PrepareInputs, GeneratedFromSeedAndPosition) {
  graph::Graph g = three_inputs();
  std::vector<Tensor> in = prepare_inputs(g, {}, 11);
  ASSERT_EQ(in.size(), 3u);
  EXPECT_EQ(in[0].dtype(), DType::Float32);
  EXPECT_EQ(in[0].shape(), Shape({2, 3}));
  EXPECT_EQ(bytes_of(in[0]), bytes_of(random_tensor(DType::Float32, {2, 3}, 11, 0)));
  EXPECT_EQ(bytes_of(in[1]), bytes_of(random_tensor(DType::Int64, {}, 11, 1)));
  EXPECT_EQ(bytes_of(in[2]), bytes_of(random_tensor(DType::Bool, {4}, 11, 2)));
  EXPECT_NE(bytes_of(prepare_inputs(g, {}, 12)[0]), bytes_of(in[0]));
}

TEST_F(DriverFiles, GivenInputIsReadAndOthersStillGenerated) {
  graph::Graph g = three_inputs();
  Tensor n(DType::Int64, {});
  n.set_int(0, -42);
  write_npy(dir_ / "n.npy", n);
  std::vector<Tensor> in = prepare_inputs(g, {{"n", dir_ / "n.npy"}}, 3);
  EXPECT_EQ(in[1].get_int(0), -42);
  // The generated ones do not depend on which others were given.
  EXPECT_EQ(bytes_of(in[0]), bytes_of(random_tensor(DType::Float32, {2, 3}, 3, 0)));
  EXPECT_EQ(bytes_of(in[2]), bytes_of(random_tensor(DType::Bool, {4}, 3, 2)));
}

TEST_F(DriverFiles, MismatchedDtypeOrShapeNamesInputFileAndTypes) {
  graph::Graph g = three_inputs();
  fs::path f64 = dir_ / "f64.npy", short_x = dir_ / "short.npy";
  write_npy(f64, Tensor(DType::Float64, {2, 3}));
  write_npy(short_x, Tensor(DType::Float32, {3, 2}));
  EXPECT_EQ(error_of([&] { prepare_inputs(g, {{"x", f64}}, 0); }),
            "input 'x': " + f64.string() + " holds float64[2, 3], the graph expects float32[2, 3]");
  EXPECT_EQ(error_of([&] { prepare_inputs(g, {{"x", short_x}}, 0); }),
            "input 'x': " + short_x.string() + " holds float32[3, 2], the graph expects float32[2, 3]");
  // A 1-element 1-d array is not a 0-d one.
  write_npy(dir_ / "one.npy", Tensor(DType::Int64, {1}));
  EXPECT_EQ(error_of([&] { prepare_inputs(g, {{"n", dir_ / "one.npy"}}, 0); }),
            "input 'n': " + (dir_ / "one.npy").string() + " holds int64[1], the graph expects int64[]");
}

TEST_F(DriverFiles, UnreadableFileNamesTheInput) {
  graph::Graph g = three_inputs();
  fs::path missing = dir_ / "missing.npy", text = dir_ / "x.txt";
  std::ofstream(text) << "not numpy";
  EXPECT_EQ(error_of([&] { prepare_inputs(g, {{"b", missing}}, 0); }),
            "input 'b': " + missing.string() + ": cannot open (No such file or directory)");
  EXPECT_EQ(error_of([&] { prepare_inputs(g, {{"b", text}}, 0); }),
            "input 'b': " + text.string() + ": not a .npy file (bad magic string)");
}

TEST(PrepareInputs, UnknownAndDuplicateNames) {
  graph::Graph g = three_inputs();
  EXPECT_EQ(error_of([&] { prepare_inputs(g, {{"z", "a.npy"}}, 0); }),
            "--input z=a.npy: the graph has no input named 'z' (its inputs: x, n, b)");
  // An output that is not an input is not an input either.
  EXPECT_EQ(error_of([&] { prepare_inputs(g, {{"y", "a.npy"}}, 0); }),
            "--input y=a.npy: the graph has no input named 'y' (its inputs: x, n, b)");
  EXPECT_EQ(error_of([&] { prepare_inputs(g, {{"x", "a.npy"}, {"x", "b.npy"}}, 0); }),
            "--input x=b.npy: input 'x' is already given (a.npy)");
  graph::Graph none;
  none.name = "none";
  EXPECT_EQ(error_of([&] { prepare_inputs(none, {{"x", "a.npy"}}, 0); }),
            "--input x=a.npy: the graph has no input named 'x' (it has no inputs)");
  EXPECT_TRUE(prepare_inputs(none, {}, 0).empty());
}

std::vector<std::string> listing(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    names.push_back(fs::relative(e.path(), dir).string());
  std::sort(names.begin(), names.end());
  return names;
}

TEST_F(DriverFiles, WritesInputsAndOutputsOnceEach) {
  graph::Graph g = three_inputs();
  std::vector<Tensor> in = prepare_inputs(g, {}, 5);
  Tensor y(DType::Float32, {2, 3});
  for (int64_t i = 0; i < 6; ++i) y.set_double(i, 0.5 * static_cast<double>(i));
  fs::path out = dir_ / "a" / "b";  // created, parents too
  std::vector<fs::path> ip = write_inputs(out, g, in);
  std::vector<fs::path> op = write_outputs(out, g, {y, in[0], y});
  EXPECT_EQ(ip, (std::vector<fs::path>{out / "inputs/x.npy", out / "inputs/n.npy", out / "inputs/b.npy"}));
  EXPECT_EQ(op, (std::vector<fs::path>{out / "y.npy", out / "x.npy", out / "y.npy"}));
  EXPECT_EQ(listing(out), (std::vector<std::string>{"inputs", "inputs/b.npy", "inputs/n.npy",
                                                    "inputs/x.npy", "x.npy", "y.npy"}));
  EXPECT_EQ(bytes_of(read_npy(out / "inputs/n.npy")), bytes_of(in[1]));
  EXPECT_EQ(bytes_of(read_npy(out / "x.npy")), bytes_of(in[0]));
  Tensor y_back = read_npy(out / "y.npy");
  EXPECT_EQ(y_back.shape(), Shape({2, 3}));
  EXPECT_EQ(y_back.get_double(5), 2.5);
}

TEST_F(DriverFiles, NoInputsMeansNoInputsFolder) {
  graph::Graph g;
  g.name = "c";
  graph::ValueId c = add_value(g, graph::ValueKind::Constant, "c", DType::Int32, {1});
  g.outputs = {c};
  EXPECT_TRUE(write_inputs(dir_, g, {}).empty());
  write_outputs(dir_, g, {Tensor(DType::Int32, {1})});
  EXPECT_EQ(listing(dir_), std::vector<std::string>{"c.npy"});
}

TEST_F(DriverFiles, OutputFolderThatIsAFileIsAnError) {
  graph::Graph g = three_inputs();
  std::ofstream(dir_ / "file") << "x";
  std::string msg = error_of([&] { write_inputs(dir_ / "file", g, prepare_inputs(g, {}, 0)); });
  EXPECT_EQ(msg.rfind((dir_ / "file" / "inputs").string() + ": cannot create directory (", 0), 0u) << msg;
  msg = error_of([&] {
    write_outputs(dir_ / "file", g, {Tensor(DType::Float32, {2, 3}), Tensor(DType::Float32, {2, 3}),
                                     Tensor(DType::Float32, {2, 3})});
  });
  EXPECT_NE(msg.find("file"), std::string::npos) << msg;
  EXPECT_FALSE(msg.empty());
}

}  // namespace
}  // namespace stax::driver
