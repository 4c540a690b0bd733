// Constants' files held in memory (ConstantFiles, how an imported model's weights reach the
// front end), at offsets as files on disk are read.
#include <gtest/gtest.h>


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

TEST(ConstantFiles, OffsetsInMemory) {
  ConstantFiles files;
  files.memory.emplace("w", weights());
  GraphError past = memory_error(two_constants("w", "3", "16"), files);
  EXPECT_EQ(past.path(), "constants[1].offset");
  EXPECT_NE(past.message().find("has 19 bytes; int32[1] needs 4 from offset 16 (file too short)"), std::string::npos)
      << past.what();
  EXPECT_EQ(memory_error(two_constants("w", "-1", "11"), files).message(), "offset must be >= 0, got -1");
  // Without an offset, the constant is at the start of the file, which may hold more.
  Graph g = parse_graph(testing::doc("", "[]", R"(["c"])",
                                     R"([{"name": "c", "dtype": "int32", "shape": [2], "file": "w"}])"), files);
  EXPECT_EQ(g[g.find("c")].data.get_int(0), 0);
}

}  // namespace
}  // namespace stax::graph
