#include "stax/memory/check.h"

#include <algorithm>
#include <numeric>

#include "storage.h"

namespace stax::memory {

namespace {

using detail::align_up;

bool offers(const Step& s, int read, int write) {
  return std::any_of(s.inplace.begin(), s.inplace.end(),
                     [&](const InPlaceCandidate& c) { return c.read == read && c.write == write; });
}

class Checker {
 public:
  Checker(const MemoryProblem& p, const MemoryPlan& plan) : p_(p), plan_(plan) {}

  std::vector<std::string> run() {
    if (plan_.buffers.size() != p_.buffers.size()) return {"the plan has another number of buffers"};
    const std::uint64_t align = plan_.options.alignment;
    if (align == 0 || (align & (align - 1)) != 0) return {"the alignment is not a power of two"};
    if (!check_order()) return errors_;
    check_lifetimes();
    check_places();
    if (errors_.empty()) check_overlaps();
    if (plan_.arena_size > aligned_sum())
      fail("the arena (" + std::to_string(plan_.arena_size) + " bytes) is larger than the aligned intermediates together");
    return errors_;
  }

 private:
  void fail(std::string what) { errors_.push_back(std::move(what)); }
  const BufferPlan& bp(int b) const { return plan_.buffers[static_cast<std::size_t>(b)]; }

  bool check_order() {
    const std::size_t n = p_.steps.size();
    pos_.assign(n, -1);
    if (plan_.order.size() != n) {
      fail("the order does not list every step once");
      return false;
    }
    for (std::size_t i = 0; i < n; ++i) {
      const int s = plan_.order[i];
      if (s < 0 || static_cast<std::size_t>(s) >= n || pos_[static_cast<std::size_t>(s)] >= 0) {
        fail("the order does not list every step once");
        return false;
      }
      pos_[static_cast<std::size_t>(s)] = static_cast<int>(i);
    }
    def_.assign(p_.buffers.size(), -1);
    for (std::size_t s = 0; s < n; ++s)
      for (int b : p_.steps[s].defines) def_[static_cast<std::size_t>(b)] = pos_[s];
    for (std::size_t s = 0; s < n; ++s) {
      for (int b : p_.steps[s].reads)
        if (def_[static_cast<std::size_t>(b)] > pos_[s])
          fail("step " + p_.steps[s].name + " runs before it reads " + p_.buffers[static_cast<std::size_t>(b)].name + " is defined");
      for (int a : p_.steps[s].after)
        if (pos_[static_cast<std::size_t>(a)] > pos_[s]) fail("step " + p_.steps[s].name + " runs before a step it must follow");
    }
    return errors_.empty();
  }

  // Definition 7.5, recomputed directly: from the defining step through the last reader.
  void check_lifetimes() {
    std::vector<int> last(p_.buffers.size(), -1);
    for (std::size_t s = 0; s < p_.steps.size(); ++s)
      for (int b : p_.steps[s].reads) last[static_cast<std::size_t>(b)] = std::max(last[static_cast<std::size_t>(b)], pos_[s]);
    for (std::size_t b = 0; b < p_.buffers.size(); ++b) {
      if (p_.buffers[b].role != BufferRole::Intermediate) continue;
      const Lifetime want{def_[b], std::max(def_[b], last[b])};
      const Lifetime& got = plan_.buffers[b].life;
      if (got.def != want.def || got.last != want.last)
        fail(p_.buffers[b].name + " has lifetime [" + std::to_string(got.def) + ", " + std::to_string(got.last) +
             "], expected [" + std::to_string(want.def) + ", " + std::to_string(want.last) + "]");
    }
  }

  void check_places() {
    const std::uint64_t align = plan_.options.alignment;
    for (std::size_t b = 0; b < p_.buffers.size(); ++b) {
      const MemBuffer& mb = p_.buffers[b];
      const BufferPlan& x = plan_.buffers[b];
      if (x.bytes != mb.bytes || x.dtype != mb.dtype || x.role != mb.role) fail(mb.name + " differs from the problem");
      if (mb.role != BufferRole::Intermediate) {
        if (x.placement != Placement::None) fail(mb.name + " is placed in the arena but is not an intermediate");
        continue;
      }
      if (x.placement == Placement::None) fail(mb.name + " has no place in the arena");
      if (x.offset % align != 0) fail(mb.name + " is not aligned");
      if (x.offset + mb.bytes > plan_.arena_size) fail(mb.name + " ends past the arena");
      if (x.placement != Placement::Reuse) continue;
      const int y = x.shares;
      if (y < 0 || static_cast<std::size_t>(y) >= p_.buffers.size()) {
        fail(mb.name + " reuses nothing");
        continue;
      }
      if (bp(y).dtype != x.dtype || bp(y).bytes != x.bytes) fail(mb.name + " reuses a buffer of another dtype or size");
      if (bp(y).life.last >= x.life.def) fail(mb.name + " reuses " + bp(y).name + " while it is live");
    }
  }

  // The writer of an in-place pair (w, r): w born at the step where r dies, which offers the pair.
  bool inplace_pair(int w, int r) const {
    const BufferPlan& x = bp(w);
    const BufferPlan& y = bp(r);
    if (x.placement != Placement::InPlace || x.shares != r) return false;
    if (y.life.last != x.life.def || y.life.def >= x.life.def) return false;
    if (x.dtype != y.dtype || x.bytes != y.bytes || x.offset != y.offset) return false;
    const int step = plan_.order[static_cast<std::size_t>(x.life.def)];
    return offers(p_.steps[static_cast<std::size_t>(step)], r, w);
  }

  // A sweep by definition position: each intermediate against those still live when it is born.
  void check_overlaps() {
    std::vector<int> inter;
    for (std::size_t b = 0; b < p_.buffers.size(); ++b)
      if (p_.buffers[b].role == BufferRole::Intermediate && p_.buffers[b].bytes > 0) inter.push_back(static_cast<int>(b));
    std::stable_sort(inter.begin(), inter.end(), [this](int a, int b) { return bp(a).life.def < bp(b).life.def; });
    std::vector<int> active;
    for (int x : inter) {
      const BufferPlan& bx = bp(x);
      std::erase_if(active, [&](int y) { return bp(y).life.last < bx.life.def; });
      for (int y : active) {
        const BufferPlan& by = bp(y);
        const bool disjoint = bx.offset + bx.bytes <= by.offset || by.offset + by.bytes <= bx.offset;
        if (disjoint || inplace_pair(x, y) || inplace_pair(y, x)) continue;
        fail(bx.name + " [" + std::to_string(bx.life.def) + ", " + std::to_string(bx.life.last) + "] at " +
             std::to_string(bx.offset) + " overlaps " + by.name + " [" + std::to_string(by.life.def) + ", " +
             std::to_string(by.life.last) + "] at " + std::to_string(by.offset));
      }
      active.push_back(x);
    }
  }

  std::uint64_t aligned_sum() const {
    std::uint64_t sum = 0;
    for (const MemBuffer& b : p_.buffers)
      if (b.role == BufferRole::Intermediate) sum += align_up(b.bytes, plan_.options.alignment);
    return sum;
  }

  const MemoryProblem& p_;
  const MemoryPlan& plan_;
  std::vector<int> pos_;  // per step
  std::vector<int> def_;  // per buffer: position of its defining step
  std::vector<std::string> errors_;
};

}  // namespace

std::vector<std::string> check_plan(const MemoryProblem& p, const MemoryPlan& plan) {
  return Checker(p, plan).run();
}

}  // namespace stax::memory
