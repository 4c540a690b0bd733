// The staxc commands of code generation as a user runs them: compile (the default command),
// run and check; their files, exit statuses and messages.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "stax/driver/compare.h"
#include "stax/driver/process.h"
#include "stax/support/npy.h"

namespace stax::e2e {
namespace {

namespace fs = std::filesystem;

const std::string kQuickFlags = "--cxxflags=-std=c++17 -O0 -fopenmp";

class Commands : public ::testing::Test {
 protected:
  driver::ProcessResult staxc(std::vector<std::string> args) {
    args.insert(args.begin(), STAXC_PATH);
    return driver::run_process(args, dir_.path() / "log.txt");
  }
  std::string path(const std::string& name) const { return (dir_.path() / name).string(); }
  std::string sample(const std::string& name) const { return std::string(STAX_SOURCE_DIR) + "/samples/" + name; }
  std::string write_model(const std::string& name, const std::string& json) {
    driver::write_file_atomic(path(name), json);
    return path(name);
  }
  driver::TempDir dir_;
};

::testing::AssertionResult has(const std::string& text, const std::string& part) {
  if (text.find(part) != std::string::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "'" << part << "' not in:\n" << text;
}

const char* kDivByZero = R"({"format": "stax-graph", "version": 1, "name": "dz",
  "inputs": [{"name": "a", "dtype": "int32", "shape": [4]}],
  "nodes": [{"name": "y", "op": "remainder", "args": ["a", {"op": "sub", "args": ["a", "a"]}]}],
  "outputs": ["y"]})";

// idx: int64 inputs in [-8, 8] shifted by 2: some index of w's 5 rows is out of range.
const char* kIndexError = R"({"format": "stax-graph", "version": 1, "name": "idx",
  "inputs": [{"name": "w", "dtype": "float32", "shape": [5, 3]}, {"name": "i", "dtype": "int64", "shape": [40]}],
  "nodes": [{"name": "y", "op": "embedding", "args": ["w", {"op": "add", "args": ["i", 2]}]}],
  "outputs": ["y"]})";

TEST_F(Commands, CompileIsTheDefaultCommand) {
  driver::ProcessResult a = staxc({"compile", sample("softmax.json"), "-o", path("a.cpp"), "--header", path("a.h")});
  ASSERT_EQ(a.exit_code, 0) << a.output;
  driver::ProcessResult b = staxc({sample("softmax.json"), "-o", path("b.cpp")});
  ASSERT_EQ(b.exit_code, 0) << b.output;
  EXPECT_EQ(driver::read_file(path("a.cpp")), driver::read_file(path("b.cpp")));
  EXPECT_TRUE(has(driver::read_file(path("a.cpp")), "int softmax_rows_run("));
  EXPECT_TRUE(has(driver::read_file(path("a.h")), "#define softmax_rows_WORKSPACE_SIZE"));
  // Nothing but the requested files.
  EXPECT_FALSE(fs::exists(path("a.cpp.tmp")));
}

TEST_F(Commands, NameAndDumpIr) {
  driver::ProcessResult r = staxc({sample("example_7_1.json"), "-o", path("k.cpp"), "--name", "ex71",
                                   "--dump-ir", path("k.ir")});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(has(driver::read_file(path("k.cpp")), "int ex71_run("));
  EXPECT_TRUE(has(driver::read_file(path("k.ir")), "reduction sum"));
  driver::ProcessResult bad = staxc({sample("example_7_1.json"), "-o", path("n.cpp"), "--name", "2fast"});
  EXPECT_EQ(bad.exit_code, 1) << bad.output;
  EXPECT_TRUE(has(bad.output, "staxc: error: model name '2fast'"));
  EXPECT_FALSE(fs::exists(path("n.cpp")));
}

TEST_F(Commands, InvalidGraphWritesNothing) {
  const std::string model = write_model("bad.json", R"({"format": "stax-graph", "version": 1, "name": "b",
    "inputs": [{"name": "x", "dtype": "float32", "shape": [3]}],
    "nodes": [{"name": "y", "op": "add", "args": ["x", "nope"]}], "outputs": ["y"]})");
  driver::ProcessResult r = staxc({model, "-o", path("bad.cpp"), "--header", path("bad.h")});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(has(r.output, "staxc: error: "));
  EXPECT_FALSE(fs::exists(path("bad.cpp")));
  EXPECT_FALSE(fs::exists(path("bad.h")));
}

TEST_F(Commands, RunWritesTheOutputsTheInterpreterWould) {
  Tensor x(DType::Float32, {16, 4});
  for (int64_t i = 0; i < x.numel(); ++i) x.set_double(i, 0.25 * static_cast<double>(i % 9) - 1.0);
  write_npy(path("x.npy"), x);
  driver::ProcessResult r = staxc({"run", sample("mlp.json"), "--input", "x=" + path("x.npy"),
                                   "--output-dir", path("gen"), kQuickFlags});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(has(r.output, "output y: float32[16, 4] -> "));
  driver::ProcessResult i = staxc({"interpret", sample("mlp.json"), "--input", "x=" + path("x.npy"),
                                   "--output-dir", path("ref")});
  ASSERT_EQ(i.exit_code, 0) << i.output;
  const Tensor got = read_npy(path("gen/y.npy")), expected = read_npy(path("ref/y.npy"));
  const driver::Comparison c = driver::compare_tensors(got, expected, driver::Tolerance{});
  EXPECT_TRUE(c.match) << driver::describe("y", expected, c);
  // The inputs used are written beside the outputs, as interpret does.
  EXPECT_TRUE(fs::exists(path("gen/inputs/x.npy")));
}

TEST_F(Commands, RunRejectsBadInputsNamingThem) {
  Tensor wrong(DType::Float64, {16, 4});
  write_npy(path("w.npy"), wrong);
  driver::ProcessResult r = staxc({"run", sample("mlp.json"), "--input", "x=" + path("w.npy"),
                                   "--output-dir", path("out"), kQuickFlags});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_TRUE(has(r.output, "input 'x'"));
  EXPECT_FALSE(fs::exists(path("out")));
  driver::ProcessResult missing = staxc({"run", sample("mlp.json"), "--input", "x=" + path("none.npy"),
                                         "--output-dir", path("out"), kQuickFlags});
  EXPECT_EQ(missing.exit_code, 1) << missing.output;
  EXPECT_TRUE(has(missing.output, "input 'x'"));
}

TEST_F(Commands, RunReportsDivisionByZeroAndWritesNothing) {
  const std::string model = write_model("dz.json", kDivByZero);
  driver::ProcessResult r = staxc({"run", model, "--output-dir", path("out"), kQuickFlags});
  EXPECT_EQ(r.exit_code, 3) << r.output;
  EXPECT_TRUE(has(r.output, "staxc: error: generated code of 'dz': integer division or remainder by zero"));
  EXPECT_FALSE(fs::exists(path("out/y.npy")));
}

TEST_F(Commands, RunReportsAnIndexOutOfRangeAndWritesNothing) {
  const std::string model = write_model("idx.json", kIndexError);
  driver::ProcessResult r = staxc({"run", model, "--output-dir", path("out"), kQuickFlags});
  EXPECT_EQ(r.exit_code, 3) << r.output;
  EXPECT_TRUE(has(r.output, "staxc: error: generated code of 'idx': index out of range (embedding, index_select or gather)"))
      << r.output;
  EXPECT_FALSE(fs::exists(path("out")));
  driver::ProcessResult i = staxc({"interpret", model, "--output-dir", path("out")});
  EXPECT_EQ(i.exit_code, 3) << i.output;
  EXPECT_TRUE(has(i.output, "node 'y' (embedding): index ")) << i.output;
  EXPECT_FALSE(fs::exists(path("out")));
  // check: both sides report it, as for a division by zero, so they agree.
  driver::ProcessResult c = staxc({"check", model, kQuickFlags});
  EXPECT_EQ(c.exit_code, 0) << c.output;
  EXPECT_TRUE(has(c.output, "both report a run-time error")) << c.output;
  EXPECT_TRUE(has(c.output, "generated code of 'idx': index out of range")) << c.output;
}

TEST_F(Commands, BuildFailureShowsTheCompilerMessages) {
  driver::ProcessResult r = staxc({"run", sample("softmax.json"), "--output-dir", path("out"),
                                   "--cxxflags=-std=c++17 -DSTAX_RT_CORE=1 -O0"});
  EXPECT_EQ(r.exit_code, 3) << r.output;
  EXPECT_TRUE(has(r.output, "error:"));  // the compiler's own messages
  EXPECT_TRUE(has(r.output, "staxc: error: the generated code failed to build"));
}

TEST_F(Commands, CheckComparesWithTheInterpreter) {
  driver::ProcessResult ok = staxc({"check", sample("softmax.json"), "--seed", "3", kQuickFlags});
  EXPECT_EQ(ok.exit_code, 0) << ok.output;
  EXPECT_TRUE(has(ok.output, "y: float32[64, 128] ok, max abs error"));
  // With no tolerance at all, float32 softmax differs from the double-precision reference.
  driver::ProcessResult strict = staxc({"check", sample("softmax.json"), "--seed", "3", "--rtol", "0",
                                        "--atol", "0", kQuickFlags});
  EXPECT_EQ(strict.exit_code, 3) << strict.output;
  EXPECT_TRUE(has(strict.output, "y: float32[64, 128] MISMATCH in "));
  EXPECT_TRUE(has(strict.output, "staxc: error: check failed"));
  driver::ProcessResult negative = staxc({"check", sample("softmax.json"), "--rtol", "-1"});
  EXPECT_EQ(negative.exit_code, 1) << negative.output;
}

TEST_F(Commands, CheckAgreesOnDivisionByZero) {
  const std::string model = write_model("dz.json", kDivByZero);
  driver::ProcessResult r = staxc({"check", model, kQuickFlags});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(has(r.output, "both report a run-time error"));
}

}  // namespace
}  // namespace stax::e2e
