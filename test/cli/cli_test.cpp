// The staxc command line as a user meets it: help, version, usage errors, validate, and the
// default command.
#include <filesystem>
#include <fstream>
#include <string>

#include "cli_fixture.h"

namespace stax::testing {
namespace {

namespace fs = std::filesystem;

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

bool has_compile_command(ProcessResult help) {
  return contains(help.out, "\n  compile ");
}

TEST_F(StaxcTest, Version) {
  ProcessResult r = staxc({"--version"});
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.out, "staxc " STAX_TEST_VERSION "\n");
  EXPECT_EQ(r.err, "");
}

TEST_F(StaxcTest, HelpListsEveryCommandWithExamplesAndExitCodes) {
  ProcessResult r = staxc({"--help"});
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.err, "");
  for (const char* part : {"Usage: staxc", "validate", "interpret", "--version", "Examples:",
                           "staxc validate samples/softmax.json",
                           "staxc interpret samples/softmax.json --output-dir out/softmax",
                           "Exit status: 0 success; 1 usage or I/O error", "2 invalid graph",
                           "3 run-time failure", "a check mismatch", "4 internal error"})
    EXPECT_TRUE(contains(r.out, part)) << part << "\n" << r.out;
  EXPECT_EQ(staxc({"-h"}).out, r.out);
}

TEST_F(StaxcTest, CommandHelp) {
  ProcessResult interpret = staxc({"interpret", "--help"});
  EXPECT_EQ(interpret.status, 0);
  for (const char* part : {"MODEL.json", "--input", "NAME=FILE.npy", "--seed", "--output-dir",
                           "DIR/inputs/NAME.npy", "Examples:", "--input x=x.npy"})
    EXPECT_TRUE(contains(interpret.out, part)) << part << "\n" << interpret.out;
  ProcessResult validate = staxc({"validate", "--help"});
  EXPECT_EQ(validate.status, 0);
  EXPECT_TRUE(contains(validate.out, "staxc validate samples/softmax.json")) << validate.out;
  ProcessResult all = staxc({"--help-all"});
  EXPECT_EQ(all.status, 0);
  EXPECT_TRUE(contains(all.out, "--output-dir")) << all.out;
}

TEST_F(StaxcTest, NoArguments) {
  ProcessResult r = staxc({});
  EXPECT_EQ(r.status, 1);
  EXPECT_TRUE(is_error_line(r.err, "no command given (run 'staxc --help')"));
  EXPECT_EQ(r.out, "");
}

TEST_F(StaxcTest, UsageErrorsExitWithOne) {
  struct Case { std::vector<std::string> args; std::string fragment; };
  std::string model = data("add.json");
  const Case cases[] = {
      {{"--frobnicate", data("add.json")}, "unknown option '--frobnicate' (run 'staxc --help')"},
      {{"validate", data("add.json"), "--frobnicate"}, "--frobnicate"},
      {{"interpret", model, "--output-dir", path("o"), "--seed", "1.5"}, "expected a non-negative integer, got '1.5'"},
      {{"interpret", model}, "--output-dir is required (run 'staxc interpret --help')"},
      {{"interpret", "--output-dir", path("o")}, "MODEL is required"},
      {{"interpret", model, "--output-dir", path("o"), "--seed", "abc"}, "expected a non-negative integer, got 'abc'"},
      {{"interpret", model, "--output-dir", path("o"), "--seed", "-1"}, "expected a non-negative integer, got '-1'"},
      {{"interpret", model, "--output-dir", path("o"), "--seed", "18446744073709551616"},
       "'18446744073709551616' is larger than the largest seed, 18446744073709551615"},
      {{"interpret", model, "--output-dir", path("o"), "--bogus"}, "--bogus"},
      {{"interpret", model, "--output-dir", path("o"), "--input", "x"}, "--input 'x': expected NAME=FILE.npy"},
      {{"interpret", model, "--output-dir", path("o"), "--input", "=x.npy"}, "expected NAME=FILE.npy"},
      {{"interpret", model, "extra.json", "--output-dir", path("o")}, "extra.json"},
      {{"validate"}, "MODEL is required (run 'staxc validate --help')"},
      {{"validate", path("missing.json")}, path("missing.json") + ": no such file"},
      {{"validate", dir_.string()}, ": is a directory, not a model file"},
      {{"interpret", path("missing.json"), "--output-dir", path("o")}, "missing.json: no such file"},
  };
  for (const Case& c : cases) {
    ProcessResult r = staxc(c.args);
    EXPECT_EQ(r.status, 1) << c.fragment << "\n" << r.err;
    EXPECT_TRUE(is_error_line(r.err, c.fragment));
    EXPECT_EQ(r.out, "");
  }
  EXPECT_FALSE(fs::exists(dir_ / "o"));
}

TEST_F(StaxcTest, ValidatePrintsTheSignature) {
  ProcessResult r = staxc({"validate", data("add.json")});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err, "");
  for (const char* part : {"x: float32[2, 3]", "y: float32[3]", "z: float32[2, 3]"})
    EXPECT_TRUE(contains(r.out, part)) << part << "\n" << r.out;
  ProcessResult all = staxc({"validate", data("all_dtypes.json")});
  EXPECT_EQ(all.status, 0) << all.err;
  for (const char* part : {"d: float64[4]", "i: int32[5]", "l: int64[2, 2]", "b: bool[3]", "s: float32[]"})
    EXPECT_TRUE(contains(all.out, part)) << part << "\n" << all.out;
}

TEST_F(StaxcTest, ValidateEverySample) {
  fs::path samples = fs::path(STAX_SOURCE_DIR) / "samples";
  int count = 0;
  for (const auto& e : fs::directory_iterator(samples)) {
    if (e.path().extension() != ".json") continue;
    ++count;
    ProcessResult r = staxc({"validate", e.path().string()});
    EXPECT_EQ(r.status, 0) << e.path() << "\n" << r.err;
    EXPECT_FALSE(r.out.empty()) << e.path();
  }
  EXPECT_TRUE(fs::exists(samples / "softmax.json"));
  EXPECT_GE(count, 1);
}

TEST_F(StaxcTest, InvalidGraphsExitWithTwo) {
  struct Case { const char* file; const char* fragment; };
  for (Case c : {Case{"bad_broadcast.json", "nodes[0]"}, Case{"unknown_op.json", "frobnicate"},
                 Case{"not_json.json", "line"}}) {
    ProcessResult v = staxc({"validate", data(c.file)});
    EXPECT_EQ(v.status, 2) << c.file << "\n" << v.err;
    EXPECT_TRUE(is_error_line(v.err, c.fragment)) << c.file;
    EXPECT_EQ(v.out, "");
    ProcessResult i = staxc({"interpret", data(c.file), "--output-dir", path("o")});
    EXPECT_EQ(i.status, 2) << c.file << "\n" << i.err;
    EXPECT_TRUE(is_error_line(i.err, c.fragment)) << c.file;
    EXPECT_FALSE(fs::exists(dir_ / "o")) << c.file;
  }
}

TEST_F(StaxcTest, DefaultCommandIsCompile) {
  ProcessResult help = staxc({"--help"});
  if (!has_compile_command(help)) {
    // Until a compile command exists, a model as first word is an unknown command.
    ProcessResult r = staxc({data("add.json"), "-o", path("k.cpp")});
    EXPECT_EQ(r.status, 1);
    EXPECT_TRUE(is_error_line(r.err, "unknown command '" + data("add.json") + "' (commands: validate, interpret"));
    EXPECT_FALSE(fs::exists(dir_ / "k.cpp"));
    return;
  }
  EXPECT_TRUE(contains(help.out, "The default command is 'compile'")) << help.out;
  ProcessResult implicit = staxc({data("add.json"), "-o", path("a.cpp")});
  EXPECT_EQ(implicit.status, 0) << implicit.err;
  ProcessResult explicit_ = staxc({"compile", data("add.json"), "-o", path("b.cpp")});
  EXPECT_EQ(explicit_.status, 0) << explicit_.err;
  ProcessResult options_first = staxc({"-o", path("c.cpp"), data("add.json")});
  EXPECT_EQ(options_first.status, 0) << options_first.err;
  auto slurp = [](const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  };
  std::string a = slurp(dir_ / "a.cpp");
  EXPECT_FALSE(a.empty());
  EXPECT_EQ(a, slurp(dir_ / "b.cpp"));
  EXPECT_EQ(a, slurp(dir_ / "c.cpp"));
  // The default command's help is compile's.
  ProcessResult compile_help = staxc({data("add.json"), "--help"});
  EXPECT_EQ(compile_help.status, 0);
  EXPECT_EQ(compile_help.out, staxc({"compile", "--help"}).out);
  // An invalid graph through the default command.
  ProcessResult bad = staxc({data("bad_broadcast.json"), "-o", path("bad.cpp")});
  EXPECT_EQ(bad.status, 2);
  EXPECT_FALSE(fs::exists(dir_ / "bad.cpp"));
}

}  // namespace
}  // namespace stax::testing
