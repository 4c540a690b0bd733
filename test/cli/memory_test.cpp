// --dump-memory FILE.json and --log memory on the commands that generate code: the workspace plan
// (design.md, "Memory") as a file and as a summary on stderr.
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include "cli_fixture.h"

namespace stax::testing {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

std::string sample(const std::string& name) { return std::string(STAX_SOURCE_DIR) + "/samples/" + name; }

TEST_F(StaxcTest, DumpMemoryWritesThePlanAsDocumented) {
  ProcessResult r = staxc({sample("mlp.json"), "-o", path("mlp.cpp"), "--dump-memory", path("mlp.memory.json")});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err, "");
  const Json j = Json::parse(slurp(dir_ / "mlp.memory.json"));
  EXPECT_EQ(j["format"], "stax-memory-plan");
  EXPECT_EQ(j["version"], 1);

  // The order: the chosen strategy is one of the four candidates, and its peak is M*.
  const Json& order = j["order"];
  ASSERT_EQ(order["candidates"].size(), 4u);
  std::set<std::string> strategies;
  std::uint64_t chosen_peak = 0;
  for (const Json& c : order["candidates"]) {
    strategies.insert(c["strategy"].get<std::string>());
    if (c["strategy"] == order["chosen"]) chosen_peak = c["peak"].get<std::uint64_t>();
    EXPECT_GE(c["peak"].get<std::uint64_t>(), j["m_star"].get<std::uint64_t>()) << c;
  }
  EXPECT_EQ(strategies, (std::set<std::string>{"original", "least-increase", "breadth-first", "depth-first"}));
  EXPECT_EQ(chosen_peak, j["m_star"].get<std::uint64_t>());
  EXPECT_FALSE(order["steps"].empty());

  // The buffers: x (input), the intermediates, y (output); every intermediate aligned inside the
  // arena, and their sizes add up to the sum the dump reports.
  const std::uint64_t arena = j["arena"]["size"].get<std::uint64_t>();
  const std::uint64_t alignment = j["arena"]["alignment"].get<std::uint64_t>();
  EXPECT_EQ(alignment, 64u);
  EXPECT_LE(arena, j["sum_intermediates_aligned"].get<std::uint64_t>());
  EXPECT_LE(static_cast<double>(arena), 1.1 * j["m_star"].get<double>());
  std::uint64_t sum = 0;
  int intermediates = 0, inputs = 0, outputs = 0;
  for (const Json& b : j["buffers"]) {
    ASSERT_TRUE(b.contains("name") && b.contains("dtype") && b.contains("bytes")) << b;
    ASSERT_EQ(b["lifetime"].size(), 2u) << b;
    const std::string role = b["role"];
    if (role == "input") ++inputs;
    if (role == "output") ++outputs;
    if (role != "intermediate") {
      EXPECT_FALSE(b.contains("offset")) << b;
      continue;
    }
    ++intermediates;
    const std::uint64_t offset = b["offset"].get<std::uint64_t>();
    const std::uint64_t bytes = b["bytes"].get<std::uint64_t>();
    sum += bytes;
    EXPECT_EQ(offset % alignment, 0u) << b;
    EXPECT_LE(offset + bytes, arena) << b;
    EXPECT_LE(b["lifetime"][0].get<int>(), b["lifetime"][1].get<int>()) << b;
    const std::set<std::string> placements{"fresh", "reuse", "in-place"};
    EXPECT_TRUE(placements.count(b["placement"].get<std::string>())) << b;
  }
  EXPECT_EQ(inputs, 1);  // x; the weights are constants
  EXPECT_EQ(outputs, 1);
  EXPECT_GE(intermediates, 1);  // h, a (and the matmul's result before its bias) as the kernels keep them
  EXPECT_EQ(sum, j["sum_intermediates"].get<std::uint64_t>());
  EXPECT_TRUE(j["storages"].is_array() && j["inplace"].is_array() && j["reuse"].contains("taken"));

  // Deterministic: the same graph and options give the same bytes.
  ProcessResult again = staxc({sample("mlp.json"), "-o", path("again.cpp"), "--dump-memory", path("again.json")});
  ASSERT_EQ(again.status, 0) << again.err;
  EXPECT_EQ(slurp(dir_ / "again.json"), slurp(dir_ / "mlp.memory.json"));
}

TEST_F(StaxcTest, LogMemoryPrintsTheSummaryOfTheDumpedPlan) {
  ProcessResult r = staxc({"compile", sample("mlp.json"), "-o", path("mlp.cpp"), "--log", "memory", "--dump-memory",
                           path("mlp.memory.json")});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "");
  const Json j = Json::parse(slurp(dir_ / "mlp.memory.json"));
  const std::string chosen = j["order"]["chosen"];
  EXPECT_EQ(r.err.rfind("memory: order " + chosen + " (peaks: original ", 0), 0u) << r.err;
  EXPECT_TRUE(contains(r.err, "memory: M* " + std::to_string(j["m_star"].get<std::uint64_t>()) + " B, arena " +
                                  std::to_string(j["arena"]["size"].get<std::uint64_t>()) + " B by "))
      << r.err;
  EXPECT_TRUE(contains(r.err, " intermediates of " + std::to_string(j["sum_intermediates"].get<std::uint64_t>()) +
                                  " B in "))
      << r.err;
  for (const char* part : {"arena/M* ", " reused, ", " in place, ", "memory:   "})
    EXPECT_TRUE(contains(r.err, part)) << part << "\n" << r.err;
  // Every line of the log is a memory line.
  std::size_t start = 0;
  while (start < r.err.size()) {
    const std::size_t end = r.err.find('\n', start);
    ASSERT_NE(end, std::string::npos) << r.err;
    EXPECT_EQ(r.err.compare(start, 8, "memory: "), 0) << r.err.substr(start, end - start);
    start = end + 1;
  }

  // Without --log nothing is printed; with both topics both logs are.
  ProcessResult quiet = staxc({sample("mlp.json"), "-o", path("q.cpp")});
  ASSERT_EQ(quiet.status, 0) << quiet.err;
  EXPECT_EQ(quiet.err, "");
  for (const std::vector<std::string>& topics :
       {std::vector<std::string>{"--log", "fusion", "--log", "memory"}, std::vector<std::string>{"--log", "fusion,memory"}}) {
    std::vector<std::string> args{sample("mlp.json"), "-o", path("both.cpp")};
    args.insert(args.end(), topics.begin(), topics.end());
    ProcessResult both = staxc(args);
    ASSERT_EQ(both.status, 0) << both.err;
    EXPECT_TRUE(contains(both.err, "===== fusion round 1/")) << both.err;
    EXPECT_TRUE(contains(both.err, "memory: M* ")) << both.err;
    // The scheduler logs before code generation, the plan after it.
    EXPECT_LT(both.err.find("===== fusion round"), both.err.find("memory: order ")) << both.err;
  }
  ProcessResult bad = staxc({sample("mlp.json"), "-o", path("bad.cpp"), "--log", "memroy"});
  EXPECT_EQ(bad.status, 1);
  EXPECT_TRUE(is_error_line(bad.err, "memroy"));
  EXPECT_FALSE(fs::exists(dir_ / "bad.cpp"));
}

// An invalid graph writes no plan and logs none, whichever command generates the code.
TEST_F(StaxcTest, NoPlanForAnInvalidGraph) {
  const std::string bad = data("bad_broadcast.json");
  const std::vector<std::vector<std::string>> commands = {
      {"compile", bad, "-o", path("m.cpp")},
      {"run", bad, "--output-dir", path("o")},
      {"check", bad},
      {"bench", bad},
  };
  for (std::vector<std::string> args : commands) {
    args.insert(args.end(), {"--dump-memory", path("m.memory.json"), "--log", "memory"});
    ProcessResult r = staxc(args);
    EXPECT_EQ(r.status, 2) << args[0] << "\n" << r.err;
    EXPECT_TRUE(is_error_line(r.err, "nodes[0]")) << args[0];
    EXPECT_FALSE(fs::exists(dir_ / "m.memory.json")) << args[0];
    EXPECT_FALSE(fs::exists(dir_ / "m.cpp"));
    EXPECT_FALSE(fs::exists(dir_ / "o"));
  }
}

// check and bench (and run, which shares their options and compile step) take the options too:
// the plan of the code they build and run, and bench's only (not that of its overhead graph).
TEST_F(StaxcTest, CheckAndBenchDumpAndLogThePlanOfTheCodeTheyRun) {
  ProcessResult r =
      staxc({"check", sample("mlp.json"), "--dump-memory", path("mlp.memory.json"), "--log", "memory"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "y")) << r.out;
  EXPECT_EQ(r.err.rfind("memory: order ", 0), 0u) << r.err;
  const Json j = Json::parse(slurp(dir_ / "mlp.memory.json"));
  EXPECT_EQ(j["format"], "stax-memory-plan");
  ProcessResult compiled = staxc({sample("mlp.json"), "-o", path("mlp.cpp"), "--dump-memory", path("compile.json")});
  ASSERT_EQ(compiled.status, 0) << compiled.err;
  EXPECT_EQ(slurp(dir_ / "compile.json"), slurp(dir_ / "mlp.memory.json"));

  ProcessResult bench = staxc({"bench", sample("mlp.json"), "--reps", "1", "--warmup", "0", "--threads", "1",
                               "--dump-memory", path("bench.json"), "--log", "memory"});
  ASSERT_EQ(bench.status, 0) << bench.err;
  EXPECT_EQ(slurp(dir_ / "bench.json"), slurp(dir_ / "compile.json"));
  EXPECT_EQ(bench.err.rfind("memory: order ", 0), 0u) << bench.err;
  EXPECT_EQ(bench.err.find("memory: order ", 1), std::string::npos) << "logged twice:\n" << bench.err;
}

TEST_F(StaxcTest, HelpOfEveryGeneratingCommandShowsTheMemoryOptions) {
  for (const char* command : {"compile", "run", "check", "bench"}) {
    ProcessResult r = staxc({command, "--help"});
    EXPECT_EQ(r.status, 0) << command;
    for (const char* part : {"--dump-memory FILE.json", "'memory': the workspace plan", "M*"})
      EXPECT_TRUE(contains(r.out, part)) << command << ": " << part << "\n" << r.out;
  }
}

}  // namespace
}  // namespace stax::testing
