// The JSON dump and the text summary of a plan.
#include "stax/memory/dump.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "problems.h"

namespace stax::memory {
namespace {

TEST(Dump, JsonOfASmallPlan) {
  testing::ProblemBuilder b;
  const int x = b.input("x", 256);
  const int a = b.intermediate("a", 256);
  const int c = b.intermediate("c", 256);
  const int d = b.intermediate("d", 100, DType::Int32);
  const int out = b.output("out", 256);
  b.step("k0", {a}, {x});
  b.step("k1", {c}, {a}, {{a, c}});
  b.step("k2", {d}, {c});
  b.step("k3", {out}, {c, d}, {{d, out}});
  const MemoryPlan plan = plan_memory(b.p);
  const nlohmann::json j = nlohmann::json::parse(dump_memory_json(plan));
  EXPECT_EQ(j["format"], "stax-memory-plan");
  EXPECT_EQ(j["version"], 1);
  EXPECT_EQ(j["order"]["chosen"], "original");
  ASSERT_EQ(j["order"]["candidates"].size(), 4u);
  EXPECT_EQ(j["order"]["candidates"][0]["strategy"], "original");
  EXPECT_EQ(j["order"]["candidates"][0]["peak"], 512);  // a and c at k1
  EXPECT_EQ(j["order"]["steps"], nlohmann::json::parse(R"(["k0", "k1", "k2", "k3"])"));
  EXPECT_EQ(j["m_star"], 512);
  EXPECT_EQ(j["planned_peak"], 356);
  EXPECT_EQ(j["sum_intermediates"], 612);
  EXPECT_EQ(j["sum_intermediates_aligned"], 640);
  EXPECT_EQ(j["arena"]["size"], 384);  // the a/c storage (256) and d (100 -> 128) side by side
  EXPECT_EQ(j["arena"]["alignment"], 64);
  EXPECT_EQ(j["arena"]["packer"], "tree");
  ASSERT_EQ(j["arena"]["packings"].size(), 5u);
  EXPECT_EQ(j["arena"]["packings"][1]["packer"], "best-fit/size");
  EXPECT_EQ(j["reuse"]["bound"], 356);
  const nlohmann::json& bc = j["buffers"][static_cast<std::size_t>(c)];
  EXPECT_EQ(bc["name"], "c");
  EXPECT_EQ(bc["role"], "intermediate");
  EXPECT_EQ(bc["dtype"], "float32");
  EXPECT_EQ(bc["bytes"], 256);
  EXPECT_EQ(bc["lifetime"], nlohmann::json::parse("[1, 3]"));
  EXPECT_EQ(bc["placement"], "in-place");
  EXPECT_EQ(bc["shares"], "a");
  EXPECT_EQ(bc["offset"], j["buffers"][static_cast<std::size_t>(a)]["offset"]);
  const nlohmann::json& bx = j["buffers"][static_cast<std::size_t>(x)];
  EXPECT_EQ(bx["role"], "input");
  EXPECT_EQ(bx["lifetime"], nlohmann::json::parse("[-1, 0]"));
  EXPECT_FALSE(bx.contains("offset"));
  EXPECT_EQ(j["buffers"][static_cast<std::size_t>(out)]["lifetime"], nlohmann::json::parse("[3, 3]"));
  ASSERT_EQ(j["inplace"].size(), 2u);
  EXPECT_EQ(j["inplace"][0]["accepted"], true);
  EXPECT_EQ(j["inplace"][1]["reason"], "the written buffer is a graph output");
  EXPECT_EQ(j["storages"].size(), 2u);
  (void)d;
}

TEST(Dump, SummaryLines) {
  testing::ProblemBuilder b;
  const int x = b.input("x", 4096);
  const int a = b.intermediate("a", 4096);
  const int out = b.output("out", 4096);
  b.step("k0", {a}, {x});
  b.step("k1", {out}, {a});
  const std::string s = memory_summary(plan_memory(b.p));
  EXPECT_NE(s.find("memory: order original (peaks: original 4096 least-increase 4096"), std::string::npos) << s;
  EXPECT_NE(s.find("M* 4096 B, arena 4096 B by tree (tree 4096 B), arena/M* 1.000"), std::string::npos) << s;
  EXPECT_NE(s.find("memory:   a 4096 B live [0, 1] at 0 (fresh)"), std::string::npos) << s;
}

}  // namespace
}  // namespace stax::memory
