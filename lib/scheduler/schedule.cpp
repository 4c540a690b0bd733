// The scheduler's pipeline (§7.6 steps 1-4) and Algorithm 7.1's greedy rounds.
#include "stax/scheduler/schedule.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <unordered_set>

#include "stax/scheduler/peak.h"
#include "stax/support/error.h"

namespace stax::scheduler {

namespace {

struct Candidate {
  int a = -1, b = -1;
  const FusionDecision* decision = nullptr;
};

// A stable merge sort: deterministic for any comparator, also one that is not a strict weak
// order (the 16x rule of score_before need not be transitive, which std::sort cannot take).
void merge_sort(std::vector<Candidate>& v) {
  std::vector<Candidate> tmp(v.size());
  for (std::size_t width = 1; width < v.size(); width *= 2) {
    for (std::size_t lo = 0; lo < v.size(); lo += 2 * width) {
      const std::size_t mid = std::min(lo + width, v.size()), hi = std::min(lo + 2 * width, v.size());
      std::size_t i = lo, j = mid, k = lo;
      while (i < mid && j < hi) {
        if (score_before(v[j].decision->score, v[i].decision->score)) tmp[k++] = std::move(v[j++]);
        else tmp[k++] = std::move(v[i++]);
      }
      while (i < mid) tmp[k++] = std::move(v[i++]);
      while (j < hi) tmp[k++] = std::move(v[j++]);
    }
    v.swap(tmp);
  }
}

uint64_t pair_key(const std::pair<int, int>& p) {
  return (static_cast<uint64_t>(static_cast<uint32_t>(p.first)) << 32) | static_cast<uint32_t>(p.second);
}

class Logger {
 public:
  explicit Logger(const LogOptions& o) : o_(o) {}
  bool on() const { return static_cast<bool>(o_.sink); }
  bool verbose() const { return on() && o_.verbose; }
  void line(const std::string& s) const {
    if (on()) o_.sink(s);
  }
  // Each line of a multi-line text.
  void text(const std::string& s) const {
    if (!on()) return;
    std::size_t start = 0;
    while (start < s.size()) {
      std::size_t end = s.find('\n', start);
      if (end == std::string::npos) end = s.size();
      o_.sink(s.substr(start, end - start));
      start = end + 1;
    }
  }

 private:
  const LogOptions& o_;
};

std::string class_list(const Fuser& f, const FusedNode& n) {
  std::string s;
  for (int m : n.members) {
    const NodeKind k = f.graph().nodes[static_cast<std::size_t>(m)].kind;
    s += (s.empty() ? "" : ",") + std::string(k == NodeKind::Extern ? "ExternKernelSchedulerNode" : "SchedulerNode");
  }
  return s;
}

// Why fusing a and b would raise the peak memory too much, or "" (FusionOptions::max_peak_growth).
// `peak` caches M* of the graph as it is.
std::string peak_growth(const Fuser& f, int a, int b, const FusionOptions& opts, std::optional<uint64_t>& peak) {
  if (footprint(f, a, b) < opts.peak_check_bytes) return "";
  if (!peak) peak = estimate_peak(f);
  const uint64_t after = estimate_peak(f, {a, b});
  const double limit = static_cast<double>(*peak) * (1.0 + opts.max_peak_growth);
  if (after < *peak + opts.peak_check_bytes || static_cast<double>(after) <= limit) return "";
  return "the estimated peak memory M* would rise from " + std::to_string(*peak) + " to " + std::to_string(after) +
         " bytes, more than " + std::to_string(static_cast<int>(opts.max_peak_growth * 100)) +
         "% (buffers the two read or write would all be live at once)";
}

// Algorithm 7.1. Returns the number of rounds run.
//
// can_fuse depends on the two fused nodes alone, and a merge creates a node with a new id, so a
// decision about a pair of ids stays true in later rounds: it is made (counted and logged) once.
// So is a cycle: merges never remove a path between two other nodes.
int fuse_rounds(Fuser& f, const FusionOptions& opts, const Logger& log, Schedule& s) {
  std::map<std::pair<int, int>, FusionDecision> accepted;
  std::unordered_set<uint64_t> refused;  // pair keys (pair_key), by can_fuse, for a cycle or the peak
  std::optional<uint64_t> peak;          // M* of the current fused graph, once estimated
  int round = 0;
  while (round < opts.max_rounds) {
    ++round;
    const std::size_t before = f.alive().size();
    log.line("===== fusion round " + std::to_string(round) + "/" + std::to_string(opts.max_rounds) + ": " +
             std::to_string(before) + " nodes =====");
    // Lines 2-3: pairs sharing a buffer, kept when can_fuse says yes.
    std::vector<Candidate> possible;
    for (const std::pair<int, int>& pair : f.candidates()) {
      if (refused.count(pair_key(pair))) continue;
      auto known = accepted.find(pair);
      if (known == accepted.end()) {
        FusionDecision d = f.can_fuse(pair.first, pair.second);
        if (!d.ok) {
          refused.insert(pair_key(pair));
          ++s.refusals[static_cast<std::size_t>(d.refusal)];
          if (log.verbose())
            log.line("cannot fuse " + f.node(pair.first).name + " with " + f.node(pair.second).name + " (" +
                     std::string(refusal_name(d.refusal)) + "): " + d.reason);
          continue;
        }
        known = accepted.emplace(pair, std::move(d)).first;
      }
      possible.push_back(Candidate{pair.first, pair.second, &known->second});
    }
    log.line("found " + std::to_string(possible.size()) + " possible fusions");
    // Line 4: best score first.
    merge_sort(possible);
    // Lines 5-7: each node fuses at most once per round; Proposition 7.1 at the time of the merge.
    std::set<int> fused_now;
    int merged = 0;
    for (const Candidate& c : possible) {
      const std::string& na = f.node(c.a).name;
      const std::string& nb = f.node(c.b).name;
      if (fused_now.count(c.a) || fused_now.count(c.b)) {
        if (log.verbose()) log.line("skipping " + na + " with " + nb + ": one of them was fused in this round");
        continue;
      }
      if (f.would_create_cycle(c.a, c.b)) {
        refused.insert(pair_key({c.a, c.b}));
        ++s.refusals[static_cast<std::size_t>(Refusal::Cycle)];
        if (log.verbose())
          log.line("cannot fuse " + na + " with " + nb + " (cycle): the merge would close a cycle (Proposition 7.1)");
        continue;
      }
      if (const std::string why = peak_growth(f, c.a, c.b, opts, peak); !why.empty()) {
        refused.insert(pair_key({c.a, c.b}));
        ++s.refusals[static_cast<std::size_t>(Refusal::PeakMemory)];
        log.line("cannot fuse " + na + " with " + nb + " (peak_memory): " + why);
        continue;
      }
      const FusionDecision& d = *c.decision;
      FusionRecord r;
      r.round = round;
      r.first = d.swap ? nb : na;  // before the merge, which may move the names
      r.second = d.swap ? na : nb;
      const int id = f.fuse(c.a, c.b, d);
      peak.reset();
      fused_now.insert(c.a);
      fused_now.insert(c.b);
      ++merged;
      const FusedNode& m = f.node(id);
      r.result = m.name;
      r.kind = m.kind;
      r.vertical = d.vertical;
      r.depth = d.depth;
      r.reason = d.reason;
      r.score = d.score;
      if (log.on()) {
        log.line("fusing " + r.first + " with " + r.second);
        log.line("  " + std::string(r.vertical ? "vertical" : "horizontal") + " fusion: " + r.reason + "; score " +
                 to_string(r.score) + ": shared data " + std::to_string(r.score.bytes) + " bytes in " +
                 std::to_string(r.score.buffers) + " buffer(s)");
        log.line(m.name + ": " + std::string(kernel_class_name(m.kind)) + "(" + class_list(f, m) + ")");
      }
      s.fusions.push_back(std::move(r));
    }
    const std::size_t after = f.alive().size();
    log.line("round " + std::to_string(round) + "/" + std::to_string(opts.max_rounds) + ": fused " +
             std::to_string(before) + " nodes into " + std::to_string(after) + " nodes");
    if (merged == 0) break;
  }
  return round;
}

// The fused nodes in a topological order, the earliest first among the ready ones.
std::vector<int> kernel_order(const Fuser& f) {
  const std::vector<int> alive = f.alive();
  std::map<int, std::size_t> index;
  for (std::size_t k = 0; k < alive.size(); ++k) index[alive[k]] = k;
  std::vector<std::set<std::size_t>> users(alive.size());
  std::vector<int> indegree(alive.size(), 0);
  for (std::size_t k = 0; k < alive.size(); ++k) {
    std::set<std::size_t> preds;
    for (int m : f.node(alive[k]).members)
      for (int pnode : f.graph().nodes[static_cast<std::size_t>(m)].preds) {
        const std::size_t j = index.at(f.holder(pnode));
        if (j != k) preds.insert(j);
      }
    indegree[k] = static_cast<int>(preds.size());
    for (std::size_t j : preds) users[j].insert(k);
  }
  std::set<std::size_t> ready;  // positions in `alive`, which is sorted by min_order
  for (std::size_t k = 0; k < alive.size(); ++k)
    if (indegree[k] == 0) ready.insert(k);
  std::vector<int> order;
  while (!ready.empty()) {
    const std::size_t k = *ready.begin();
    ready.erase(ready.begin());
    order.push_back(alive[k]);
    for (std::size_t u : users[k])
      if (--indegree[u] == 0) ready.insert(u);
  }
  STAX_ASSERT(order.size() == alive.size(), "the fused kernels form a cycle");
  return order;
}

Kernel make_kernel(const Fuser& f, const FusedNode& n) {
  const SchedulerGraph& g = f.graph();
  Kernel k;
  k.name = n.name;
  k.kind = n.kind;
  k.outer = n.outer;
  auto add_node = [&](int v, int loop_group) {
    const SchedulerNode& sn = g.nodes[static_cast<std::size_t>(v)];
    KernelNode kn;
    kn.name = sn.name;
    kn.buffer = sn.buffer;
    kn.kind = sn.kind;
    kn.group = sn.group;
    kn.loop_group = loop_group;
    kn.loops = f.loops(v);
    k.nodes.push_back(std::move(kn));
    for (const std::string& o : sn.origins)
      if (std::find(k.graph_nodes.begin(), k.graph_nodes.end(), o) == k.graph_nodes.end()) k.graph_nodes.push_back(o);
    return static_cast<int>(k.nodes.size()) - 1;
  };
  if (n.groups.empty()) {
    for (int v : n.members) add_node(v, -1);
  } else if (n.kind == KernelKind::Epilogue) {
    add_node(n.members.front(), -1);  // the matmul, then its epilogue's loop group
  }
  for (std::size_t gi = 0; gi < n.groups.size(); ++gi) {
    LoopGroup lg = n.groups[gi];
    lg.nodes.clear();
    for (int v : n.groups[gi].nodes) lg.nodes.push_back(add_node(v, static_cast<int>(gi)));
    k.loop_groups.push_back(std::move(lg));
  }
  const KernelNode* rep = &k.nodes.back();  // an epilogue's loops are the kernel's
  if (n.kind != KernelKind::Epilogue) rep = &k.nodes.front();
  for (const KernelNode& kn : k.nodes)
    if (kn.kind == NodeKind::Reduction) {
      rep = &kn;
      break;
    }
  k.group = rep->group;
  return k;
}

}  // namespace

Traffic estimate_traffic(const ir::Program& p, std::vector<Kernel>& kernels, const std::vector<SchedulerNode>& nodes) {
  std::vector<int> kernel_of_buffer(p.buffers.size(), -1);
  for (std::size_t k = 0; k < kernels.size(); ++k)
    for (const KernelNode& kn : kernels[k].nodes) kernel_of_buffer[static_cast<std::size_t>(kn.buffer)] = static_cast<int>(k);
  std::vector<bool> is_output(p.buffers.size(), false);
  for (const ir::ProgramOutput& o : p.outputs) is_output[static_cast<std::size_t>(o.buffer)] = true;
  std::vector<const SchedulerNode*> node_of(p.buffers.size(), nullptr);
  for (const SchedulerNode& n : nodes) node_of[static_cast<std::size_t>(n.buffer)] = &n;
  // The kernels reading each buffer.
  std::vector<std::set<int>> readers(p.buffers.size());
  for (std::size_t k = 0; k < kernels.size(); ++k)
    for (const KernelNode& kn : kernels[k].nodes)
      for (const Dep& d : node_of[static_cast<std::size_t>(kn.buffer)]->reads)
        readers[static_cast<std::size_t>(d.buffer)].insert(static_cast<int>(k));

  Traffic t;
  for (std::size_t k = 0; k < kernels.size(); ++k) {
    Kernel& kernel = kernels[k];
    kernel.reads.clear();
    kernel.writes.clear();
    kernel.internal.clear();
    kernel.bytes_read = kernel.bytes_written = 0;
    std::set<Dep> deps;
    for (const KernelNode& kn : kernel.nodes)
      for (const Dep& d : node_of[static_cast<std::size_t>(kn.buffer)]->reads)
        if (d.kind != DepKind::Weak && kernel_of_buffer[static_cast<std::size_t>(d.buffer)] != static_cast<int>(k))
          deps.insert(d);
    std::map<ir::BufferId, uint64_t> read_bytes;
    for (const Dep& d : deps) read_bytes[d.buffer] += dep_bytes(d, p);
    for (auto& [b, bytes] : read_bytes) {
      const ir::Buffer& buf = p[b];
      bytes = std::min<uint64_t>(bytes, static_cast<uint64_t>(buf.numel()) * dtype_size(buf.dtype));
      kernel.reads.push_back(b);
      kernel.bytes_read += bytes;
    }
    for (const KernelNode& kn : kernel.nodes) {
      const std::set<int>& r = readers[static_cast<std::size_t>(kn.buffer)];
      const bool stays = !is_output[static_cast<std::size_t>(kn.buffer)] && !r.empty() &&
                         std::all_of(r.begin(), r.end(), [&](int x) { return x == static_cast<int>(k); });
      if (stays) {
        kernel.internal.push_back(kn.buffer);
        continue;
      }
      const ir::Buffer& buf = p[kn.buffer];
      kernel.writes.push_back(kn.buffer);
      kernel.bytes_written += static_cast<uint64_t>(buf.numel()) * dtype_size(buf.dtype);
    }
    std::sort(kernel.writes.begin(), kernel.writes.end());
    std::sort(kernel.internal.begin(), kernel.internal.end());
    t.bytes_read += kernel.bytes_read;
    t.bytes_written += kernel.bytes_written;
  }
  return t;
}

Schedule schedule_nodes(const ir::Program& p, std::vector<SchedulerNode> nodes, const FusionOptions& opts,
                        const LogOptions& log_opts) {
  const Logger log(log_opts);
  // Steps 1-2: dependencies, topological order, dead nodes (the cycle test of step 3 searches the
  // fused nodes between the two it joins, Fuser::would_create_cycle).
  SchedulerGraph g = build_graph(p, std::move(nodes));
  Schedule s;
  s.program = p.name;
  s.fusion = opts.fuse;
  s.dead = g.dead;
  log.line("scheduler: " + std::to_string(g.nodes.size()) + " nodes, " + std::to_string(g.dead.size()) + " dead");
  for (const std::string& d : g.dead) log.line("removed dead node " + d);
  if (log.on())
    for (const SchedulerNode& n : g.nodes) log.text(describe_node(n, p));

  // Step 4: Algorithm 7.1.
  Fuser f(p, g, opts);
  if (opts.fuse) s.rounds = fuse_rounds(f, opts, log, s);
  else log.line("fusion is off (--no-fuse)");

  for (int id : kernel_order(f)) s.kernels.push_back(make_kernel(f, f.node(id)));
  s.nodes = std::move(g.nodes);  // the fuser is done with the graph
  s.traffic = estimate_traffic(p, s.kernels, s.nodes);
  std::string list;
  for (const Kernel& k : s.kernels) list += (list.empty() ? "" : ", ") + k.name + " (" + std::string(kernel_kind_name(k.kind)) + ")";
  log.line(std::to_string(s.kernels.size()) + " kernel(s): " + list);
  log.line("estimated memory traffic: " + std::to_string(s.traffic.bytes_read) + " bytes read, " +
           std::to_string(s.traffic.bytes_written) + " bytes written");
  return s;
}

Schedule schedule(const ir::Program& p, const FusionOptions& opts, const LogOptions& log) {
  return schedule_nodes(p, build_nodes(p), opts, log);
}

int kernel_of(const Schedule& s, ir::BufferId buffer) {
  for (std::size_t k = 0; k < s.kernels.size(); ++k)
    for (const KernelNode& n : s.kernels[k].nodes)
      if (n.buffer == buffer) return static_cast<int>(k);
  return -1;
}

}  // namespace stax::scheduler
