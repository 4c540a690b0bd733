#include "stax/memory/dump.h"

#include <algorithm>
#include <cstdio>

#include <nlohmann/json.hpp>

namespace stax::memory {

namespace {

using Json = nlohmann::ordered_json;

std::string buffer_name(const MemoryPlan& plan, int b) {
  return b < 0 ? "" : plan.buffers[static_cast<std::size_t>(b)].name;
}

Json tree_json(const MemoryPlan& plan, int node) {
  const ArenaNode& n = plan.tree[static_cast<std::size_t>(node)];
  Json j;
  switch (n.kind) {
    case ArenaNode::Kind::Block: {
      Json names = Json::array();
      for (int b : plan.storages[static_cast<std::size_t>(n.storage)].buffers) names.push_back(buffer_name(plan, b));
      j["block"] = n.storage;
      j["buffers"] = names;
      j["offset"] = n.offset;
      j["size"] = n.size;
      return j;
    }
    case ArenaNode::Kind::Time:
    case ArenaNode::Kind::Space: {
      j["split"] = n.kind == ArenaNode::Kind::Time ? "time" : "space";
      j["offset"] = n.offset;
      j["size"] = n.size;
      Json children = Json::array();
      for (int c : n.children) children.push_back(tree_json(plan, c));
      j["children"] = children;
      return j;
    }
  }
  return j;
}

std::string ratio_text(std::uint64_t num, std::uint64_t den) {
  if (den == 0) return num == 0 ? "1.000" : "inf";
  char text[32];
  std::snprintf(text, sizeof text, "%.3f", static_cast<double>(num) / static_cast<double>(den));
  return text;
}

}  // namespace

std::string dump_memory_json(const MemoryPlan& plan) {
  Json j;
  j["format"] = "stax-memory-plan";
  j["version"] = 1;
  Json order;
  order["chosen"] = order_strategy_name(plan.strategy);
  Json candidates = Json::array();
  for (const OrderCandidate& c : plan.candidates)
    candidates.push_back(Json{{"strategy", order_strategy_name(c.strategy)}, {"peak", c.peak}});
  order["candidates"] = candidates;
  Json steps = Json::array();
  for (int s : plan.order) steps.push_back(plan.step_names[static_cast<std::size_t>(s)]);
  order["steps"] = steps;
  j["order"] = order;
  j["m_star"] = plan.m_star;
  j["planned_peak"] = plan.planned_peak;
  j["sum_intermediates"] = plan.sum_intermediates;
  j["sum_intermediates_aligned"] = plan.sum_intermediates_aligned;
  Json packings = Json::array();
  for (std::size_t i = 0; i < plan.packings.size(); ++i)
    packings.push_back(Json{{"packer", arena_packer_name(kArenaPackers[i])}, {"size", plan.packings[i]}});
  j["arena"] = Json{{"size", plan.arena_size},
                    {"alignment", plan.options.alignment},
                    {"packer", arena_packer_name(plan.packer)},
                    {"packings", packings}};
  j["options"] = Json{{"reorder", plan.options.reorder}, {"reuse", plan.options.reuse}, {"inplace", plan.options.inplace}};

  Json buffers = Json::array();
  for (const BufferPlan& b : plan.buffers) {
    Json jb;
    jb["name"] = b.name;
    jb["role"] = buffer_role_name(b.role);
    jb["dtype"] = dtype_name(b.dtype);
    jb["bytes"] = b.bytes;
    jb["lifetime"] = Json::array({b.life.def, b.life.last});
    if (b.role == BufferRole::Intermediate) {
      jb["offset"] = b.offset;
      jb["placement"] = placement_name(b.placement);
      if (b.shares >= 0) jb["shares"] = buffer_name(plan, b.shares);
      jb["storage"] = b.storage;
    }
    buffers.push_back(jb);
  }
  j["buffers"] = buffers;

  Json storages = Json::array();
  for (const StoragePlan& st : plan.storages) {
    Json names = Json::array();
    for (int b : st.buffers) names.push_back(buffer_name(plan, b));
    storages.push_back(Json{{"buffers", names},
                            {"bytes", st.bytes},
                            {"aligned", st.aligned},
                            {"lifetime", Json::array({st.life.def, st.life.last})},
                            {"offset", st.offset}});
  }
  j["storages"] = storages;
  Json reuse{{"taken", plan.reuses}, {"refused_for_peak", plan.reuses_refused}, {"bound", plan.reuse_bound}};
  if (plan.options.reuse) {
    reuse["arena_with_pool"] = plan.arena_with_pool;
    reuse["arena_without_pool"] = plan.arena_without_pool;
    reuse["pool_dropped"] = plan.pool_dropped;
  }
  j["reuse"] = reuse;

  Json inplace = Json::array();
  for (const InPlaceDecision& d : plan.inplace) {
    Json jd{{"step", plan.step_names[static_cast<std::size_t>(d.step)]},
            {"read", buffer_name(plan, d.read)},
            {"write", buffer_name(plan, d.write)},
            {"accepted", d.accepted}};
    if (!d.accepted) jd["reason"] = d.reason;
    inplace.push_back(jd);
  }
  j["inplace"] = inplace;
  if (plan.packer == ArenaPacker::Tree && !plan.tree.empty()) j["tree"] = tree_json(plan, 0);
  return j.dump(2) + "\n";
}

std::string memory_summary(const MemoryPlan& plan) {
  std::string s = "memory: order " + std::string(order_strategy_name(plan.strategy)) + " (peaks:";
  for (const OrderCandidate& c : plan.candidates)
    s += " " + std::string(order_strategy_name(c.strategy)) + " " + std::to_string(c.peak);
  s += ")\n";
  int intermediates = 0, inplace = 0;
  for (const BufferPlan& b : plan.buffers) {
    if (b.role != BufferRole::Intermediate) continue;
    ++intermediates;
    if (b.placement == Placement::InPlace) ++inplace;
  }
  s += "memory: M* " + std::to_string(plan.m_star) + " B, arena " + std::to_string(plan.arena_size) + " B by " +
       std::string(arena_packer_name(plan.packer)) + " (tree " + std::to_string(plan.packings.empty() ? 0 : plan.packings[0]) +
       " B), arena/M* " + ratio_text(plan.arena_size, plan.m_star) + "\n";
  s += "memory: " + std::to_string(intermediates) + " intermediates of " + std::to_string(plan.sum_intermediates) +
       " B in " + std::to_string(plan.storages.size()) + " storages; " + std::to_string(plan.reuses) + " reused, " +
       std::to_string(inplace) + " in place, " + std::to_string(plan.reuses_refused) + " reuse(s) refused for the peak" +
       (plan.pool_dropped ? "; reuse pool dropped (arena " + std::to_string(plan.arena_with_pool) + " B with it)" : "") +
       "\n";
  // The largest intermediates, where the memory goes.
  std::vector<int> big;
  for (std::size_t b = 0; b < plan.buffers.size(); ++b)
    if (plan.buffers[b].role == BufferRole::Intermediate) big.push_back(static_cast<int>(b));
  std::stable_sort(big.begin(), big.end(), [&plan](int a, int b) {
    return plan.buffers[static_cast<std::size_t>(a)].bytes > plan.buffers[static_cast<std::size_t>(b)].bytes;
  });
  if (big.size() > 5) big.resize(5);
  for (int b : big) {
    const BufferPlan& x = plan.buffers[static_cast<std::size_t>(b)];
    s += "memory:   " + x.name + " " + std::to_string(x.bytes) + " B live [" + std::to_string(x.life.def) + ", " +
         std::to_string(x.life.last) + "] at " + std::to_string(x.offset) + " (" + std::string(placement_name(x.placement)) +
         (x.shares >= 0 ? " of " + buffer_name(plan, x.shares) : std::string()) + ")\n";
  }
  return s;
}

}  // namespace stax::memory
