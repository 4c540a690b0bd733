// The shrinker of randgraph_check on failures made up for the purpose: "the graph computes an
// exp" shrinks a random graph to one exp node of small inputs; a failure that needs two ops
// keeps both; a graph that never fails stays as it was.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "random_graph.h"
#include "shrink.h"
#include "stax/graph/frontend.h"

namespace stax::randgraph {
namespace {

bool computes(const std::string& json, const std::string& op) {
  return json.find("\"op\":\"" + op + "\"") != std::string::npos;
}

// A random graph (from seed 0 on) that holds `op` and at least `min_nodes` named nodes.
std::string graph_with(const std::string& op, std::size_t min_nodes) {
  RandomGraphOptions opt;
  opt.max_nodes = 20;
  for (uint64_t seed = 0;; ++seed) {
    std::string json = random_graph_json(seed, lowerable(opt));
    if (computes(json, op) && nlohmann::json::parse(json)["nodes"].size() >= min_nodes) return json;
  }
}

TEST(Shrink, ToOneNodeOfSmallInputs) {
  std::string json = graph_with("exp", 8);
  int calls = 0;
  std::string small = shrink_graph(json, [&](const std::string& j) {
    ++calls;
    return computes(nlohmann::json::parse(j).dump(), "exp");
  });
  nlohmann::json d = nlohmann::json::parse(small);
  EXPECT_LE(calls, 200);
  EXPECT_EQ(d["outputs"].size(), 1u) << small;
  // The exp, and at most the node that is the output it feeds: cutting a node makes it an input,
  // so an output computed from the exp keeps its node.
  EXPECT_LE(d["nodes"].size(), 2u) << small;
  EXPECT_TRUE(d["nodes"][0]["op"] == "exp") << small;
  EXPECT_TRUE(computes(d.dump(), "exp")) << small;
  for (const auto& in : d["inputs"])
    for (const auto& dim : in["shape"]) EXPECT_EQ(dim.get<int64_t>(), 1) << small;
  EXPECT_NO_THROW(graph::parse_graph(small)) << small;
  EXPECT_LT(small.size(), json.size());
}

TEST(Shrink, KeepsWhatTheFailureNeeds) {
  std::string json = graph_with("exp", 8);
  auto two = [](const std::string& j) {
    std::string d = nlohmann::json::parse(j).dump();
    return computes(d, "exp") && nlohmann::json::parse(j)["nodes"].size() >= 2;
  };
  std::string small = shrink_graph(json, two);
  EXPECT_TRUE(two(small)) << small;
  EXPECT_EQ(nlohmann::json::parse(small)["nodes"].size(), 2u) << small;
}

TEST(Shrink, NeverFailingStaysWhole) {
  std::string json = graph_with("exp", 4);
  std::string same = shrink_graph(json, [](const std::string&) { return false; });
  EXPECT_EQ(nlohmann::json::parse(same), nlohmann::json::parse(json));
}

}  // namespace
}  // namespace stax::randgraph
