// staxc in a build and in CI: --check (golden files), --depfile, --time-passes, the pictures
// and --log-level, through the built binary.
#include <filesystem>
#include <fstream>
#include <string>

#include "cli_fixture.h"

namespace stax::testing {
namespace {

namespace fs = std::filesystem;

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void spit(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}

const std::string kSample = std::string(STAX_SOURCE_DIR) + "/samples/example_7_1.json";

class StaxcBuildTest : public StaxcTest {
 protected:
  // Writes OUT.cpp and OUT.h for the sample (scalar: the same on every machine).
  void generate() {
    ProcessResult r = staxc({kSample, "-o", path("m.cpp"), "--header", path("m.h"), "--isa", "scalar"});
    ASSERT_EQ(r.status, 0) << r.err;
  }
  ProcessResult check(bool header = true) {
    std::vector<std::string> args{kSample, "-o", path("m.cpp"), "--isa", "scalar", "--check"};
    if (header) args.insert(args.end(), {"--header", path("m.h")});
    return staxc(args);
  }
};

TEST_F(StaxcBuildTest, CheckPassesOnUpToDateFilesAndWritesNothing) {
  generate();
  auto before = fs::last_write_time(path("m.cpp"));
  ProcessResult r = check();
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(fs::last_write_time(path("m.cpp")), before);
  // Only the two files: no temporary left behind.
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()), 2 + runs_);
}

TEST_F(StaxcBuildTest, CheckReportsAStaleSourceWithItsFirstDifferingLines) {
  generate();
  std::string text = slurp(path("m.cpp"));
  std::size_t at = text.find("kernel_op0_op1");
  ASSERT_NE(at, std::string::npos);
  std::string stale = text;
  stale.replace(at, 14, "kernel_renamed");
  spit(path("m.cpp"), stale);
  ProcessResult r = check();
  EXPECT_EQ(r.status, 1);
  int line = 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(at), '\n'));
  EXPECT_TRUE(contains(r.err, "--- " + path("m.cpp") + " (on disk")) << r.err;
  EXPECT_TRUE(contains(r.err, "+++ " + path("m.cpp") + " (staxc")) << r.err;
  EXPECT_TRUE(contains(r.err, "@@ line " + std::to_string(line) + " @@")) << r.err;
  EXPECT_TRUE(contains(r.err, "-") && contains(r.err, "kernel_renamed")) << r.err;
  EXPECT_TRUE(contains(r.err, "staxc: error: --check: not what staxc writes: " + path("m.cpp") + " (run")) << r.err;
  EXPECT_FALSE(contains(r.err, "m.h (on disk")) << r.err;
  EXPECT_EQ(slurp(path("m.cpp")), stale);  // left as it was
}

TEST_F(StaxcBuildTest, CheckReportsAMissingFile) {
  ProcessResult r = check(false);
  EXPECT_EQ(r.status, 1);
  EXPECT_TRUE(contains(r.err, path("m.cpp") + ": missing (staxc would write ")) << r.err;
  EXPECT_FALSE(fs::exists(path("m.cpp")));
}

TEST_F(StaxcBuildTest, CheckComparesTheHeaderToo) {
  generate();
  spit(path("m.h"), slurp(path("m.h")) + "// edited\n");
  ProcessResult r = check();
  EXPECT_EQ(r.status, 1);
  EXPECT_TRUE(contains(r.err, "--- " + path("m.h") + " (on disk")) << r.err;
  EXPECT_TRUE(contains(r.err, "-// edited")) << r.err;
  EXPECT_TRUE(contains(r.err, "not what staxc writes: " + path("m.h") + " (")) << r.err;
  // Without --header the header is not compared: the source alone is up to date.
  EXPECT_EQ(check(false).status, 0);
  // Another --isa writes another file: stale.
  ProcessResult avx2 = staxc({kSample, "-o", path("m.cpp"), "--isa", "avx2", "--check"});
  EXPECT_EQ(avx2.status, 1);
}

TEST_F(StaxcBuildTest, CheckWritesNoOtherFile) {
  generate();
  ProcessResult r = staxc({kSample, "-o", path("m.cpp"), "--check", "--depfile", path("m.d")});
  EXPECT_TRUE(is_error_line(r.err, "--check writes nothing: it does not go with --depfile")) << r.err;
  EXPECT_EQ(r.status, 1);
  EXPECT_FALSE(fs::exists(path("m.d")));
}

TEST_F(StaxcBuildTest, DepfileNamesTheModelItsConstantFilesAndStaxc) {
  // A graph whose constant lives in a file, in a folder with a space in its name.
  fs::create_directories(path("my model"));
  float w[4] = {1, 2, 3, 4};
  std::ofstream(path("my model/w.bin"), std::ios::binary).write(reinterpret_cast<const char*>(w), sizeof w);
  spit(path("my model/g.json"),
       R"({"format": "stax-graph", "version": 1, "name": "g",
           "inputs": [{"name": "x", "dtype": "float32", "shape": [4]}],
           "constants": [{"name": "w", "dtype": "float32", "shape": [4], "file": "w.bin"}],
           "nodes": [{"name": "y", "op": "mul", "args": ["x", "w"]}], "outputs": ["y"]})");
  ProcessResult r = staxc({path("my model/g.json"), "-o", path("g.cpp"), "--header", path("g.h"), "--depfile", path("g.d")});
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string d = slurp(path("g.d"));
  auto esc = [](std::string s) {
    std::string out;
    for (char c : s) out += c == ' ' ? std::string("\\ ") : std::string(1, c);
    return out;
  };
  EXPECT_EQ(d.substr(0, d.find(':')), path("g.cpp") + " " + path("g.h")) << d;
  EXPECT_TRUE(contains(d, " \\\n  " + esc(path("my model/g.json")) + " \\\n")) << d;
  EXPECT_TRUE(contains(d, " \\\n  " + esc(path("my model/w.bin")) + " \\\n")) << d;
  EXPECT_TRUE(contains(d, " \\\n  " + fs::canonical(STAXC_PATH).string() + "\n")) << d;
  EXPECT_EQ(d.back(), '\n');
}

TEST_F(StaxcBuildTest, DepfileNeedsAnOutputFile) {
  ProcessResult r = staxc({kSample, "-o", "-", "--depfile", path("m.d")});
  EXPECT_EQ(r.status, 1);
  EXPECT_TRUE(is_error_line(r.err, "--depfile needs an output file")) << r.err;
  EXPECT_EQ(r.out, "");
}

TEST_F(StaxcBuildTest, TimePassesPrintsEveryStage) {
  ProcessResult r = staxc({kSample, "-o", path("m.cpp"), "--time-passes"});
  ASSERT_EQ(r.status, 0) << r.err;
  for (const char* pass : {"staxc pass timings: ", "wall (s)", "peak memory", "MiB", "   load\n",
                           "   expand composites\n", "   lower\n", "   schedule\n", "   plan locals\n",
                           "   plan memory\n", "   plan kernels\n", "   emit\n", "   write\n", "   total\n"})
    EXPECT_TRUE(contains(r.err, pass)) << pass << "\n" << r.err;
  EXPECT_TRUE(fs::exists(path("m.cpp")));
}

TEST_F(StaxcBuildTest, PicturesAreWritten) {
  ProcessResult r = staxc({kSample, "-o", path("m.cpp"), "--svg-schedule", path("s.svg"), "--svg-memory",
                           path("m.svg"), "--dot", path("s.dot")});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(contains(slurp(path("s.svg")), "op0_op1")) << slurp(path("s.svg"));
  EXPECT_TRUE(contains(slurp(path("m.svg")), "</svg>"));
  EXPECT_TRUE(contains(slurp(path("s.dot")), "digraph \"example_7_1\""));
}

TEST_F(StaxcBuildTest, LogLevelShowsOrSilencesLogs) {
  ProcessResult debug = staxc({kSample, "-o", path("m.cpp"), "--log-level", "debug"});
  ASSERT_EQ(debug.status, 0) << debug.err;
  EXPECT_TRUE(contains(debug.err, "staxc: debug: scheduled: 1 kernels")) << debug.err;
  ProcessResult quiet = staxc({"compile", kSample, "-o", path("m.cpp"), "--log", "memory", "--log-level", "warn"});
  EXPECT_EQ(quiet.status, 0);
  EXPECT_EQ(quiet.err, "");
  ProcessResult topics = staxc({kSample, "-o", path("m.cpp"), "--log", "memory"});
  EXPECT_TRUE(contains(topics.err, "M*")) << topics.err;
  ProcessResult bad = staxc({kSample, "-o", path("m.cpp"), "--log-level", "loud"});
  EXPECT_EQ(bad.status, 1);
}

}  // namespace
}  // namespace stax::testing
