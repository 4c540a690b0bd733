// Golden generated code (test/golden/code): the .cpp of every sample and benchmark graph with
// the default options, one sample with each --isa, and the kernel plans of examples 7.1, 7.2 and
// the transpose-add. A change to what staxc emits is then a diff someone reviews. The files are
// generated, never edited by hand: scripts/update_golden.sh rewrites them
// (STAX_UPDATE_GOLDEN=1) and shows the diff.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "stax/driver/compile.h"
#include "stax/kernelplan/dump.h"

namespace stax::codegen {
namespace {

namespace fs = std::filesystem;

const fs::path kSamples = fs::path(STAX_SOURCE_DIR) / "samples";
const fs::path kGolden = fs::path(STAX_SOURCE_DIR) / "test" / "golden" / "code";

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

bool updating() {
  const char* v = std::getenv("STAX_UPDATE_GOLDEN");
  return v != nullptr && std::string(v) == "1";
}

void check_golden(const std::string& name, const std::string& actual) {
  const fs::path file = kGolden / name;
  if (updating()) {
    fs::create_directories(kGolden);
    std::ofstream(file, std::ios::binary) << actual;
    std::cout << "updated " << file.string() << "\n";
    return;
  }
  ASSERT_TRUE(fs::exists(file)) << file << " is missing: run scripts/update_golden.sh";
  EXPECT_TRUE(read_text(file) == actual) << "golden file " << file
                                         << " differs; if the change is intended, run scripts/update_golden.sh and "
                                            "review the diff";
}

// Every graph under samples/ (samples/bench/x.json as bench_x).
std::vector<std::pair<std::string, fs::path>> sample_graphs() {
  std::vector<std::pair<std::string, fs::path>> out;
  for (const auto& [dir, prefix] : {std::pair{kSamples, std::string()}, std::pair{kSamples / "bench", std::string("bench_")}})
    for (const auto& e : fs::directory_iterator(dir))
      if (e.path().extension() == ".json") out.emplace_back(prefix + e.path().stem().string(), e.path());
  std::sort(out.begin(), out.end());
  return out;
}

driver::CompiledModel compile(const fs::path& graph, const std::string& isa) {
  driver::CompileOptions o;
  o.isa = *IsaTarget::parse(isa);
  return driver::compile_model(graph, o);
}

TEST(GoldenCode, EverySampleWithTheDefaultOptions) {
  const auto graphs = sample_graphs();
  ASSERT_GE(graphs.size(), 14u);
  for (const auto& [name, path] : graphs) {
    SCOPED_TRACE(name);
    const driver::CompiledModel m = compile(path, "native");
    check_golden(name + ".cpp", m.code.source);
    check_golden(name + ".h", m.code.header);
  }
}

TEST(GoldenCode, OneSampleWithEveryIsa) {
  for (const std::string& isa : isa_target_names()) {
    if (isa == "native") continue;
    SCOPED_TRACE(isa);
    check_golden("softmax." + isa + ".cpp", compile(kSamples / "softmax.json", isa).code.source);
  }
}

TEST(GoldenCode, KernelPlansOfTheChaptersExamplesAndATransposeAdd) {
  for (const auto& [name, path] : {std::pair{std::string("example_7_1"), kSamples / "example_7_1.json"},
                                  std::pair{std::string("example_7_2"), kSamples / "example_7_2.json"},
                                  std::pair{std::string("bench_transpose_add"), kSamples / "bench" / "transpose_add.json"}}) {
    SCOPED_TRACE(name);
    const driver::CompiledModel m = compile(path, "avx2");
    check_golden(name + ".kernel_plan.json", kernelplan::dump_kernel_plan_json(m.kernels, m.program, m.schedule));
    check_golden(name + ".kernels.log", kernelplan::kernel_plan_log(m.kernels.front(), m.program));
  }
}

}  // namespace
}  // namespace stax::codegen
