// The C API's promise "Reentrant: calls may run at the same time on different buffers", tested
// under ThreadSanitizer: one model (softmax rows, a column reduction, a packed GEMM, a scan, a
// transposed copy: every parallel form) called from four threads at once, each on its own
// buffers, half of the calls with their own workspace and half allocating it, with OpenMP
// teams inside each call. Built with clang -fsanitize=thread and LLVM's OpenMP runtime, run with
// Archer (its OMPT tool, which tells TSan about OpenMP's synchronization). No race is reported
// and every thread's results are bit for bit those of a lone call on the same inputs. A second
// program, the same with one deliberate race, shows that TSan is really watching.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "stax/driver/compile.h"
#include "stax/driver/process.h"
#include "stax/graph/frontend.h"

namespace stax::e2e {
namespace {

namespace fs = std::filesystem;

const char* kModel = R"({"format": "stax-graph", "version": 1, "name": "tm",
 "inputs": [{"name": "x", "dtype": "float32", "shape": [256, 512]}, {"name": "w", "dtype": "float32", "shape": [512, 96]}],
 "nodes": [
   {"name": "s", "op": "softmax", "args": ["x"], "dim": -1},
   {"name": "c", "op": "sum", "args": [{"op": "exp", "args": [{"op": "tanh", "args": ["x"]}]}], "dim": 0},
   {"name": "p", "op": "matmul", "args": ["s", "w"]},
   {"name": "q", "op": "cumsum", "args": ["p"], "dim": 1},
   {"name": "t", "op": "add", "args": [{"op": "transpose", "args": ["x"], "dim0": 0, "dim1": 1}, 1.0]}],
 "outputs": ["s", "c", "q", "t"]})";

// Every thread's inputs differ (seeded by the thread); each thread's reference is a lone call
// made before any thread starts. Exit 0 when every concurrent result equals its reference.
const char* kMain = R"(#include "tm.h"
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

namespace {
struct Buffers { std::vector<std::vector<unsigned char>> in, out; };
std::size_t bytes_of(int nd, const int64_t* s) {
  std::size_t n = 4;  // every tensor of the model is float32
  for (int i = 0; i < nd; ++i) n *= static_cast<std::size_t>(s[i]);
  return n;
}
Buffers make(unsigned seed) {
  Buffers b;
  for (int i = 0; i < tm_num_inputs(); ++i) {
    std::vector<unsigned char> v(bytes_of(tm_input_ndim(i), tm_input_shape(i)));
    for (std::size_t k = 0; k < v.size() / 4; ++k) {
      seed = seed * 1103515245u + 12345u;
      float f = static_cast<float>((seed >> 8) % 2000) / 1000.0f - 1.0f;
      std::memcpy(v.data() + 4 * k, &f, 4);
    }
    b.in.push_back(v);
  }
  for (int o = 0; o < tm_num_outputs(); ++o) b.out.emplace_back(bytes_of(tm_output_ndim(o), tm_output_shape(o)), 0xff);
  return b;
}
int call(Buffers& b, bool own_workspace) {
  std::vector<const void*> in;
  std::vector<void*> out;
  for (auto& v : b.in) in.push_back(v.data());
  for (auto& v : b.out) out.push_back(v.data());
  void* ws = own_workspace ? std::aligned_alloc(64, (tm_workspace_size() + 64) / 64 * 64) : nullptr;
  int r = tm_run(in.data(), out.data(), ws);
  std::free(ws);
  return r;
}
#ifdef SELF_CHECK
int g_shared = 0;
#endif
}  // namespace

int main() {
  const int threads = 4, rounds = 3;
  std::vector<Buffers> ref, got;
  for (int t = 0; t < threads; ++t) {
    ref.push_back(make(t + 1));
    if (call(ref.back(), true) != STAX_OK) return 2;
    got.push_back(make(t + 1));
  }
  std::vector<int> bad(threads, 0);
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      for (int r = 0; r < rounds; ++r) {
#ifdef SELF_CHECK
        ++g_shared;
#endif
        for (auto& o : got[t].out) std::memset(o.data(), 0xff, o.size());
        if (call(got[t], (t + r) % 2 == 0) != STAX_OK) bad[t] = 1;
        for (std::size_t o = 0; o < got[t].out.size(); ++o)
          if (std::memcmp(got[t].out[o].data(), ref[t].out[o].data(), got[t].out[o].size()) != 0) bad[t] = 1;
      }
    });
  for (auto& th : pool) th.join();
  for (int t = 0; t < threads; ++t)
    if (bad[t]) { std::printf("thread %d: results differ from a lone call\n", t); return 1; }
  std::printf("%d threads x %d calls: same results as lone calls\n", threads, rounds);
  return 0;
}
)";

constexpr int kRaceExit = 66;

// Builds the model and the main into `exe` with ThreadSanitizer and libomp. (Without -Werror: clang
// warns about the runtime's unused inline math functions, which g++ does not.)
driver::ProcessResult build(const fs::path& dir, const std::string& exe, bool self_check) {
  std::vector<std::string> argv = {STAX_TSAN_CXX, "-std=c++17", "-O1", "-g", "-march=native",
                                   "-fsanitize=thread", "-fopenmp=libomp",
                                   (dir / "main.cpp").string(), (dir / "tm.cpp").string(), "-o", (dir / exe).string(), "-lsleef"};
  if (self_check) argv.insert(argv.begin() + 1, "-DSELF_CHECK");
  return driver::run_process(argv, dir / (exe + ".build.log"));
}

driver::ProcessResult run(const fs::path& dir, const std::string& exe) {
  return driver::run_process({"env", std::string("OMP_TOOL_LIBRARIES=") + STAX_ARCHER_LIBRARY, "OMP_NUM_THREADS=3",
                              "TSAN_OPTIONS=halt_on_error=1 exitcode=" + std::to_string(kRaceExit) +
                                  " ignore_noninstrumented_modules=1 second_deadlock_stack=1",
                              (dir / exe).string()},
                             dir / (exe + ".run.log"));
}

TEST(ThreadSafety, ConcurrentCallsAreRaceFreeUnderThreadSanitizer) {
  if (std::string(STAX_TSAN_CXX).empty() || std::string(STAX_ARCHER_LIBRARY).empty())
    GTEST_SKIP() << "needs clang++ and LLVM's OpenMP with Archer (libomp-dev; scripts/setup.sh installs them)";
  driver::TempDir tmp;
  const fs::path& d = tmp.path();
  driver::CompileOptions opts;
  opts.name = "tm";
  driver::CompiledModel m = driver::compile_graph(graph::parse_graph(kModel), opts);
  driver::write_generated(m.code, d / "tm.cpp", d / "tm.h");
  driver::write_file_atomic(d / "main.cpp", kMain);

  driver::ProcessResult b = build(d, "threads", false);
  ASSERT_EQ(b.exit_code, 0) << b.output;
  driver::ProcessResult r = run(d, "threads");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output.find("ThreadSanitizer"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("4 threads x 3 calls: same results as lone calls"), std::string::npos) << r.output;

  // The same program with an unsynchronized counter: TSan must see it.
  driver::ProcessResult bs = build(d, "racy", true);
  ASSERT_EQ(bs.exit_code, 0) << bs.output;
  driver::ProcessResult rs = run(d, "racy");
  EXPECT_EQ(rs.exit_code, kRaceExit) << rs.output;
  EXPECT_NE(rs.output.find("WARNING: ThreadSanitizer: data race"), std::string::npos) << rs.output;
}

}  // namespace
}  // namespace stax::e2e
