// Constant data from `data`, `file` and `fill`.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include "graph_test_util.h"

namespace stax::graph {
namespace {

using testing::doc;
using testing::error_of;
using testing::parse_ok;

std::string constant(std::string_view dtype, std::string_view shape, std::string_view rest) {
  return doc("", "[]", R"(["w"])",
             R"([{"name": "w", "dtype": ")" + std::string(dtype) + R"(", "shape": )" +
                 std::string(shape) + ", " + std::string(rest) + "}]");
}

class TempDir {
 public:
  explicit TempDir(const std::string& name)
      : path_(std::filesystem::temp_directory_path() / name) {
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  const std::filesystem::path& path() const { return path_; }
  void write(const std::string& file, const void* bytes, std::size_t n) const {
    std::ofstream(path_ / file, std::ios::binary).write(static_cast<const char*>(bytes), static_cast<std::streamsize>(n));
  }

 private:
  std::filesystem::path path_;
};

TEST(Constants, Data) {
  Graph g = parse_ok(constant("int32", "[2, 2]", R"("data": [1, -2, 2147483647, -2147483648])"));
  const Value& w = g[g.find("w")];
  EXPECT_EQ(w.kind, ValueKind::Constant);
  EXPECT_EQ(w.data.dtype(), DType::Int32);
  EXPECT_EQ(w.data.shape(), (Shape{2, 2}));
  EXPECT_EQ(w.data.get_int(1), -2);
  EXPECT_EQ(w.data.get_int(2), 2147483647);
  EXPECT_EQ(w.data.get_int(3), -2147483648);
  Graph b = parse_ok(constant("bool", "[3]", R"("data": [true, false, true])"));
  EXPECT_FALSE(b[b.find("w")].data.get_bool(1));
  Graph f = parse_ok(constant("float32", "[2]", R"("data": [0.1, 3.4028234663852886e38])"));
  EXPECT_EQ(f[f.find("w")].data.data_as<float>()[0], 0.1f);
  EXPECT_EQ(f[f.find("w")].data.data_as<float>()[1], 3.4028234663852886e38f);
  Graph i = parse_ok(constant("int64", "[1]", R"("data": [-9223372036854775808])"));
  EXPECT_EQ(i[i.find("w")].data.get_int(0), INT64_MIN);
  EXPECT_GRAPH_ERROR(constant("int64", "[1]", R"("data": [9223372036854775808])"),
                     "constants[0].data[0]", "value 9223372036854775808 is out of the range of int64");
}

TEST(Constants, Fill) {
  Graph g = parse_ok(constant("float64", "[2, 3]", R"("fill": -1.5)"));
  const Tensor& t = g[g.find("w")].data;
  for (int64_t i = 0; i < 6; ++i) EXPECT_EQ(t.get_double(i), -1.5);
  Graph h = parse_ok(constant("int64", "[]", R"("fill": 42)"));
  EXPECT_EQ(h[h.find("w")].data.get_int(0), 42);
  EXPECT_GRAPH_ERROR(constant("float32", "[1048576, 1024]", R"("fill": 0)"), "constants[0].shape",
                     "larger than the limit");
}

TEST(Constants, File) {
  TempDir dir("stax_constants_file");
  const float f[3] = {1.5f, -2.0f, 0.25f};
  dir.write("f.bin", f, sizeof f);
  const int64_t i[2] = {-5, 1LL << 40};
  dir.write("sub_i.bin", i, sizeof i);
  std::filesystem::create_directories(dir.path() / "sub");
  dir.write("sub/i.bin", i, sizeof i);
  Graph g = parse_ok(constant("float32", "[3]", R"("file": "f.bin")"), dir.path());
  EXPECT_EQ(g[g.find("w")].data.get_double(0), 1.5);
  EXPECT_EQ(g[g.find("w")].data.get_double(2), 0.25);
  Graph h = parse_ok(constant("int64", "[2, 1]", R"("file": "sub/i.bin")"), dir.path());
  EXPECT_EQ(h[h.find("w")].data.get_int(1), 1LL << 40);
  // load_graph resolves the file relative to the JSON's folder.
  std::ofstream(dir.path() / "sub" / "g.json") << constant("int64", "[2]", R"("file": "i.bin")");
  Graph l = load_graph(dir.path() / "sub" / "g.json");
  EXPECT_EQ(l[l.find("w")].data.get_int(0), -5);
  // A file may hold more than the constant (graph-format.md "offset": a shared weights file).
  Graph longer = parse_ok(constant("float32", "[2]", R"("file": "f.bin")"), dir.path());
  EXPECT_EQ(longer[longer.find("w")].data.get_double(1), -2.0);
  GraphError shorter = error_of(constant("float32", "[4]", R"("file": "f.bin")"), dir.path());
  EXPECT_EQ(shorter.path(), "constants[0].file");
  EXPECT_NE(shorter.message().find("has 12 bytes; float32[4] needs 16 (file too short)"), std::string::npos)
      << shorter.what();
  GraphError missing = error_of(constant("float32", "[3]", R"("file": "nope.bin")"), dir.path());
  EXPECT_EQ(missing.path(), "constants[0].file");
  GraphError folder = error_of(constant("float32", "[3]", R"("file": "sub")"), dir.path());
  EXPECT_NE(folder.message().find("is not a file"), std::string::npos);
  EXPECT_GRAPH_ERROR(constant("float32", "[3]", R"("file": 3)"), "constants[0].file", "expected a string, got 3");
}

TEST(Constants, FileWithOffset) {
  TempDir dir("stax_constants_offset");
  // One weights file: 3 bytes of padding, float32[2] at 3 (unaligned), int64[2] at 11, bool at 27.
  unsigned char bytes[28] = {9, 9, 9};
  const float f[2] = {0.5f, -4.0f};
  const int64_t i[2] = {7, -(1LL << 40)};
  std::memcpy(bytes + 3, f, sizeof f);
  std::memcpy(bytes + 11, i, sizeof i);
  bytes[27] = 1;
  dir.write("weights.bin", bytes, sizeof bytes);
  const std::string consts = R"([{"name": "a", "dtype": "float32", "shape": [2], "file": "weights.bin", "offset": 3},
      {"name": "b", "dtype": "int64", "shape": [2, 1], "file": "weights.bin", "offset": 11},
      {"name": "c", "dtype": "bool", "shape": [], "file": "weights.bin", "offset": 27},
      {"name": "d", "dtype": "float32", "shape": [1], "file": "weights.bin", "offset": 0}])";
  Graph g = parse_ok(testing::doc("", "[]", R"(["a", "b", "c", "d"])", consts), dir.path());
  EXPECT_EQ(g[g.find("a")].data.get_double(0), 0.5);
  EXPECT_EQ(g[g.find("a")].data.get_double(1), -4.0);
  EXPECT_EQ(g[g.find("b")].data.get_int(1), -(1LL << 40));
  EXPECT_TRUE(g[g.find("c")].data.get_bool(0));
  auto with = [](const std::string& more) {
    return testing::doc("", "[]", R"(["w"])",
                        R"([{"name": "w", "dtype": "float32", "shape": [2], )" + more + "}]");
  };
  GraphError past = error_of(with(R"("file": "weights.bin", "offset": 21)"), dir.path());
  EXPECT_EQ(past.path(), "constants[0].offset");
  EXPECT_NE(past.message().find("has 28 bytes; float32[2] needs 8 from offset 21 (file too short)"),
            std::string::npos) << past.what();
  GraphError beyond = error_of(with(R"("file": "weights.bin", "offset": 100)"), dir.path());
  EXPECT_EQ(beyond.path(), "constants[0].offset");
  EXPECT_GRAPH_ERROR(with(R"("file": "weights.bin", "offset": -1)"), "constants[0].offset",
                     "offset must be >= 0, got -1");
  EXPECT_GRAPH_ERROR(with(R"("file": "weights.bin", "offset": 1.5)"), "constants[0].offset",
                     "expected an integer, got 1.5");
  EXPECT_GRAPH_ERROR(with(R"("fill": 1, "offset": 4)"), "constants[0].offset",
                     "'offset' stands only beside 'file'");
  EXPECT_GRAPH_ERROR(with(R"("data": [1, 2], "offset": 0)"), "constants[0].offset",
                     "'offset' stands only beside 'file'");
  // A bool byte other than 0/1 is reported at its position in the file.
  GraphError bad_bool = error_of(
      testing::doc("", "[]", R"(["w"])",
                   R"([{"name": "w", "dtype": "bool", "shape": [2], "file": "weights.bin", "offset": 1}])"),
      dir.path());
  EXPECT_EQ(bad_bool.path(), "constants[0].file");
  EXPECT_NE(bad_bool.message().find("byte 1 of bool constant file"), std::string::npos) << bad_bool.what();
}

TEST(Constants, LoadGraphErrors) {
  EXPECT_THROW(load_graph("/nonexistent/stax/graph.json"), UserError);
  try {
    load_graph(std::filesystem::temp_directory_path());
    ADD_FAILURE() << "a folder loaded as a graph";
  } catch (const GraphError&) {
    ADD_FAILURE() << "an unreadable file is an I/O error, not a graph error";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("is a directory"), std::string::npos);
  }
}

}  // namespace
}  // namespace stax::graph
