// The peak memory of a fused graph (M*, Definition 7.5), as fusion weighs a candidate (§7.3: a
// fusion must not keep buffers alive so long that the peak rises notably).
#include "stax/scheduler/peak.h"

#include <algorithm>
#include <limits>
#include <map>

namespace stax::scheduler {

namespace {

// One kernel of the estimate: the scheduler nodes it holds.
struct Step {
  int order = 0;            // min_order of the fused node(s): the tie-break
  std::vector<int> nodes;
  std::vector<int> after;   // steps it must follow
  int waiting = 0;          // of those, not run yet
  bool done = false;
};

// A buffer the estimate counts: computed, no graph output, read by some other kernel.
struct Live {
  uint64_t bytes = 0;
  int step = -1;            // its writer's
  int readers_left = 0;     // reading steps not run yet
  std::vector<int> readers;
};

struct Graph {
  std::vector<Step> steps;
  std::vector<Live> buffers;
  std::vector<std::vector<int>> defines;  // per step: counted buffers it writes
  std::vector<std::vector<int>> reads;    // per step: counted buffers it reads
};

Graph build(const Fuser& f, std::pair<int, int> merge) {
  const SchedulerGraph& g = f.graph();
  Graph out;
  std::map<int, int> step_of_fused;
  for (int id : f.alive()) {
    const int key = id == merge.second ? merge.first : id;
    auto [it, fresh] = step_of_fused.emplace(key, static_cast<int>(out.steps.size()));
    if (fresh) out.steps.push_back(Step{f.node(id).min_order, {}, {}, 0, false});
    Step& s = out.steps[static_cast<std::size_t>(it->second)];
    s.order = std::min(s.order, f.node(id).min_order);
    for (int v : f.node(id).members) s.nodes.push_back(v);
  }
  std::vector<int> step(g.nodes.size(), -1);
  for (std::size_t s = 0; s < out.steps.size(); ++s)
    for (int v : out.steps[s].nodes) step[static_cast<std::size_t>(v)] = static_cast<int>(s);
  out.defines.resize(out.steps.size());
  out.reads.resize(out.steps.size());
  for (const SchedulerNode& n : g.nodes) {
    const int ws = step[static_cast<std::size_t>(n.id)];
    for (int p : n.preds) {
      const int ps = step[static_cast<std::size_t>(p)];
      std::vector<int>& after = out.steps[static_cast<std::size_t>(ws)].after;
      if (ps != ws && std::find(after.begin(), after.end(), ps) == after.end()) after.push_back(ps);
    }
    Live b;
    for (int u : n.users) {
      const int us = step[static_cast<std::size_t>(u)];
      if (us != ws && std::find(b.readers.begin(), b.readers.end(), us) == b.readers.end()) b.readers.push_back(us);
    }
    if (n.is_output || b.readers.empty()) continue;
    const ir::Buffer& buf = f.program()[n.buffer];
    b.bytes = static_cast<uint64_t>(buf.numel()) * dtype_size(buf.dtype);
    b.step = ws;
    b.readers_left = static_cast<int>(b.readers.size());
    const int id = static_cast<int>(out.buffers.size());
    out.defines[static_cast<std::size_t>(ws)].push_back(id);
    for (int r : b.readers) out.reads[static_cast<std::size_t>(r)].push_back(id);
    out.buffers.push_back(std::move(b));
  }
  for (Step& s : out.steps) s.waiting = static_cast<int>(s.after.size());
  return out;
}

// What running step s now adds to the live bytes: what it defines, minus what it reads last.
int64_t growth(const Graph& gr, std::size_t s) {
  int64_t d = 0;
  for (int b : gr.defines[s]) d += static_cast<int64_t>(gr.buffers[static_cast<std::size_t>(b)].bytes);
  for (int b : gr.reads[s])
    if (gr.buffers[static_cast<std::size_t>(b)].readers_left == 1) d -= static_cast<int64_t>(gr.buffers[static_cast<std::size_t>(b)].bytes);
  return d;
}

}  // namespace

uint64_t estimate_peak(const Fuser& f, std::pair<int, int> merge) {
  Graph gr = build(f, merge);
  std::vector<std::vector<int>> users(gr.steps.size());
  for (std::size_t s = 0; s < gr.steps.size(); ++s)
    for (int a : gr.steps[s].after) users[static_cast<std::size_t>(a)].push_back(static_cast<int>(s));
  std::vector<std::size_t> ready;
  for (std::size_t s = 0; s < gr.steps.size(); ++s)
    if (gr.steps[s].waiting == 0) ready.push_back(s);
  uint64_t live = 0, peak = 0;
  while (!ready.empty()) {
    // The ready step that adds the least, the earliest of those.
    std::size_t best = 0;
    int64_t best_growth = std::numeric_limits<int64_t>::max();
    for (std::size_t i = 0; i < ready.size(); ++i) {
      const int64_t d = growth(gr, ready[i]);
      if (d < best_growth || (d == best_growth && gr.steps[ready[i]].order < gr.steps[ready[best]].order)) {
        best = i;
        best_growth = d;
      }
    }
    const std::size_t s = ready[best];
    ready.erase(ready.begin() + static_cast<std::ptrdiff_t>(best));
    for (int b : gr.defines[s]) live += gr.buffers[static_cast<std::size_t>(b)].bytes;
    peak = std::max(peak, live);  // its outputs and everything it reads are live while it runs
    for (int b : gr.reads[s]) {
      Live& lb = gr.buffers[static_cast<std::size_t>(b)];
      if (--lb.readers_left == 0) live -= lb.bytes;
    }
    for (int u : users[s])
      if (--gr.steps[static_cast<std::size_t>(u)].waiting == 0) ready.push_back(static_cast<std::size_t>(u));
  }
  return peak;
}

uint64_t footprint(const Fuser& f, int a, int b) {
  const SchedulerGraph& g = f.graph();
  uint64_t bytes = 0;
  std::vector<ir::BufferId> seen;
  for (int id : {a, b})
    for (ir::BufferId buf : f.node(id).buffers) {
      if (std::find(seen.begin(), seen.end(), buf) != seen.end()) continue;
      seen.push_back(buf);
      const int w = g.writer[static_cast<std::size_t>(buf)];
      if (w < 0 || g.nodes[static_cast<std::size_t>(w)].is_output) continue;
      const ir::Buffer& b2 = f.program()[buf];
      bytes += static_cast<uint64_t>(b2.numel()) * dtype_size(b2.dtype);
    }
  return bytes;
}

}  // namespace stax::scheduler
