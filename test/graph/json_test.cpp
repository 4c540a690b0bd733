// The JSON layer: duplicate keys anywhere, depth limit, integer tokens, and no crash on damaged
// documents.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "../../lib/graph/json_doc.h"
#include "graph_test_util.h"

namespace stax::graph {
namespace {

using detail::Json;
using detail::parse_json;

TEST(Json, KeepsOrderAndNumberKinds) {
  Json j = parse_json(R"({"b": 1, "a": 2.0, "c": 1e2, "d": 18446744073709551615, "e": -9223372036854775808})");
  ASSERT_EQ(j.members.size(), 5u);
  EXPECT_EQ(j.members[0].first, "b");
  EXPECT_TRUE(j.find("b")->is_int());
  EXPECT_EQ(j.find("a")->kind, Json::Kind::Float);
  EXPECT_FALSE(j.find("a")->integer_token);
  EXPECT_EQ(j.find("c")->kind, Json::Kind::Float);
  EXPECT_EQ(j.find("d")->kind, Json::Kind::Float);
  EXPECT_TRUE(j.find("d")->integer_token);
  EXPECT_TRUE(j.find("e")->is_int());
  EXPECT_EQ(j.find("e")->i, INT64_MIN);
}

TEST(Json, DuplicateKeysAtAnyDepth) {
  try {
    parse_json(R"({"nodes": [{"a": 1}, {"args": [{"op": "x", "op": "y"}]}]})");
    ADD_FAILURE() << "no error";
  } catch (const GraphError& e) {
    EXPECT_EQ(e.path(), "nodes[1].args[0].op");
    EXPECT_EQ(e.message(), "duplicate key 'op'");
  }
}

TEST(Json, DepthLimit) {
  std::string deep(100000, '[');
  try {
    parse_json(deep);
    ADD_FAILURE() << "no error";
  } catch (const GraphError& e) {
    EXPECT_NE(e.message().find("nested deeper than"), std::string::npos);
  }
}

TEST(Json, Errors) {
  struct Case { const char* text; const char* want; };
  const Case cases[] = {
      {"{\"a\": 1e400}", "invalid JSON at line 1, column"},
      {"{\"a\": 1}  x", "invalid JSON at line 1, column 11"},
      {"{\"a\": \"\xff\"}", "invalid JSON at line 1"},
      {"{\"a\": 01}", "invalid JSON"},
      {"{\n\n  \"a\" 1}", "invalid JSON at line 3, column 7"},
      {"// comment\n{}", "invalid JSON at line 1"},
  };
  for (const Case& c : cases) {
    try {
      parse_json(c.text);
      ADD_FAILURE() << "no error for " << c.text;
    } catch (const GraphError& e) {
      EXPECT_NE(e.message().find(c.want), std::string::npos) << e.message();
    }
  }
}

// Every prefix and many single-byte corruptions of a sample either parse or raise GraphError.
TEST(Json, DamagedDocumentsNeverCrash) {
  std::ifstream in(std::string(STAX_SOURCE_DIR) + "/samples/mlp.json");
  std::stringstream ss;
  ss << in.rdbuf();
  std::string text = ss.str();
  ASSERT_FALSE(text.empty());
  const char replacements[] = {'"', '{', '}', '[', ']', ',', ':', '0', '-', 'x', ' ', '\0', '9', '.'};
  int errors = 0;
  auto attempt = [&](const std::string& t) {
    try {
      parse_graph(t);
    } catch (const GraphError&) {
      ++errors;
    }
  };
  for (std::size_t cut = 0; cut < text.size(); cut += 7) attempt(text.substr(0, cut));
  uint64_t state = 12345;
  for (int k = 0; k < 1500; ++k) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    std::string t = text;
    t[(state >> 33) % t.size()] = replacements[(state >> 20) % sizeof replacements];
    attempt(t);
  }
  EXPECT_GT(errors, 100);
}

}  // namespace
}  // namespace stax::graph
