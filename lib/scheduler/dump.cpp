// --dump-schedule JSON and the text form of a Schedule.
#include "stax/scheduler/dump.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <sstream>

namespace stax::scheduler {

namespace {

using Json = nlohmann::ordered_json;

Json sizes_json(const std::vector<int64_t>& v) {
  Json a = Json::array();
  for (int64_t s : v) a.push_back(s);
  return a;
}

Json group_json(const IterationGroup& g) { return Json::array({sizes_json(g.n), sizes_json(g.r)}); }

Json names_json(const std::vector<ir::BufferId>& ids, const ir::Program& p) {
  Json a = Json::array();
  for (ir::BufferId b : ids) a.push_back(p[b].name);
  return a;
}

std::string names_text(const std::vector<ir::BufferId>& ids, const ir::Program& p) {
  std::string s;
  for (ir::BufferId b : ids) s += (s.empty() ? "" : ", ") + p[b].name;
  return s.empty() ? "-" : s;
}

// A value without objects inside.
bool flat(const Json& j) {
  if (j.is_object()) return false;
  if (!j.is_array()) return true;
  return std::all_of(j.begin(), j.end(), [](const Json& e) { return flat(e); });
}

// Two-space indentation like Json::dump(2), but arrays without objects on one line
// ("group": [[64], [128]]), so that a schedule reads and diffs well.
void write(const Json& j, int indent, std::string& out) {
  if (flat(j) && j.is_array()) {
    out += "[";
    for (std::size_t i = 0; i < j.size(); ++i) {
      if (i) out += ", ";
      write(j[i], indent, out);
    }
    out += "]";
    return;
  }
  if (!j.is_array() && !j.is_object()) {
    out += j.dump();
    return;
  }
  const std::string pad(static_cast<std::size_t>(indent + 2), ' ');
  const bool object = j.is_object();
  if (j.empty()) {
    out += object ? "{}" : "[]";
    return;
  }
  out += object ? "{\n" : "[\n";
  std::size_t i = 0;
  for (auto it = j.begin(); it != j.end(); ++it, ++i) {
    out += pad;
    if (object) out += Json(it.key()).dump() + ": ";
    write(it.value(), indent + 2, out);
    out += i + 1 < j.size() ? ",\n" : "\n";
  }
  out += std::string(static_cast<std::size_t>(indent), ' ') + (object ? "}" : "]");
}

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const std::string& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

}  // namespace

std::string dump_schedule_json(const Schedule& s, const ir::Program& p) {
  Json doc;
  doc["format"] = "stax-schedule";
  doc["version"] = 1;
  doc["program"] = s.program;
  doc["fusion"] = s.fusion;
  Json kernels = Json::array();
  for (const Kernel& k : s.kernels) {
    Json j;
    j["name"] = k.name;
    j["kind"] = std::string(kernel_kind_name(k.kind));
    j["class"] = std::string(kernel_class_name(k.kind));
    Json nodes = Json::array(), buffers = Json::array(), node_loops = Json::array();
    for (const KernelNode& n : k.nodes) {
      nodes.push_back(n.name);
      buffers.push_back(p[n.buffer].name);
      Json nl;
      nl["node"] = n.name;
      nl["buffer"] = p[n.buffer].name;
      nl["kind"] = std::string(node_kind_name(n.kind));
      nl["group"] = group_json(n.group);
      if (n.loop_group >= 0) {
        const LoopGroup& lg = k.loop_groups[static_cast<std::size_t>(n.loop_group)];
        nl["loop_group"] = n.loop_group;
        nl["inner"] = sizes_json(lg.inner);
        nl["reduce"] = sizes_json(lg.reduce);
      }
      node_loops.push_back(std::move(nl));
    }
    j["nodes"] = std::move(nodes);
    j["buffers"] = std::move(buffers);
    Json origins = Json::array();
    for (const std::string& o : k.graph_nodes) origins.push_back(o);
    j["graph_nodes"] = std::move(origins);
    j["group"] = group_json(k.group);
    j["outer_loops"] = sizes_json(k.outer);
    Json groups = Json::array();
    for (const LoopGroup& lg : k.loop_groups) {
      Json gj;
      Json members = Json::array();
      for (int idx : lg.nodes) members.push_back(k.nodes[static_cast<std::size_t>(idx)].name);
      gj["nodes"] = std::move(members);
      gj["inner"] = sizes_json(lg.inner);
      gj["reduce"] = sizes_json(lg.reduce);
      groups.push_back(std::move(gj));
    }
    j["loop_groups"] = std::move(groups);
    j["node_loops"] = std::move(node_loops);
    j["reads"] = names_json(k.reads, p);
    j["writes"] = names_json(k.writes, p);
    j["internal"] = names_json(k.internal, p);
    j["bytes_read"] = k.bytes_read;
    j["bytes_written"] = k.bytes_written;
    kernels.push_back(std::move(j));
  }
  doc["kernels"] = std::move(kernels);
  Json fusions = Json::array();
  for (const FusionRecord& r : s.fusions) {
    Json j;
    j["round"] = r.round;
    j["first"] = r.first;
    j["second"] = r.second;
    j["result"] = r.result;
    j["kind"] = std::string(kernel_kind_name(r.kind));
    j["vertical"] = r.vertical;
    j["depth"] = r.depth;
    j["reason"] = r.reason;
    j["score"] = Json{{"type", r.score.type}, {"bytes", r.score.bytes}, {"buffers", r.score.buffers},
                      {"distance", r.score.distance}};
    fusions.push_back(std::move(j));
  }
  doc["fusions"] = std::move(fusions);
  Json refusals = Json::object();
  for (std::size_t r = 0; r < kRefusalCount; ++r)
    refusals[std::string(refusal_name(static_cast<Refusal>(r)))] = s.refusals[r];
  doc["refusals"] = std::move(refusals);
  doc["rounds"] = s.rounds;
  Json dead = Json::array();
  for (const std::string& d : s.dead) dead.push_back(d);
  doc["dead_nodes"] = std::move(dead);
  doc["traffic"] = Json{{"bytes_read", s.traffic.bytes_read},
                        {"bytes_written", s.traffic.bytes_written},
                        {"total", s.traffic.total()}};
  std::string out;
  write(doc, 0, out);
  return out + "\n";
}

std::string dump_schedule_text(const Schedule& s, const ir::Program& p) {
  std::ostringstream os;
  os << "schedule " << s.program << ": " << s.kernels.size() << " kernel(s), fusion "
     << (s.fusion ? "on" : "off") << ", " << s.rounds << " round(s)\n";
  for (std::size_t i = 0; i < s.kernels.size(); ++i) {
    const Kernel& k = s.kernels[i];
    os << "kernel " << i << ": " << k.name << " (" << kernel_kind_name(k.kind) << ") computes "
       << join(k.graph_nodes) << "\n";
    os << "  group " << to_string(k.group) << ", outer loops " << tuple_text(k.outer) << "\n";
    for (std::size_t gi = 0; gi < k.loop_groups.size(); ++gi) {
      const LoopGroup& lg = k.loop_groups[gi];
      std::vector<std::string> names;
      for (int idx : lg.nodes) {
        const KernelNode& n = k.nodes[static_cast<std::size_t>(idx)];
        names.push_back(n.name + " " + p[n.buffer].name + " " + std::string(node_kind_name(n.kind)) + " " +
                        to_string(n.group));
      }
      os << "  loops " << gi << ": inner " << tuple_text(lg.inner) << ", reduce " << tuple_text(lg.reduce) << ": "
         << join(names) << "\n";
    }
    if (k.loop_groups.empty())
      for (const KernelNode& n : k.nodes)
        os << "  " << n.name << " " << p[n.buffer].name << " " << node_kind_name(n.kind) << "\n";
    os << "  reads " << names_text(k.reads, p) << "; writes " << names_text(k.writes, p) << "; internal "
       << names_text(k.internal, p) << "; " << k.bytes_read << " bytes read, " << k.bytes_written
       << " bytes written\n";
  }
  for (const FusionRecord& r : s.fusions)
    os << "fusion round " << r.round << ": " << r.first << " + " << r.second << " -> " << r.result << " ("
       << kernel_kind_name(r.kind) << "; " << (r.vertical ? "vertical" : "horizontal") << " fusion: " << r.reason
       << "), score " << to_string(r.score) << "\n";
  std::string refusals;
  for (std::size_t r = 0; r < kRefusalCount; ++r)
    if (s.refusals[r] > 0)
      refusals += (refusals.empty() ? "" : ", ") + std::string(refusal_name(static_cast<Refusal>(r))) + " " +
                  std::to_string(s.refusals[r]);
  os << "refusals: " << (refusals.empty() ? "none" : refusals) << "\n";
  if (!s.dead.empty()) os << "dead nodes: " << join(s.dead) << "\n";
  os << "traffic: " << s.traffic.bytes_read << " bytes read, " << s.traffic.bytes_written << " bytes written, "
     << s.traffic.total() << " total\n";
  return os.str();
}

}  // namespace stax::scheduler
