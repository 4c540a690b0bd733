// Generated code indexes correctly past 2^31 elements: a bool input of 2^31 + 64 elements (2 GiB,
// zero pages from calloc but for a few bytes set on purpose) read through a slice past 2^31, a
// reduction over all of it, and a transposed view of a reshape whose last row lies past 2^31.
// A 32-bit index anywhere would wrap to a negative offset or to the start of the buffer.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "stax/driver/compile.h"
#include "stax/driver/process.h"
#include "stax/graph/frontend.h"

namespace stax::e2e {
namespace {

namespace fs = std::filesystem;

// 2147483712 = 2^31 + 64 = 33 * 65075264.
const char* kModel = R"({"format": "stax-graph", "version": 1, "name": "big",
  "inputs": [{"name": "x", "dtype": "bool", "shape": [2147483712]}],
  "nodes": [
    {"name": "tail", "op": "to", "args": [{"op": "slice", "args": ["x"], "dim": 0, "start": 2147483648}], "dtype": "int32"},
    {"name": "count", "op": "sum", "args": ["x"]},
    {"name": "last", "op": "to", "dtype": "int32", "args": [
      {"op": "select", "dim": 0, "index": -1, "args": [
        {"op": "transpose", "dim0": 0, "dim1": 1, "args": [{"op": "reshape", "args": ["x"], "shape": [33, 65075264]}]}]}]}],
  "outputs": ["tail", "count", "last"]})";

const char* kMain = R"cxx(#include "big.h"
#include <cstdint>
#include <cstdio>
#include <cstdlib>

int main() {
  const int64_t n = 2147483712, cols = 65075264;
  unsigned char* x = static_cast<unsigned char*>(std::calloc(static_cast<size_t>(n), 1));
  if (!x) return 2;
  int64_t expected_count = 0;
  auto set = [&](int64_t i) { if (!x[i]) { x[i] = 1; ++expected_count; } };
  for (int64_t i = 0; i < 64; ++i) if (i % 3 == 0) set(2147483648 + i);
  for (int64_t k = 1; k < 33; k += 2) set(k * cols + cols - 1);  // k = 31, 32: past 2^31
  set(2147483647);
  set(0);
  int32_t tail[64];
  int64_t count = -1;
  int32_t last[33];
  const void* in[1] = {x};
  void* out[3] = {tail, &count, last};
  int rc = big_run(in, out, nullptr);
  if (rc != STAX_OK) { std::printf("error %d\n", rc); return 3; }
  int bad = 0;
  // The last element (2^31 + 63) is set by the first loop too: last[32] is 1.
  for (int64_t i = 0; i < 64; ++i) if (tail[i] != (i % 3 == 0)) { std::printf("tail[%lld] = %d\n", (long long)i, tail[i]); ++bad; }
  for (int64_t k = 0; k < 33; ++k) if (last[k] != (k % 2 == 1 || k == 32)) { std::printf("last[%lld] = %d\n", (long long)k, last[k]); ++bad; }
  if (count != expected_count) { std::printf("count = %lld, expected %lld\n", (long long)count, (long long)expected_count); ++bad; }
  std::printf("checked: %d wrong\n", bad);
  std::free(x);
  return bad == 0 ? 0 : 1;
}
)cxx";

TEST(LargeIndex, PastTwoToTheThirtyOneElements) {
  driver::TempDir tmp;
  const fs::path& d = tmp.path();
  driver::CompiledModel m = driver::compile_graph(graph::parse_graph(kModel));
  driver::write_generated(m.code, d / "big.cpp", d / "big.h");
  driver::write_file_atomic(d / "main.cpp", kMain);
  driver::ProcessResult b = driver::run_process({"g++", "-std=c++17", "-O1", "-march=native", "-fopenmp", "-Wall", "-Wextra", "-Werror",
                                                 (d / "main.cpp").string(), (d / "big.cpp").string(), "-o", (d / "big").string(), "-lsleef"},
                                                d / "build.log");
  ASSERT_EQ(b.exit_code, 0) << b.output;
  driver::ProcessResult r = driver::run_process({(d / "big").string()}, d / "run.log");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("checked: 0 wrong"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace stax::e2e
