#include "shrink.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <optional>
#include <set>
#include <vector>

#include "stax/graph/frontend.h"
#include "stax/support/dtype.h"
#include "stax/support/error.h"

namespace stax::randgraph {

namespace {

using Doc = nlohmann::ordered_json;

// The names of values an argument list refers to, inline nodes included.
void collect_refs(const Doc& args, const std::set<std::string>& defined, std::set<std::string>& out) {
  for (const Doc& a : args) {
    if (a.is_string() && defined.count(a.get<std::string>())) out.insert(a.get<std::string>());
    if (a.is_object() && a.contains("args")) collect_refs(a["args"], defined, out);
  }
}

std::vector<std::string> names_of(const Doc& list) {
  std::vector<std::string> names;
  if (list.is_array())
    for (const Doc& v : list) names.push_back(v.value("name", std::string()));
  return names;
}

// Drops the inputs, constants and nodes no output needs.
void prune(Doc& d) {
  std::set<std::string> defined;
  for (const char* part : {"inputs", "constants", "nodes"})
    for (const std::string& n : names_of(d.value(part, Doc::array()))) defined.insert(n);
  std::set<std::string> live;
  for (const Doc& o : d["outputs"]) live.insert(o.get<std::string>());
  Doc& nodes = d["nodes"];
  for (auto it = nodes.rbegin(); it != nodes.rend(); ++it)
    if (live.count((*it)["name"].get<std::string>())) collect_refs((*it)["args"], defined, live);
  for (const char* part : {"inputs", "constants", "nodes"}) {
    if (!d.contains(part)) continue;
    Doc kept = Doc::array();
    for (const Doc& v : d[part])
      if (live.count(v["name"].get<std::string>())) kept.push_back(v);
    d[part] = kept;
  }
}

// The document with the named nodes `cut` made inputs of the dtype and shape the front end
// infers for them, then pruned; nullopt when it cannot be parsed.
std::optional<Doc> cut_nodes(const Doc& d, const std::set<std::string>& cut) {
  graph::Graph g;
  try {
    g = graph::parse_graph(d.dump());
  } catch (const UserError&) {
    return std::nullopt;
  }
  Doc out = d;
  Doc nodes = Doc::array();
  for (const Doc& n : d["nodes"]) {
    std::string name = n["name"].get<std::string>();
    if (!cut.count(name)) {
      nodes.push_back(n);
      continue;
    }
    const graph::Value& v = g[g.find(name)];
    out["inputs"].push_back(Doc{{"name", name}, {"dtype", std::string(dtype_name(v.dtype))}, {"shape", v.shape}});
  }
  out["nodes"] = nodes;
  prune(out);
  return out;
}

bool accepted(const Doc& d) {
  try {
    (void)graph::parse_graph(d.dump());
    return true;
  } catch (const UserError&) {
    return false;
  }
}

class Shrinker {
 public:
  Shrinker(const std::function<bool(const std::string&)>& fails, int max_tests) : fails_(fails), left_(max_tests) {}

  // Tries `d`: true (and it becomes the best) when valid and still failing.
  bool attempt(const Doc& d) {
    if (left_ <= 0 || !accepted(d)) return false;
    --left_;
    if (!fails_(d.dump())) return false;
    best_ = d;
    return true;
  }

  void outputs() {
    const Doc outs = best_["outputs"];
    if (outs.size() < 2) return;
    for (const Doc& o : outs) {
      Doc d = best_;
      d["outputs"] = Doc::array({o});
      prune(d);
      if (attempt(d)) return;
    }
  }

  // ddmin over the named nodes: cut chunks of them, halving the chunk size when none can go.
  void nodes() {
    std::size_t chunks = 2;
    while (left_ > 0) {
      std::vector<std::string> names = names_of(best_["nodes"]);
      if (names.empty()) return;
      chunks = std::min(chunks, names.size());
      std::size_t size = (names.size() + chunks - 1) / chunks;
      bool progress = false;
      for (std::size_t start = 0; start < names.size() && !progress; start += size) {
        std::set<std::string> cut(names.begin() + static_cast<std::ptrdiff_t>(start),
                                  names.begin() + static_cast<std::ptrdiff_t>(std::min(names.size(), start + size)));
        std::optional<Doc> d = cut_nodes(best_, cut);
        progress = d && attempt(*d);
      }
      if (progress) chunks = std::max<std::size_t>(2, chunks - 1);
      else if (chunks >= names.size()) return;
      else chunks = std::min(names.size(), chunks * 2);
    }
  }

  void shapes() {
    for (std::size_t i = 0; i < best_["inputs"].size(); ++i)
      for (std::size_t k = 0; k < best_["inputs"][i]["shape"].size(); ++k)
        for (bool to_one : {true, false}) {
          int64_t dim = best_["inputs"][i]["shape"][k].get<int64_t>();
          int64_t smaller = to_one ? 1 : dim / 2;
          if (smaller < 1 || smaller >= dim) continue;
          Doc d = best_;
          d["inputs"][i]["shape"][k] = smaller;
          if (attempt(d)) break;
        }
  }

  const Doc& best() const { return best_; }
  void start(const Doc& d) { best_ = d; }

 private:
  const std::function<bool(const std::string&)>& fails_;
  int left_;
  Doc best_;
};

}  // namespace

std::string shrink_graph(const std::string& json, const std::function<bool(const std::string&)>& fails, int max_tests) {
  Shrinker s(fails, max_tests);
  Doc d = Doc::parse(json);
  if (!d.contains("inputs")) d["inputs"] = Doc::array();
  if (!d.contains("nodes")) d["nodes"] = Doc::array();
  s.start(d);
  s.outputs();
  s.nodes();
  s.shapes();
  s.nodes();  // smaller shapes can let more nodes go
  return s.best().dump(1);
}

}  // namespace stax::randgraph
