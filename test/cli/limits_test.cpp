// Limits that fail cleanly: every hostile or impossible model gets one line on stderr
// ("staxc: error: ..."), a non-zero status, and no output file. Constant files outside the
// model's folder, shapes whose size overflows 64 bits or that no process could hold, graphs that
// need more memory than the machine has, inline nodes nested 100,000 deep, 100,000 nodes, and
// JSON with duplicate keys, invalid UTF-8 or out-of-range numbers.
#include <filesystem>
#include <fstream>
#include <string>

#include "cli_fixture.h"

namespace stax::testing {
namespace {

namespace fs = std::filesystem;

std::string doc(const std::string& inputs, const std::string& nodes, const std::string& outputs,
                const std::string& constants = "[]") {
  return R"({"format": "stax-graph", "version": 1, "name": "g", "inputs": )" + inputs +
         R"(, "constants": )" + constants + R"(, "nodes": )" + nodes + R"(, "outputs": )" + outputs + "}";
}

class Limits : public StaxcTest {
 protected:
  std::string write(const std::string& name, const std::string& text) {
    fs::create_directories(fs::path(path(name)).parent_path());
    std::ofstream(path(name), std::ios::binary) << text;
    return path(name);
  }
  // `staxc compile MODEL -o out.cpp --header out.h` fails with `status` and one line holding
  // `fragment`, and writes neither file.
  void expect_compile_error(const std::string& model, int status, const std::string& fragment,
                            const std::vector<std::string>& extra = {}) {
    std::vector<std::string> args = {"compile", model, "-o", path("out.cpp"), "--header", path("out.h")};
    args.insert(args.end(), extra.begin(), extra.end());
    ProcessResult r = staxc(args);
    EXPECT_EQ(r.status, status) << r.err;
    EXPECT_TRUE(is_error_line(r.err, fragment));
    EXPECT_FALSE(fs::exists(path("out.cpp")));
    EXPECT_FALSE(fs::exists(path("out.h")));
  }
  std::string one_input(const std::string& shape, const std::string& dtype = "float32") {
    return R"([{"name": "x", "dtype": ")" + dtype + R"(", "shape": )" + shape + "}]";
  }
};

const char* kConstant = R"([{"name": "c", "dtype": "int32", "shape": [2], "file": "FILE"}])";

std::string constant_from(const std::string& file) {
  std::string c = kConstant;
  return c.replace(c.find("FILE"), 4, file);
}

TEST_F(Limits, ConstantFileOutsideTheModelsFolder) {
  write("w.bin", std::string(8, '\1'));
  std::string abs = write("model/abs.json", doc("[]", "[]", R"(["c"])", constant_from(path("w.bin"))));
  expect_compile_error(abs, 2, "constants[0].file: constant file '" + path("w.bin") + "' is an absolute path");
  std::string up = write("model/up.json", doc("[]", "[]", R"(["c"])", constant_from("../w.bin")));
  expect_compile_error(up, 2, "'../w.bin' leads outside the model's folder");
  ProcessResult v = staxc({"validate", up});
  EXPECT_EQ(v.status, 2);
  EXPECT_TRUE(is_error_line(v.err, "--allow-outside-files"));
  // Allowed on request.
  ProcessResult ok = staxc({"compile", up, "-o", path("out.cpp"), "--allow-outside-files"});
  EXPECT_EQ(ok.status, 0) << ok.err;
  EXPECT_TRUE(fs::exists(path("out.cpp")));
}

TEST_F(Limits, ShapeWhoseSizeOverflows64Bits) {
  std::string count = write("count.json", doc(one_input("[4294967296, 4294967296]"), "[]", R"(["x"])"));
  expect_compile_error(count, 2, "inputs[0].shape: the element count of shape [4294967296, 4294967296] overflows int64");
  std::string bytes = write("bytes.json", doc(one_input("[2147483648, 2147483648]"), "[]", R"(["x"])"));
  expect_compile_error(bytes, 2, "overflows int64");
  std::string node = write("node.json", doc(one_input("[4294967296, 1]"),
                                            R"([{"name": "y", "op": "expand", "args": ["x"], "shape": [4294967296, 4294967296]}])", R"(["y"])"));
  expect_compile_error(node, 2, "overflows int64");
}

TEST_F(Limits, ValuesNoProcessCouldHold) {
  // 2^62 bytes in one value.
  std::string one = write("one.json", doc(one_input("[1073741824, 1073741824]"),
                                          R"([{"name": "y", "op": "exp", "args": ["x"]}])", R"(["y"])"));
  expect_compile_error(one, 2, "takes 4611686018427387904 bytes, more than the 2^47 (128 TiB) a 64-bit process can address");
  // 16 TiB each, 9 of them: a workspace no machine could map.
  std::string nodes;
  for (int k = 0; k < 9; ++k)
    nodes += std::string(k ? ", " : "") + R"({"name": "c)" + std::to_string(k) + R"(", "op": "cumsum", "args": [")" +
             (k ? "c" + std::to_string(k - 1) : std::string("x")) + R"("], "dim": 0})";
  std::string many = write("many.json", doc(one_input("[4398046511104]"), "[" + nodes + "]", R"(["c8"])"));
  expect_compile_error(many, 2, "its workspace could not be allocated");
}

TEST_F(Limits, MoreMemoryThanTheMachineHas) {
  // 4 TiB of input: addressable, but not on this machine; refused before anything is allocated.
  std::string big = write("big.json", doc(one_input("[1099511627776]"), R"([{"name": "y", "op": "neg", "args": ["x"]}])", R"(["y"])"));
  for (const char* cmd : {"interpret", "run"}) {
    ProcessResult r = staxc({cmd, big, "--output-dir", path(std::string("out-") + cmd)});
    EXPECT_EQ(r.status, 1) << cmd;
    EXPECT_TRUE(is_error_line(r.err, "bytes of memory at once, more than this machine has")) << cmd;
    EXPECT_FALSE(fs::exists(path(std::string("out-") + cmd))) << cmd;
  }
  ProcessResult c = staxc({"check", big});
  EXPECT_EQ(c.status, 1);
  EXPECT_TRUE(is_error_line(c.err, "more than this machine has"));
}

TEST_F(Limits, InlineNodesNested100000Deep) {
  const int depth = 100000;
  std::string inner;
  inner.reserve(static_cast<std::size_t>(depth) * 32);
  for (int k = 0; k < depth; ++k) inner += R"({"op": "neg", "args": [)";
  inner += "\"x\"";
  for (int k = 0; k < depth; ++k) inner += "]}";
  std::string model = write("deep.json", doc(one_input("[4]"), R"([{"name": "y", "op": "neg", "args": [)" + inner + "]}]", R"(["y"])"));
  expect_compile_error(model, 2, "JSON nested deeper than 200 levels");
}

// A chain y_k = (y_{k-1} + 1) * 0.5: 100,000 nodes validated, 10,000 interpreted (every element
// goes to 1) and compiled, without a deep recursion anywhere. (Every stage is iterative over
// nodes; the smaller chain keeps the instrumented CI build's time down.)
std::string chain(int n) {
  std::string nodes = R"({"name": "v0", "op": "add", "args": ["x", 1.0]})";
  for (int k = 1; k < n; ++k)
    nodes += ", {\"name\": \"v" + std::to_string(k) + "\", \"op\": \"" + (k % 2 ? "mul" : "add") + "\", \"args\": [\"v" +
             std::to_string(k - 1) + "\", " + (k % 2 ? "0.5" : "1.0") + "]}";
  return R"({"format": "stax-graph", "version": 1, "name": "g", "inputs": [{"name": "x", "dtype": "float32", "shape": [4]}], "nodes": [)" +
         nodes + R"(], "outputs": ["v)" + std::to_string(n - 1) + "\"]}";
}

TEST_F(Limits, OneHundredThousandNodes) {
  std::string big = write("chain.json", chain(100000));
  ProcessResult v = staxc({"validate", big});
  EXPECT_EQ(v.status, 0) << v.err;
  EXPECT_NE(v.out.find("v99999: float32[4] = mul(v99998, 0.5)"), std::string::npos);
  std::string model = write("chain10k.json", chain(10000));
  ProcessResult i = staxc({"interpret", model, "--output-dir", path("out")});
  EXPECT_EQ(i.status, 0) << i.err;
  EXPECT_NE(i.out.find("       1 1 1 1\n"), std::string::npos) << i.out;
  ProcessResult c = staxc({"compile", model, "-o", path("chain.cpp")});
  EXPECT_EQ(c.status, 0) << c.err;
  EXPECT_GT(fs::file_size(path("chain.cpp")), 10000u);
}

TEST_F(Limits, HostileJson) {
  std::string dup = write("dup.json", R"({"format": "stax-graph", "version": 1, "version": 1, "name": "g", "inputs": [], "nodes": [], "outputs": []})");
  expect_compile_error(dup, 2, "duplicate key 'version'");
  std::string utf8 = write("utf8.json", doc(std::string(R"([{"name": "x)") + "\xff" + R"(", "dtype": "float32", "shape": [2]}])", "[]", R"(["x"])"));
  expect_compile_error(utf8, 2, "");
  std::string surrogate = write("surrogate.json", doc(R"([{"name": "x\ud800", "dtype": "float32", "shape": [2]}])", "[]", R"(["x"])"));
  expect_compile_error(surrogate, 2, "");
  std::string huge = write("huge.json", doc(one_input("[2]"), R"([{"name": "y", "op": "add", "args": ["x", 1e999]}])", R"(["y"])"));
  expect_compile_error(huge, 2, "");
  std::string big_int = write("bigint.json", doc(one_input("[2]", "int32"), R"([{"name": "y", "op": "add", "args": ["x", 99999999999999999999999]}])", R"(["y"])"));
  expect_compile_error(big_int, 2, "");
  std::string dim = write("dim.json", doc(one_input("[18446744073709551617]"), "[]", R"(["x"])"));
  expect_compile_error(dim, 2, "");
}

}  // namespace
}  // namespace stax::testing
