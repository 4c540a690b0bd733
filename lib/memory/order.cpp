#include "stax/memory/order.h"

#include <algorithm>
#include <queue>
#include <set>
#include <tuple>
#include <utility>

#include "stax/support/error.h"

namespace stax::memory {

namespace {

bool is_intermediate(const MemoryProblem& p, int b) {
  return p.buffers[static_cast<std::size_t>(b)].role == BufferRole::Intermediate;
}

std::uint64_t bytes_of(const MemoryProblem& p, int b) { return p.buffers[static_cast<std::size_t>(b)].bytes; }

// The distinct buffers a step reads, in first-read order.
std::vector<int> distinct_reads(const Step& s) {
  std::vector<int> out;
  for (int b : s.reads)
    if (std::find(out.begin(), out.end(), b) == out.end()) out.push_back(b);
  return out;
}

std::vector<std::vector<int>> successors(const std::vector<std::vector<int>>& preds) {
  std::vector<std::vector<int>> succ(preds.size());
  for (std::size_t s = 0; s < preds.size(); ++s)
    for (int q : preds[s]) succ[static_cast<std::size_t>(q)].push_back(static_cast<int>(s));
  return succ;
}

std::vector<int> in_degrees(const std::vector<std::vector<int>>& preds) {
  std::vector<int> deg;
  deg.reserve(preds.size());
  for (const std::vector<int>& v : preds) deg.push_back(static_cast<int>(v.size()));
  return deg;
}

}  // namespace

bool is_topological(const MemoryProblem& p, const std::vector<int>& order) {
  if (order.size() != p.steps.size()) return false;
  std::vector<int> pos(p.steps.size(), -1);
  for (std::size_t i = 0; i < order.size(); ++i) {
    const int s = order[i];
    if (s < 0 || s >= static_cast<int>(p.steps.size()) || pos[static_cast<std::size_t>(s)] >= 0) return false;
    pos[static_cast<std::size_t>(s)] = static_cast<int>(i);
  }
  const std::vector<std::vector<int>> preds = step_predecessors(p);
  for (std::size_t s = 0; s < preds.size(); ++s)
    for (int q : preds[s])
      if (pos[static_cast<std::size_t>(q)] >= pos[s]) return false;
  return true;
}

std::vector<Lifetime> lifetimes(const MemoryProblem& p, const std::vector<int>& order) {
  const int t_end = static_cast<int>(order.size()) - 1;
  std::vector<Lifetime> life(p.buffers.size());
  // §7.6 step 6: scanning the order backwards, the first reader met is the last user.
  for (int i = t_end; i >= 0; --i)
    for (int b : p.steps[static_cast<std::size_t>(order[static_cast<std::size_t>(i)])].reads)
      if (life[static_cast<std::size_t>(b)].last < 0) life[static_cast<std::size_t>(b)].last = i;
  for (std::size_t i = 0; i < order.size(); ++i)
    for (int b : p.steps[static_cast<std::size_t>(order[i])].defines) life[static_cast<std::size_t>(b)].def = static_cast<int>(i);
  for (std::size_t b = 0; b < p.buffers.size(); ++b) {
    Lifetime& l = life[b];
    switch (p.buffers[b].role) {
      case BufferRole::Input:
      case BufferRole::Constant:
        l.def = -1;
        break;
      case BufferRole::Intermediate:
        l.last = std::max(l.last, l.def);
        break;
      case BufferRole::Output:
        l.last = t_end;
        break;
    }
  }
  return life;
}

std::vector<std::uint64_t> memory_profile(const MemoryProblem& p, const std::vector<int>& order) {
  const std::vector<Lifetime> life = lifetimes(p, order);
  std::vector<std::int64_t> delta(order.size() + 1, 0);
  for (std::size_t b = 0; b < p.buffers.size(); ++b) {
    if (p.buffers[b].role != BufferRole::Intermediate) continue;
    delta[static_cast<std::size_t>(life[b].def)] += static_cast<std::int64_t>(p.buffers[b].bytes);
    delta[static_cast<std::size_t>(life[b].last) + 1] -= static_cast<std::int64_t>(p.buffers[b].bytes);
  }
  std::vector<std::uint64_t> profile(order.size(), 0);
  std::int64_t live = 0;
  for (std::size_t i = 0; i < order.size(); ++i) {
    live += delta[i];
    profile[i] = static_cast<std::uint64_t>(live);
  }
  return profile;
}

std::uint64_t peak_memory(const MemoryProblem& p, const std::vector<int>& order) {
  std::uint64_t peak = 0;
  for (std::uint64_t v : memory_profile(p, order)) peak = std::max(peak, v);
  return peak;
}

std::vector<int> order_least_increase(const MemoryProblem& p) {
  const std::vector<std::vector<int>> preds = step_predecessors(p);
  const std::vector<std::vector<int>> succ = successors(preds);
  const std::vector<int> def = defining_steps(p);
  std::vector<int> indeg = in_degrees(preds);
  std::vector<std::vector<int>> reads(p.steps.size());
  // Readers of each buffer other than its defining step, not yet scheduled.
  std::vector<int> pending(p.buffers.size(), 0);
  for (std::size_t s = 0; s < p.steps.size(); ++s) {
    reads[s] = distinct_reads(p.steps[s]);
    for (int b : reads[s])
      if (def[static_cast<std::size_t>(b)] != static_cast<int>(s)) ++pending[static_cast<std::size_t>(b)];
  }
  // (bytes kept after the step minus bytes freed by it, bytes allocated by it): smaller first.
  auto score = [&](int s) {
    std::int64_t kept = 0, alloc = 0;
    for (int b : p.steps[static_cast<std::size_t>(s)].defines) {
      if (!is_intermediate(p, b)) continue;
      alloc += static_cast<std::int64_t>(bytes_of(p, b));
      if (pending[static_cast<std::size_t>(b)] > 0) kept += static_cast<std::int64_t>(bytes_of(p, b));
    }
    std::int64_t freed = 0;
    for (int b : reads[static_cast<std::size_t>(s)])
      if (is_intermediate(p, b) && def[static_cast<std::size_t>(b)] != s && pending[static_cast<std::size_t>(b)] == 1)
        freed += static_cast<std::int64_t>(bytes_of(p, b));
    return std::make_pair(kept - freed, alloc);
  };
  std::set<int> ready;
  for (std::size_t s = 0; s < p.steps.size(); ++s)
    if (indeg[s] == 0) ready.insert(static_cast<int>(s));
  std::vector<int> order;
  order.reserve(p.steps.size());
  while (!ready.empty()) {
    int best = *ready.begin();
    std::pair<std::int64_t, std::int64_t> best_score = score(best);
    for (int s : ready) {
      const std::pair<std::int64_t, std::int64_t> sc = score(s);
      if (sc < best_score) best = s, best_score = sc;
    }
    ready.erase(best);
    order.push_back(best);
    for (int b : reads[static_cast<std::size_t>(best)])
      if (def[static_cast<std::size_t>(b)] != best) --pending[static_cast<std::size_t>(b)];
    for (int n : succ[static_cast<std::size_t>(best)])
      if (--indeg[static_cast<std::size_t>(n)] == 0) ready.insert(n);
  }
  STAX_ASSERT(order.size() == p.steps.size(), "the step graph has a cycle");
  return order;
}

std::vector<int> order_breadth_first(const MemoryProblem& p) {
  const std::vector<std::vector<int>> preds = step_predecessors(p);
  const std::vector<std::vector<int>> succ = successors(preds);
  std::vector<int> indeg = in_degrees(preds);
  std::vector<int> pos(p.steps.size(), -1);
  // Priority of a ready step: its predecessors' positions in the new order, ascending, compared
  // lexicographically (those whose inputs were produced earliest go first), then its index.
  using Entry = std::pair<std::vector<int>, int>;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> ready;
  auto push = [&](int s) {
    std::vector<int> key;
    for (int q : preds[static_cast<std::size_t>(s)]) key.push_back(pos[static_cast<std::size_t>(q)]);
    std::sort(key.begin(), key.end());
    ready.emplace(std::move(key), s);
  };
  for (std::size_t s = 0; s < p.steps.size(); ++s)
    if (indeg[s] == 0) push(static_cast<int>(s));
  std::vector<int> order;
  order.reserve(p.steps.size());
  while (!ready.empty()) {
    const int s = ready.top().second;
    ready.pop();
    pos[static_cast<std::size_t>(s)] = static_cast<int>(order.size());
    order.push_back(s);
    for (int n : succ[static_cast<std::size_t>(s)])
      if (--indeg[static_cast<std::size_t>(n)] == 0) push(n);
  }
  STAX_ASSERT(order.size() == p.steps.size(), "the step graph has a cycle");
  return order;
}

std::vector<int> order_depth_first(const MemoryProblem& p) {
  const std::vector<std::vector<int>> preds = step_predecessors(p);
  // Bytes a step touches: what it defines plus what it reads (every role).
  std::vector<std::uint64_t> size(p.steps.size(), 0);
  for (std::size_t s = 0; s < p.steps.size(); ++s) {
    for (int b : p.steps[s].defines) size[s] += bytes_of(p, b);
    for (int b : distinct_reads(p.steps[s])) size[s] += bytes_of(p, b);
  }
  auto by_size = [&size](int a, int b) {
    return std::make_pair(size[static_cast<std::size_t>(a)], a) < std::make_pair(size[static_cast<std::size_t>(b)], b);
  };
  std::vector<std::vector<int>> sorted_preds = preds;
  for (std::vector<int>& v : sorted_preds) std::sort(v.begin(), v.end(), by_size);
  std::vector<int> roots(p.steps.size());
  for (std::size_t s = 0; s < roots.size(); ++s) roots[s] = static_cast<int>(s);
  std::sort(roots.begin(), roots.end(), by_size);

  std::vector<bool> seen(p.steps.size(), false);
  std::vector<int> order;
  order.reserve(p.steps.size());
  // Post-order with an explicit stack (a long chain must not exhaust the call stack).
  std::vector<std::pair<int, std::size_t>> stack;
  for (int root : roots) {
    if (seen[static_cast<std::size_t>(root)]) continue;
    seen[static_cast<std::size_t>(root)] = true;
    stack.emplace_back(root, 0);
    while (!stack.empty()) {
      auto& [s, next] = stack.back();
      const std::vector<int>& ps = sorted_preds[static_cast<std::size_t>(s)];
      if (next < ps.size()) {
        const int q = ps[next++];
        if (seen[static_cast<std::size_t>(q)]) continue;
        seen[static_cast<std::size_t>(q)] = true;
        stack.emplace_back(q, 0);
        continue;
      }
      order.push_back(s);
      stack.pop_back();
    }
  }
  return order;
}

std::vector<OrderCandidate> order_candidates(const MemoryProblem& p, bool reorder) {
  std::vector<OrderCandidate> out;
  std::vector<int> given(p.steps.size());
  for (std::size_t s = 0; s < given.size(); ++s) given[s] = static_cast<int>(s);
  out.push_back({OrderStrategy::Original, given, 0});
  if (reorder) {
    out.push_back({OrderStrategy::LeastIncrease, order_least_increase(p), 0});
    out.push_back({OrderStrategy::BreadthFirst, order_breadth_first(p), 0});
    out.push_back({OrderStrategy::DepthFirst, order_depth_first(p), 0});
  }
  for (OrderCandidate& c : out) c.peak = peak_memory(p, c.order);
  return out;
}

std::size_t best_candidate(const std::vector<OrderCandidate>& candidates) {
  STAX_ASSERT(!candidates.empty(), "no order candidate");
  std::size_t best = 0;
  for (std::size_t i = 1; i < candidates.size(); ++i)
    if (candidates[i].peak < candidates[best].peak) best = i;
  return best;
}

}  // namespace stax::memory
