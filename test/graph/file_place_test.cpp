// A constant's `file` is read only inside the model's folder (ConstantFiles::allow_outside):
// absolute paths, `..` that climbs out and symbolic links that point out are refused with the
// constant's path and the way to allow them; inside the folder, subfolders and `..` that stays
// inside are fine.
#include <gtest/gtest.h>

#include <fstream>
#include <unistd.h>

#include "graph_test_util.h"

namespace stax::graph {
namespace {

namespace fs = std::filesystem;

std::string with_file(const std::string& file) {
  return testing::doc("", "[]", R"(["c"])",
                      R"([{"name": "c", "dtype": "int32", "shape": [2], "file": ")" + file + "\"}]");
}

// A folder model/ holding w.bin and sub/w.bin, beside outside.bin, all int32 {7, 8}.
class FilePlace : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("stax_file_place_" + std::to_string(::getpid()));
    fs::remove_all(root_);
    fs::create_directories(root_ / "model" / "sub");
    for (const fs::path& p : {root_ / "model" / "w.bin", root_ / "model" / "sub" / "w.bin", root_ / "outside.bin"}) {
      std::ofstream out(p, std::ios::binary);
      int32_t v[2] = {7, 8};
      out.write(reinterpret_cast<const char*>(v), sizeof v);
    }
  }
  void TearDown() override { fs::remove_all(root_); }

  ConstantFiles files(bool allow = false) const {
    ConstantFiles f;
    f.base_dir = root_ / "model";
    f.allow_outside = allow;
    return f;
  }
  // The message of the error parsing a constant read from `file`; "" when accepted.
  std::string error(const std::string& file, bool allow = false) const {
    try {
      Graph g = parse_graph(with_file(file), files(allow));
      EXPECT_EQ(g.values.at(0).data.get_int(1), 8);
    } catch (const GraphError& e) {
      EXPECT_EQ(e.path(), "constants[0].file");
      return e.message();
    }
    return "";
  }
  fs::path root_;
};

TEST_F(FilePlace, InsideTheFolderIsRead) {
  EXPECT_EQ(error("w.bin"), "");
  EXPECT_EQ(error("sub/w.bin"), "");
  EXPECT_EQ(error("sub/../w.bin"), "");
  EXPECT_EQ(error("./sub/./w.bin"), "");
}

TEST_F(FilePlace, AbsolutePathIsRefused) {
  std::string abs = (root_ / "model" / "w.bin").string();
  EXPECT_EQ(error(abs), "constant file '" + abs +
                            "' is an absolute path; a model may only read files inside its own folder "
                            "(--allow-outside-files allows it for a trusted model)");
  EXPECT_NE(error("/etc/passwd").find("is an absolute path"), std::string::npos);
  EXPECT_EQ(error(abs, true), "");
}

TEST_F(FilePlace, ClimbingOutIsRefused) {
  EXPECT_NE(error("../outside.bin").find("'../outside.bin' leads outside the model's folder"), std::string::npos);
  EXPECT_NE(error("sub/../../outside.bin").find("leads outside the model's folder"), std::string::npos);
  // Refused before existence is looked at: the error does not reveal what exists out there.
  EXPECT_NE(error("../../no/such.bin").find("leads outside the model's folder"), std::string::npos);
  EXPECT_EQ(error("../outside.bin", true), "");
}

TEST_F(FilePlace, SymbolicLinkOutIsRefused) {
  fs::create_symlink(root_ / "outside.bin", root_ / "model" / "link.bin");
  fs::create_directory_symlink(root_, root_ / "model" / "up");
  EXPECT_NE(error("link.bin").find("leads outside the model's folder"), std::string::npos);
  EXPECT_NE(error("up/outside.bin").find("leads outside the model's folder"), std::string::npos);
  EXPECT_EQ(error("link.bin", true), "");
  // A link that stays inside is fine.
  fs::create_symlink(root_ / "model" / "sub" / "w.bin", root_ / "model" / "inner.bin");
  EXPECT_EQ(error("inner.bin"), "");
}

TEST_F(FilePlace, LoadGraphResolvesAgainstTheModelsFolder) {
  fs::path model = root_ / "model" / "m.json";
  std::ofstream(model) << with_file("../outside.bin");
  EXPECT_THROW(load_graph(model), GraphError);
  EXPECT_EQ(load_graph(model, nullptr, true).values.at(0).data.get_int(0), 7);
}

}  // namespace
}  // namespace stax::graph
