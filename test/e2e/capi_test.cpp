// The C API of generated code as a user sees it: two models compiled separately and linked into
// one program (no symbol clash; only the C API is exported), their headers used from C and C++,
// metadata, NULL and caller workspaces, NAME_run_checked rejecting every kind of mismatch with
// a message, integer division by zero and an index out of range as error codes, and concurrent
// calls.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "stax/driver/compile.h"
#include "stax/driver/process.h"
#include "stax/graph/frontend.h"

namespace stax::e2e {
namespace {

namespace fs = std::filesystem;

const char* kAlpha = R"({"format": "stax-graph", "version": 1, "name": "alpha",
  "inputs": [{"name": "x", "dtype": "float32", "shape": [4, 8]}],
  "constants": [{"name": "w", "dtype": "float32", "shape": [8], "data": [1, 0.5, 2, -1, 0.25, 1, 3, -0.5]}],
  "nodes": [{"name": "y", "op": "softmax", "args": [{"op": "mul", "args": ["x", "w"]}], "dim": -1}],
  "outputs": ["y", "x"]})";

const char* kBeta = R"({"format": "stax-graph", "version": 1, "name": "beta",
  "inputs": [{"name": "a", "dtype": "int32", "shape": [6]}, {"name": "b.0", "dtype": "int32", "shape": [6]}],
  "nodes": [{"name": "q", "op": "div", "args": ["a", "b.0"], "rounding_mode": "floor"},
            {"name": "r", "op": "remainder", "args": ["a", "b.0"]}],
  "outputs": ["q", "r", "q"]})";

// A C program: the headers are C, the workspace size a compile-time constant.
const char* kCMain = R"c(#include "alpha.h"
#include "beta.h"

_Static_assert(alpha_NUM_INPUTS == 1 && alpha_NUM_OUTPUTS == 2, "alpha's interface");
_Static_assert(beta_NUM_INPUTS == 2 && beta_NUM_OUTPUTS == 3, "beta's interface");
_Static_assert(alpha_WORKSPACE_ALIGNMENT == 64, "alignment");

static unsigned char alpha_ws[alpha_WORKSPACE_SIZE + 1] __attribute__((aligned(64)));

int c_run_alpha(const float* x, float* y, float* x_copy) {
  const void* in[1] = {x};
  void* out[2] = {y, x_copy};
  return alpha_run(in, out, alpha_ws);
}
)c";

const char* kCxxMain = R"cxx(#include "alpha.h"
#include "beta.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

extern "C" int c_run_alpha(const float* x, float* y, float* x_copy);

static int failures = 0;
#define CHECK(cond)                                                  \
  do {                                                               \
    if (!(cond)) {                                                   \
      std::printf("FAIL line %d: %s\n", __LINE__, #cond);            \
      ++failures;                                                    \
    }                                                                \
  } while (0)

static bool has(const char* message, const char* part) { return std::strstr(message, part) != nullptr; }

static void reference_alpha(const float* x, float* y) {
  const double w[8] = {1, 0.5, 2, -1, 0.25, 1, 3, -0.5};
  for (int i = 0; i < 4; ++i) {
    double m = -1e300, s = 0, v[8];
    for (int j = 0; j < 8; ++j) m = std::fmax(m, v[j] = double(float(x[i * 8 + j] * float(w[j]))));
    for (int j = 0; j < 8; ++j) s += std::exp(v[j] - m);
    for (int j = 0; j < 8; ++j) y[i * 8 + j] = float(std::exp(v[j] - m) / s);
  }
}

int main() {
  // Metadata.
  CHECK(alpha_num_inputs() == 1 && alpha_num_outputs() == 2);
  CHECK(std::string(alpha_input_name(0)) == "x");
  CHECK(std::string(alpha_output_name(1)) == "x");
  CHECK(alpha_input_dtype(0) == STAX_FLOAT32 && alpha_input_ndim(0) == 2);
  CHECK(alpha_input_shape(0)[0] == 4 && alpha_input_shape(0)[1] == 8);
  CHECK(alpha_input_name(1) == nullptr && alpha_input_dtype(-1) == -1 && alpha_output_shape(2) == nullptr);
  CHECK(std::string(beta_input_name(1)) == "b.0" && beta_output_dtype(2) == STAX_INT32);
  CHECK(beta_workspace_size() == beta_WORKSPACE_SIZE && alpha_workspace_size() == alpha_WORKSPACE_SIZE);
  CHECK(std::string(beta_strerror(STAX_ERR_DIV_BY_ZERO)) == "integer division or remainder by zero");

  // alpha: NULL workspace, caller workspace (from C), identical and right.
  float x[32], y1[32], y2[32], xc[32], ref[32];
  for (int i = 0; i < 32; ++i) x[i] = float((i * 37) % 17) / 8.0f - 1.0f;
  reference_alpha(x, ref);
  const void* in[1] = {x};
  void* out[2] = {y1, xc};
  CHECK(alpha_run(in, out, nullptr) == STAX_OK);
  CHECK(c_run_alpha(x, y2, xc) == STAX_OK);
  CHECK(std::memcmp(y1, y2, sizeof y1) == 0);
  CHECK(std::memcmp(xc, x, sizeof x) == 0);
  for (int i = 0; i < 32; ++i) CHECK(std::fabs(y1[i] - ref[i]) <= 1e-6f + 1e-5f * ref[i]);

  // beta: Python-style floor division and remainder; the repeated output is a copy.
  int32_t a[6] = {7, -7, 7, -7, -2147483647 - 1, 5}, b[6] = {2, 2, -2, -2, -1, 3};
  int32_t q[6], r[6], q2[6];
  const void* bin[2] = {a, b};
  void* bout[3] = {q, r, q2};
  CHECK(beta_run(bin, bout, nullptr) == STAX_OK);
  const int32_t eq[6] = {3, -4, -4, 3, -2147483647 - 1, 1}, er[6] = {1, 1, -1, -1, 0, 2};
  CHECK(std::memcmp(q, eq, sizeof q) == 0 && std::memcmp(r, er, sizeof r) == 0 && std::memcmp(q2, q, sizeof q) == 0);
  b[3] = 0;
  CHECK(beta_run(bin, bout, nullptr) == STAX_ERR_DIV_BY_ZERO);
  b[3] = -2;

  // run_checked: good calls pass, every mismatch is refused with a message naming the tensor.
  const int64_t s48[2] = {4, 8}, s84[2] = {8, 4}, s6[1] = {6}, dense[2] = {8, 1}, strided[2] = {16, 1};
  stax_layout lx = {STAX_FLOAT32, 2, s48, nullptr};
  stax_layout louts[2] = {lx, lx};
  char msg[256];
  CHECK(alpha_run_checked(1, in, &lx, 2, out, louts, nullptr, msg, sizeof msg) == STAX_OK);
  CHECK(msg[0] == '\0');
  stax_layout with_strides = {STAX_FLOAT32, 2, s48, dense};
  CHECK(alpha_run_checked(1, in, &with_strides, 2, out, louts, nullptr, msg, sizeof msg) == STAX_OK);
  stax_layout bad = {STAX_FLOAT64, 2, s48, nullptr};
  CHECK(alpha_run_checked(1, in, &bad, 2, out, louts, nullptr, msg, sizeof msg) == STAX_ERR_INVALID_ARGUMENT);
  CHECK(has(msg, "input 0 ('x'): expected dtype float32, got float64"));
  bad = {STAX_FLOAT32, 2, s84, nullptr};
  CHECK(alpha_run_checked(1, in, &bad, 2, out, louts, nullptr, msg, sizeof msg) == STAX_ERR_INVALID_ARGUMENT);
  CHECK(has(msg, "expected shape [4, 8], got [8, 4]"));
  bad = {STAX_FLOAT32, 1, s6, nullptr};
  CHECK(alpha_run_checked(1, in, &bad, 2, out, louts, nullptr, msg, sizeof msg) == STAX_ERR_INVALID_ARGUMENT);
  CHECK(has(msg, "got [6]"));
  bad = {STAX_FLOAT32, 2, s48, strided};
  CHECK(alpha_run_checked(1, in, &bad, 2, out, louts, nullptr, msg, sizeof msg) == STAX_ERR_INVALID_ARGUMENT);
  CHECK(has(msg, "stride 16 of dimension 0, expected 8"));
  CHECK(alpha_run_checked(2, in, &lx, 2, out, louts, nullptr, msg, sizeof msg) == STAX_ERR_INVALID_ARGUMENT);
  CHECK(has(msg, "expected 1 inputs and 2 outputs, got 2 and 2"));
  void* overlapping[2] = {x, xc};
  CHECK(alpha_run_checked(1, in, &lx, 2, overlapping, louts, nullptr, msg, sizeof msg) == STAX_ERR_INVALID_ARGUMENT);
  CHECK(has(msg, "output 0 ('y') overlaps input 0 ('x')"));
  void* null_out[2] = {y1, nullptr};
  CHECK(alpha_run_checked(1, in, &lx, 2, null_out, louts, nullptr, msg, sizeof msg) == STAX_ERR_INVALID_ARGUMENT);
  CHECK(has(msg, "output 1 ('x'): data pointer is NULL"));
  alignas(64) static unsigned char ws[alpha_WORKSPACE_SIZE + 64];
  CHECK(alpha_run_checked(1, in, &lx, 2, out, louts, ws + 1, msg, sizeof msg) == STAX_ERR_INVALID_ARGUMENT);
  CHECK(has(msg, "workspace is not 64-byte aligned"));
  CHECK(alpha_run_checked(1, in, &lx, 2, out, louts, ws, nullptr, 0) == STAX_OK);
  stax_layout lb[2] = {{STAX_INT32, 1, s6, nullptr}, {STAX_INT32, 1, s6, nullptr}};
  stax_layout lbo[3] = {lb[0], lb[0], lb[0]};
  b[0] = 0;
  CHECK(beta_run_checked(2, bin, lb, 3, bout, lbo, nullptr, msg, sizeof msg) == STAX_ERR_DIV_BY_ZERO);
  CHECK(has(msg, "division or remainder by zero"));

  // Reentrant: threads calling at once, each with its own buffers, get the one-thread answer.
  std::vector<std::thread> threads;
  std::vector<int> ok(4, 1);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      std::vector<float> yt(32), xt(32);
      const void* tin[1] = {x};
      void* tout[2] = {yt.data(), xt.data()};
      for (int k = 0; k < 200; ++k) {
        if (alpha_run(tin, tout, nullptr) != STAX_OK || std::memcmp(yt.data(), y1, sizeof y1) != 0) ok[t] = 0;
      }
    });
  }
  for (std::thread& th : threads) th.join();
  for (int t = 0; t < 4; ++t) CHECK(ok[t] == 1);

  std::printf(failures == 0 ? "all checks passed\n" : "%d checks failed\n", failures);
  return failures == 0 ? 0 : 1;
}
)cxx";

void write(const fs::path& p, const std::string& text) { driver::write_file_atomic(p, text); }

driver::ProcessResult run(const std::vector<std::string>& argv, const fs::path& dir) {
  return driver::run_process(argv, dir / "log.txt");
}

TEST(CApi, TwoModelsLinkedFromCAndCxx) {
  driver::TempDir dir;
  const fs::path d = dir.path();
  for (const char* json : {kAlpha, kBeta}) {
    driver::CompiledModel m = driver::compile_graph(graph::parse_graph(json));
    driver::write_generated(m.code, d / (m.code.name + ".cpp"), d / (m.code.name + ".h"));
  }
  write(d / "main_c.c", kCMain);
  write(d / "main.cpp", kCxxMain);
  const std::vector<std::string> cxx = {"g++", "-std=c++17", "-O1", "-fopenmp", "-Wall", "-Wextra", "-Werror", "-c"};
  for (const std::string name : {"alpha", "beta", "main"}) {
    std::vector<std::string> argv = cxx;
    argv.insert(argv.end(), {(d / (name + ".cpp")).string(), "-o", (d / (name + ".o")).string()});
    driver::ProcessResult r = run(argv, d);
    ASSERT_EQ(r.exit_code, 0) << driver::command_line(argv) << "\n" << r.output;
  }
  driver::ProcessResult c = run({"gcc", "-std=c99", "-pedantic", "-Wall", "-Wextra", "-Werror", "-c",
                                 (d / "main_c.c").string(), "-o", (d / "main_c.o").string()}, d);
  ASSERT_EQ(c.exit_code, 0) << c.output;

  // Each object exports its C API and nothing else.
  for (const std::string name : {"alpha", "beta"}) {
    driver::ProcessResult nm = run({"nm", "-g", "--defined-only", (d / (name + ".o")).string()}, d);
    ASSERT_EQ(nm.exit_code, 0) << nm.output;
    std::istringstream lines(nm.output);
    std::string line;
    int count = 0;
    while (std::getline(lines, line)) {
      const std::string symbol = line.substr(line.rfind(' ') + 1);
      // The compiler's weak reference to the C++ personality routine (exception tables) is
      // shared by every C++ object, not a symbol of the model.
      if (symbol == "DW.ref.__gxx_personality_v0") continue;
      EXPECT_EQ(symbol.rfind(name + "_", 0), 0u) << "unexpected exported symbol " << symbol;
      ++count;
    }
    // run, run_checked, workspace_size, strerror, num_inputs, num_outputs, 2 x 4 metadata, isa.
    EXPECT_EQ(count, 15) << nm.output;
  }

  driver::ProcessResult link = run({"g++", "-fopenmp", (d / "main.o").string(), (d / "main_c.o").string(),
                                    (d / "alpha.o").string(), (d / "beta.o").string(), "-lsleef", "-pthread",
                                    "-o", (d / "app").string()}, d);
  ASSERT_EQ(link.exit_code, 0) << link.output;
  driver::ProcessResult app = run({(d / "app").string()}, d);
  EXPECT_EQ(app.exit_code, 0) << app.output;
  EXPECT_NE(app.output.find("all checks passed"), std::string::npos) << app.output;
}

// gamma: rows of a table picked by indices (int32), and a column of it picked by a gather
// (int64): positions out of range are an error code; nothing outside the table is read.
const char* kGamma = R"({"format": "stax-graph", "version": 1, "name": "gamma",
  "inputs": [{"name": "t", "dtype": "float32", "shape": [4, 3]}, {"name": "i", "dtype": "int32", "shape": [5]},
             {"name": "g", "dtype": "int64", "shape": [4, 1]}],
  "nodes": [{"name": "e", "op": "embedding", "args": ["t", "i"]},
            {"name": "c", "op": "gather", "args": ["t", "g"], "dim": 1}],
  "outputs": ["e", "c"]})";

const char* kGammaMain = R"cxx(#include "gamma.h"

#include <cstdio>
#include <cstring>
#include <vector>

static int failures = 0;
#define CHECK(cond)                                                  \
  do {                                                               \
    if (!(cond)) {                                                   \
      std::printf("FAIL line %d: %s\n", __LINE__, #cond);            \
      ++failures;                                                    \
    }                                                                \
  } while (0)

int main() {
  // The table sits at the end of a vector sized exactly: a read past it is a heap overflow.
  std::vector<float> table(12);
  for (int k = 0; k < 12; ++k) table[k] = float(k);
  int32_t idx[5] = {3, 0, 2, 2, 1};
  int64_t col[4] = {2, 0, 1, 2};
  float e[15], c[4];
  const void* in[3] = {table.data(), idx, col};
  void* out[2] = {e, c};
  CHECK(gamma_run(in, out, nullptr) == STAX_OK);
  for (int r = 0; r < 5; ++r)
    for (int j = 0; j < 3; ++j) CHECK(e[r * 3 + j] == float(idx[r] * 3 + j));
  for (int r = 0; r < 4; ++r) CHECK(c[r] == float(r * 3 + col[r]));
  CHECK(std::strcmp(gamma_strerror(STAX_ERR_INDEX_OUT_OF_RANGE), "index out of range (embedding, index_select or gather)") == 0);
  const int32_t bad_rows[] = {4, -1, 2147483647, -2147483647 - 1};
  for (int32_t b : bad_rows) {
    idx[3] = b;
    CHECK(gamma_run(in, out, nullptr) == STAX_ERR_INDEX_OUT_OF_RANGE);
  }
  idx[3] = 2;
  col[1] = 3;
  CHECK(gamma_run(in, out, nullptr) == STAX_ERR_INDEX_OUT_OF_RANGE);
  col[1] = -1;
  char msg[128];
  const int64_t st[2] = {4, 3}, si[1] = {5}, sg[2] = {4, 1}, se[2] = {5, 3}, sc[2] = {4, 1};
  const stax_layout li[3] = {{STAX_FLOAT32, 2, st, nullptr}, {STAX_INT32, 1, si, nullptr}, {STAX_INT64, 2, sg, nullptr}};
  const stax_layout lo[2] = {{STAX_FLOAT32, 2, se, nullptr}, {STAX_FLOAT32, 2, sc, nullptr}};
  CHECK(gamma_run_checked(3, in, li, 2, out, lo, nullptr, msg, sizeof msg) == STAX_ERR_INDEX_OUT_OF_RANGE);
  CHECK(std::strstr(msg, "index out of range") != nullptr);
  col[1] = 0;
  CHECK(gamma_run_checked(3, in, li, 2, out, lo, nullptr, msg, sizeof msg) == STAX_OK);
  std::printf(failures == 0 ? "all checks passed\n" : "%d checks failed\n", failures);
  return failures == 0 ? 0 : 1;
}
)cxx";

TEST(CApi, IndexOutOfRangeIsAnErrorCode) {
  driver::TempDir dir;
  const fs::path d = dir.path();
  driver::CompiledModel m = driver::compile_graph(graph::parse_graph(kGamma));
  driver::write_generated(m.code, d / "gamma.cpp", d / "gamma.h");
  write(d / "main.cpp", kGammaMain);
  const std::vector<std::string> flags = {"-std=c++17", "-O1", "-g", "-fopenmp", "-Wall", "-Wextra", "-Werror",
                                          "-fsanitize=address,undefined", "-fno-sanitize-recover=all"};
  std::vector<std::string> argv = {"g++"};
  argv.insert(argv.end(), flags.begin(), flags.end());
  argv.insert(argv.end(), {(d / "gamma.cpp").string(), (d / "main.cpp").string(), "-lsleef", "-o", (d / "app").string()});
  driver::ProcessResult build = run(argv, d);
  ASSERT_EQ(build.exit_code, 0) << driver::command_line(argv) << "\n" << build.output;
  driver::ProcessResult app = run({(d / "app").string()}, d);
  EXPECT_EQ(app.exit_code, 0) << app.output;
  EXPECT_NE(app.output.find("all checks passed"), std::string::npos) << app.output;
}

}  // namespace
}  // namespace stax::e2e
