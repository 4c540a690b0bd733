// The random graph generator on its own: deterministic, well-formed documents, options obeyed,
// and over a few hundred seeds every op of ops.def and every corner of the format shows up.
#include <gtest/gtest.h>

#include <cstdlib>
#include <functional>
#include <map>
#include <regex>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "random_graph.h"

namespace stax::randgraph {
namespace {

using Json = nlohmann::json;

int graph_count(int fallback) {
  const char* env = std::getenv("STAX_RANDOM_GRAPHS");
  if (env == nullptr) return fallback;
  int n = std::atoi(env);
  return n > 0 ? n : fallback;
}

std::vector<std::string> ops_def_names() {
  std::vector<std::string> names;
#define STAX_OP(E, name, cat) names.emplace_back(name);
#include "stax/graph/ops.def"
#undef STAX_OP
  return names;
}

// Structural checks of one document; returns the problems found.
struct Checker {
  std::set<std::string> defined;
  std::vector<std::string> problems;
  std::regex name_re{"[A-Za-z0-9_.-]+"};

  void define(const std::string& n, const std::string& where) {
    if (!std::regex_match(n, name_re) || n == "inf" || n == "-inf" || n == "nan")
      problems.push_back(where + ": bad name '" + n + "'");
    if (!defined.insert(n).second) problems.push_back(where + ": duplicate name '" + n + "'");
  }
  void node(const Json& n, const std::string& where, bool inline_node) {
    if (inline_node == n.contains("name")) problems.push_back(where + ": name presence wrong");
    if (!n.contains("op") || !n.contains("args") || !n["args"].is_array()) {
      problems.push_back(where + ": missing op or args");
      return;
    }
    for (std::size_t i = 0; i < n["args"].size(); ++i) {
      const Json& a = n["args"][i];
      std::string w = where + ".args[" + std::to_string(i) + "]";
      if (a.is_object()) node(a, w, true);
      else if (a.is_string() && a != "inf" && a != "-inf" && a != "nan" && !defined.count(a.get<std::string>()))
        problems.push_back(w + ": '" + a.get<std::string>() + "' used before definition");
    }
    if (!inline_node) define(n["name"], where);
  }
  void graph(const Json& g, uint64_t seed) {
    if (g.value("format", "") != "stax-graph" || g.value("version", 0) != 1) problems.push_back("format/version");
    if (g.value("name", "") != "rg_" + std::to_string(seed)) problems.push_back("graph name");
    for (const Json& i : g["inputs"]) define(i["name"], "inputs");
    for (const Json& c : g.value("constants", Json::array())) {
      define(c["name"], "constants");
      int has = c.contains("data") + c.contains("fill") + c.contains("file");
      if (has != 1) problems.push_back("constant " + c["name"].get<std::string>() + ": data/fill");
    }
    const Json nodes = g.value("nodes", Json::array());
    for (std::size_t i = 0; i < nodes.size(); ++i) node(nodes[i], "nodes[" + std::to_string(i) + "]", false);
    if (g["outputs"].empty()) problems.push_back("no outputs");
    for (const Json& o : g["outputs"])
      if (!defined.count(o.get<std::string>())) problems.push_back("output '" + o.get<std::string>() + "' undefined");
  }
};

TEST(RandomGraphGenerator, SameSeedSameText) {
  RandomGraphOptions opt;
  for (uint64_t seed = 0; seed < 40; ++seed) {
    EXPECT_EQ(random_graph_json(seed, opt), random_graph_json(seed, opt)) << "seed " << seed;
    EXPECT_EQ(random_graph(seed, opt).ops, random_graph(seed, opt).ops);
  }
  EXPECT_NE(random_graph_json(1, opt), random_graph_json(2, opt));
}

TEST(RandomGraphGenerator, DocumentsAreWellFormed) {
  int n = graph_count(300);
  for (uint64_t seed = 0; seed < static_cast<uint64_t>(n); ++seed) {
    RandomGraph rg = random_graph(seed);
    Json g = Json::parse(rg.json);
    Checker c;
    c.graph(g, seed);
    for (const std::string& p : c.problems) ADD_FAILURE() << "seed " << seed << ": " << p << "\n" << rg.json;
    EXPECT_EQ(rg.name, "rg_" + std::to_string(seed));
    EXPECT_FALSE(rg.may_divide_by_zero) << "zero_divisors is off by default";
  }
}

TEST(RandomGraphGenerator, RespectsLimits) {
  RandomGraphOptions opt;
  opt.max_numel = 48;
  opt.max_rank = 3;
  opt.max_dim = 4;
  for (uint64_t seed = 0; seed < 200; ++seed) {
    RandomGraph rg = random_graph(seed, opt);
    for (const ValueSignature& v : rg.values) {
      EXPECT_LE(shape_numel(v.shape), opt.max_numel) << "seed " << seed << " value " << v.name;
      EXPECT_LE(static_cast<int>(v.shape.size()), opt.max_rank + 1) << "seed " << seed << " value " << v.name;
      for (int64_t d : v.shape) EXPECT_GE(d, 1) << "seed " << seed << " value " << v.name;
    }
  }
}

TEST(RandomGraphGenerator, RespectsDtypes) {
  const std::vector<std::vector<DType>> sets = {
      {DType::Float32}, {DType::Float64, DType::Bool}, {DType::Int32, DType::Int64}, {DType::Int32, DType::Float32, DType::Bool}};
  for (const auto& dts : sets) {
    RandomGraphOptions opt;
    opt.dtypes = dts;
    for (uint64_t seed = 0; seed < 150; ++seed) {
      RandomGraph rg = random_graph(seed, opt);
      for (const ValueSignature& v : rg.values)
        EXPECT_NE(std::find(dts.begin(), dts.end(), v.dtype), dts.end())
            << "seed " << seed << " value " << v.name << " is " << dtype_name(v.dtype) << "\n" << rg.json;
    }
  }
}

TEST(RandomGraphGenerator, FamiliesCanBeTurnedOff) {
  // Helper nodes that keep values in a domain may use these whatever the families.
  const std::set<std::string> helpers = {"abs", "add", "mul", "neg", "tanh", "exp", "sigmoid", "clamp", "to",
                                         "where", "isfinite", "bitwise_or", "full", "gt", "lt", "ge", "le", "eq", "ne"};
  std::set<std::string> reductions = {"sum", "mean", "prod", "amax", "amin", "any", "all", "var", "std",
                                      "logsumexp", "argmax", "argmin"};
  RandomGraphOptions opt;
  opt.elementwise = opt.scans = opt.views = opt.cat_pad = opt.creation = opt.matmul = opt.composites = false;
  opt.conv = opt.pooling = opt.indexing = false;
  int seen = 0;
  for (uint64_t seed = 0; seed < 100; ++seed) {
    for (const std::string& op : random_graph(seed, opt).ops) {
      EXPECT_TRUE(reductions.count(op) || helpers.count(op)) << "seed " << seed << ": " << op;
      seen += static_cast<int>(reductions.count(op));
    }
  }
  EXPECT_GT(seen, 100);
}

TEST(RandomGraphGenerator, OnlyOpsAreUsedAsMainNodes) {
  RandomGraphOptions opt;
  opt.only_ops = {"cumsum", "select"};
  for (uint64_t seed = 0; seed < 50; ++seed) {
    RandomGraph rg = random_graph(seed, opt);
    bool found = false;
    for (const std::string& op : rg.ops) found = found || op == "cumsum" || op == "select";
    EXPECT_TRUE(found) << "seed " << seed << "\n" << rg.json;
  }
  opt.only_ops = {"no_such_op"};
  EXPECT_THROW(random_graph(1, opt), std::invalid_argument);
}

TEST(RandomGraphGenerator, ZeroDivisorsAreFlagged) {
  RandomGraphOptions opt;
  opt.only_ops = {"div", "remainder"};
  opt.dtypes = {DType::Int32, DType::Int64};
  opt.zero_divisors = true;
  int flagged = 0;
  for (uint64_t seed = 0; seed < 100; ++seed) flagged += random_graph(seed, opt).may_divide_by_zero;
  EXPECT_GT(flagged, 10);
  opt.zero_divisors = false;
  for (uint64_t seed = 0; seed < 100; ++seed) EXPECT_FALSE(random_graph(seed, opt).may_divide_by_zero);
}

TEST(RandomGraphGenerator, KnowsEveryOpOfTheFormat) {
  std::vector<std::string> def = ops_def_names();
  std::vector<std::string> mine = random_graph_op_names();
  std::sort(def.begin(), def.end());
  std::sort(mine.begin(), mine.end());
  EXPECT_EQ(def, mine);
}

TEST(RandomGraphGenerator, CoversEveryOpOfOpsDef) {
  std::map<std::string, int> count;
  for (const std::string& op : ops_def_names()) count[op] = 0;
  int n = graph_count(300);
  for (uint64_t seed = 0; seed < static_cast<uint64_t>(n); ++seed)
    for (const std::string& op : random_graph(seed).ops) ++count[op];
  for (const auto& [op, c] : count) {
    EXPECT_GE(c, 3) << "op " << op << " seen " << c << " times in " << n << " graphs";
  }
}

// Corners of the format that must show up over a few hundred graphs.
TEST(RandomGraphGenerator, CoversCornersOfTheFormat) {
  std::map<std::string, int> seen;
  std::function<void(const Json&, bool)> walk = [&](const Json& node, bool inl) {
    if (inl) ++seen["inline node"];
    if (node.contains("keepdim") && node["keepdim"] == true) ++seen["keepdim"];
    for (const char* k : {"dim", "dim0", "dim1", "start_dim", "end_dim"})
      if (node.contains(k) && node[k].is_number_integer() && node[k].get<int64_t>() < 0) ++seen["negative dim"];
    if (node.contains("dim") && node["dim"].is_array()) ++seen["dim list"];
    if (node.contains("dim") && node["dim"].is_null()) ++seen["dim null"];
    for (const Json& a : node["args"]) {
      if (a.is_object()) walk(a, true);
      if (a.is_number_float()) ++seen["float literal"];
      if (a.is_number_integer()) ++seen["int literal"];
      if (a.is_boolean()) ++seen["bool literal"];
      if (a.is_null()) ++seen["null arg"];
      if (a == "inf" || a == "-inf" || a == "nan") ++seen["nonfinite literal"];
    }
    if (node.contains("value") && node["value"].is_string()) ++seen["nonfinite value"];
  };
  const std::set<std::string> views = {"reshape", "permute", "transpose", "expand", "unsqueeze",
                                       "squeeze", "flatten", "slice", "select"};
  const std::set<std::string> binary = {"add", "sub", "mul", "div", "maximum", "minimum", "pow", "eq", "lt", "where"};
  for (uint64_t seed = 0; seed < 300; ++seed) {
    RandomGraph rg = random_graph(seed);
    Json g = Json::parse(rg.json);
    std::map<std::string, Shape> shapes;
    for (const ValueSignature& v : rg.values) shapes[v.name] = v.shape;
    std::set<std::string> view_values;
    for (const Json& n : g.value("nodes", Json::array())) {
      std::string op = n["op"];
      for (const Json& a : n["args"]) {
        bool arg_is_view = (a.is_string() && view_values.count(a.get<std::string>())) ||
                           (a.is_object() && views.count(a["op"].get<std::string>()));
        if (views.count(op) && arg_is_view) ++seen["view of a view"];
      }
      if (views.count(op)) view_values.insert(n["name"].get<std::string>());
      if (binary.count(op)) {
        std::set<std::size_t> ranks;
        for (const Json& a : n["args"])
          if (a.is_string() && shapes.count(a.get<std::string>())) ranks.insert(shapes[a.get<std::string>()].size());
        if (ranks.size() > 1) ++seen["broadcast across ranks"];
      }
      if (shapes.count(n["name"]) && shapes[n["name"]].empty()) ++seen["0-d node"];
    }
    std::set<std::string> names;
    for (const Json& i : g["inputs"]) {
      names.insert(i["name"]);
      if (i["shape"].empty()) ++seen["0-d input"];
    }
    for (const Json& c : g.value("constants", Json::array())) {
      if (c.contains("fill")) ++seen["constant fill"];
      if (c.contains("data")) ++seen["constant data"];
      if (c["shape"].empty()) ++seen["0-d constant"];
      if (c.contains("data") && c["data"].dump().find("\"nan\"") != std::string::npos) ++seen["nan in data"];
    }
    for (const Json& n : g.value("nodes", Json::array())) walk(n, false);
    std::set<std::string> outs;
    for (const Json& o : g["outputs"]) {
      if (!outs.insert(o.get<std::string>()).second) ++seen["repeated output"];
      if (names.count(o.get<std::string>())) ++seen["output is an input"];
    }
    if (g["inputs"].empty()) ++seen["no inputs"];
  }
  for (const char* k : {"inline node", "keepdim", "negative dim", "dim list", "dim null", "float literal",
                        "int literal", "bool literal", "null arg", "nonfinite literal", "nonfinite value",
                        "0-d input", "constant fill", "constant data", "0-d constant", "nan in data",
                        "repeated output", "output is an input", "no inputs", "view of a view",
                        "broadcast across ranks", "0-d node"})
    EXPECT_GT(seen[k], 0) << k;
}

}  // namespace
}  // namespace stax::randgraph
