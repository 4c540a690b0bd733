// Every samples/*.json validates; the examples of the design chapter have the expected shape.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "graph_test_util.h"

namespace stax::graph {
namespace {

std::filesystem::path samples_dir() { return std::filesystem::path(STAX_SOURCE_DIR) / "samples"; }

TEST(Samples, EveryTopLevelSampleValidates) {
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(samples_dir()))
    if (entry.path().extension() == ".json") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  EXPECT_GE(files.size(), 5u);
  for (const auto& file : files) {
    SCOPED_TRACE(file.string());
    try {
      Graph g = load_graph(file);
      Graph e = expand_composites(g);
      EXPECT_FALSE(format_signature(e).empty());
      for (const Value& v : e.values)
        if (v.kind == ValueKind::Node) {
          EXPECT_NE(op_category(v.op), OpCategory::Composite);
        }
    } catch (const std::exception& ex) {
      ADD_FAILURE() << ex.what();
    }
  }
}

TEST(Samples, Example71) {
  Graph g = load_graph(samples_dir() / "example_7_1.json");
  EXPECT_EQ(format_signature(g),
            "graph example_7_1\n"
            "x: float32[64, 128] input\n"
            "s: float32[64, 1] = sum(x, dim=[1], keepdim=true)\n"
            "y: float32[64, 128] = div(x, s)\n"
            "outputs: y\n");
}

TEST(Samples, Example72) {
  Graph g = load_graph(samples_dir() / "example_7_2.json");
  EXPECT_EQ(format_signature(g),
            "graph example_7_2\n"
            "x: float32[64, 128] input\n"
            "e: float32[64, 128] = exp(x)\n"
            "s: float32[64] = sum(e, dim=[1], keepdim=false)\n"
            "m: float32[64] = amax(e, dim=[1], keepdim=false)\n"
            "outputs: s, m\n");
}

TEST(Samples, MlpAndLayerNorm) {
  Graph mlp = load_graph(samples_dir() / "mlp.json");
  EXPECT_EQ(mlp[mlp.outputs[0]].shape, (Shape{16, 4}));
  EXPECT_EQ(mlp[mlp.find("h")].shape, (Shape{16, 8}));
  EXPECT_EQ(mlp[mlp.find("w2")].data.get_double(4), 1.0);
  Graph ln = load_graph(samples_dir() / "layer_norm.json");
  EXPECT_EQ(ln[ln.find("beta")].data.get_double(15), static_cast<double>(0.1f));
  Graph sm = load_graph(samples_dir() / "softmax.json");
  EXPECT_EQ(sm.name, "softmax_rows");
  EXPECT_EQ(sm.values.size(), 6u);  // x, m, e#0, e, s, y
}

}  // namespace
}  // namespace stax::graph
