// No input crashes the front end: a document using every op, mutated structurally (values
// replaced by odd ones, keys removed or added, list entries dropped or appended), either
// validates (and then expands and prints) or raises GraphError.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>

#include <nlohmann/json.hpp>

#include "graph_test_util.h"

namespace stax::graph {
namespace {

using nlohmann::json;

std::string all_ops_path() { return std::string(STAX_SOURCE_DIR) + "/test/graph/all_ops.json"; }

class Mutator {
 public:
  explicit Mutator(uint64_t seed) : state_(seed) {}

  uint64_t next() {
    state_ ^= state_ << 13;
    state_ ^= state_ >> 7;
    state_ ^= state_ << 17;
    return state_;
  }

  json odd_value() {
    static const json values[] = {
        0, -1, 1, 2, -2, 6, INT64_MAX, INT64_MIN, 1e308, -1e308, 2.5, -0.5, 1e39, 4294967296LL,
        2147483648LL, "inf", "-inf", "nan", true, false, nullptr, json::array(), json::array({0}),
        json::array({-1}), json::array({1, -1}), json::array({-1, -1}), json::array({4, 6}),
        json::array({INT64_MAX, 2}), json::array({json::array({1})}), json::object(), "x", "i",
        "b", "s", "w", "float32", "int32", "bool", "trunc", "tanh",
        json::object({{"op", "neg"}, {"args", json::array({"x"})}}),
        json::object({{"op", "softmax"}, {"args", json::array({"x"})}, {"dim", 0}})};
    return values[next() % std::size(values)];
  }

  void mutate(json& doc) {
    std::vector<json*> nodes;
    collect(doc, nodes);
    json& n = *nodes[next() % nodes.size()];
    static const char* keys[] = {"dim", "keepdim", "shape", "args", "name", "op", "value",
                                 "start", "end", "step", "pad", "dims", "dim0", "index", "min",
                                 "fill", "data", "eps", "normalized_shape", "dtype", "end_dim"};
    switch (next() % 4) {
      case 0: n = odd_value(); return;
      case 1:
        if (n.is_object() && !n.empty()) {
          auto it = n.begin();
          std::advance(it, static_cast<long>(next() % n.size()));
          n.erase(it.key());
          return;
        }
        n = odd_value();
        return;
      case 2:
        if (n.is_object()) {
          n[keys[next() % std::size(keys)]] = odd_value();
          return;
        }
        n = odd_value();
        return;
      default:
        if (!n.is_array()) {
          n = odd_value();
        } else if (!n.empty() && next() % 2 == 0) {
          n.erase(static_cast<std::size_t>(next() % n.size()));
        } else {
          n.push_back(odd_value());
        }
        return;
    }
  }

 private:
  static void collect(json& j, std::vector<json*>& out) {
    out.push_back(&j);
    if (j.is_array())
      for (json& e : j) collect(e, out);
    if (j.is_object())
      for (auto& item : j.items()) collect(item.value(), out);
  }

  uint64_t state_;
};

TEST(Mutation, AllOpsDocumentValidates) {
  Graph g = load_graph(all_ops_path());
  EXPECT_EQ(g.outputs.size(), 3u);
  Graph e = expand_composites(g);
  for (const Value& v : e.values)
    if (v.kind == ValueKind::Node) {
      EXPECT_NE(op_category(v.op), OpCategory::Composite) << v.name;
    }
}

TEST(Mutation, MutatedDocumentsValidateOrRaiseGraphError) {
  std::ifstream in(all_ops_path());
  json seed = json::parse(in);
  Mutator m(20240611);
  int valid = 0, invalid = 0;
  for (int it = 0; it < 800; ++it) {
    json doc = seed;
    m.mutate(doc);
    std::string text = doc.dump();
    try {
      Graph g = parse_graph(text);
      format_signature(expand_composites(g));
      ++valid;
    } catch (const GraphError&) {
      ++invalid;
    } catch (const std::exception& e) {
      ADD_FAILURE() << "not a GraphError: " << e.what() << "\n" << text;
      return;
    }
  }
  EXPECT_GT(valid, 30);
  EXPECT_GT(invalid, 300);
}

}  // namespace
}  // namespace stax::graph
