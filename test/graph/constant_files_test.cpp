// Constants' files held in memory (ConstantFiles, how an imported model's weights reach the
// front end) and a constant's `offset` into a shared file.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "graph_test_util.h"

namespace stax::graph {
namespace {

std::string two_constants(std::string_view file, std::string_view a_offset, std::string_view b_offset) {
  return testing::doc("", "[]", R"(["a", "b"])",
                      R"([{"name": "a", "dtype": "float32", "shape": [2], "file": ")" + std::string(file) +
                          "\", \"offset\": " + std::string(a_offset) +
                          R"(}, {"name": "b", "dtype": "int32", "shape": [1], "file": ")" + std::string(file) +
                          "\", \"offset\": " + std::string(b_offset) + "}]");
}

std::string weights() {
  float a[2] = {1.5f, -2.0f};
  int32_t b = 7;
  std::string w(3, '\0');
  w.append(reinterpret_cast<const char*>(a), sizeof a);
  w.append(reinterpret_cast<const char*>(&b), sizeof b);
  return w + "tail";
}

GraphError memory_error(std::string_view json, const ConstantFiles& files) {
  try {
    parse_graph(json, files);
  } catch (const GraphError& e) {
    return e;
  }
  return GraphError("<no error>", "", "", "");
}

TEST(ConstantFiles, FromMemoryAtOffsets) {
  ConstantFiles files;
  files.memory.emplace("model.weights", weights());
  Graph g = parse_graph(two_constants("model.weights", "3", "11"), files);
  EXPECT_EQ(g[g.find("a")].data.data_as<float>()[1], -2.0f);
  EXPECT_EQ(g[g.find("b")].data.get_int(0), 7);
  // A name held in memory is never looked up on disk, and other names still are.
  files.base_dir = "/nonexistent";
  EXPECT_NO_THROW(parse_graph(two_constants("model.weights", "3", "11"), files));
  GraphError e = memory_error(two_constants("other.weights", "3", "11"), files);
  EXPECT_EQ(e.path(), "constants[0].file");
}

TEST(ConstantFiles, OffsetRules) {
  ConstantFiles files;
  files.memory.emplace("w", weights());
  GraphError past = memory_error(two_constants("w", "3", "16"), files);
  EXPECT_EQ(past.path(), "constants[1].offset");
  EXPECT_NE(past.message().find("has 19 bytes; int32[1] needs 4 from offset 16 (file too short)"), std::string::npos)
      << past.what();
  EXPECT_EQ(memory_error(two_constants("w", "-1", "11"), files).message(), "expected an offset >= 0, got -1");
  EXPECT_EQ(memory_error(two_constants("w", "1.5", "11"), files).path(), "constants[0].offset");
  GraphError alone = testing::error_of(testing::doc("", "[]", R"(["a"])",
      R"([{"name": "a", "dtype": "float32", "shape": [1], "fill": 0, "offset": 4}])"));
  EXPECT_EQ(alone.message(), "'offset' stands only beside 'file'");
}

TEST(ConstantFiles, OffsetOnDisk) {
  std::filesystem::path dir = std::filesystem::temp_directory_path() / "stax_constant_files";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "w.bin", std::ios::binary) << weights();
  Graph g = testing::parse_ok(two_constants("w.bin", "3", "11"), dir);
  EXPECT_EQ(g[g.find("a")].data.data_as<float>()[0], 1.5f);
  EXPECT_EQ(g[g.find("b")].data.get_int(0), 7);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace stax::graph
