#include "storage.h"

#include <algorithm>
#include <map>
#include <utility>

#include "range_max.h"
#include "stax/support/error.h"

namespace stax::memory::detail {

namespace {

class StorageAssigner {
 public:
  StorageAssigner(const MemoryProblem& p, MemoryPlan& plan, std::uint64_t bound)
      : p_(p), plan_(plan), bound_(bound), steps_(static_cast<int>(plan.order.size())), usage_(steps_),
        ends_at_(plan.order.size()) {}

  void run() {
    for (int t = 0; t < steps_; ++t) {
      const int s = plan_.order[static_cast<std::size_t>(t)];
      const Step& step = p_.steps[static_cast<std::size_t>(s)];
      std::vector<int> claimed;
      for (const InPlaceCandidate& c : step.inplace) decide_inplace(s, t, c, claimed);
      for (int w : step.defines) {
        if (plan_.buffers[static_cast<std::size_t>(w)].role != BufferRole::Intermediate) continue;
        if (plan_.buffers[static_cast<std::size_t>(w)].storage >= 0) continue;  // in place
        if (!(plan_.options.reuse && take_from_pool(w, t))) fresh(w, t);
      }
      release(t);
    }
    plan_.planned_peak = usage_.max(0, steps_ - 1);
  }

 private:
  BufferPlan& buf(int b) { return plan_.buffers[static_cast<std::size_t>(b)]; }
  StoragePlan& storage(int k) { return plan_.storages[static_cast<std::size_t>(k)]; }

  // Why `c` cannot be done at position t ("" when it can).
  std::string refusal(const InPlaceCandidate& c, int t, const std::vector<int>& claimed) {
    const BufferPlan& r = buf(c.read);
    const BufferPlan& w = buf(c.write);
    if (!plan_.options.inplace) return "in-place reuse is off";
    if (c.read == c.write) return "the step reads what it writes";
    if (w.role != BufferRole::Intermediate) return "the written buffer is a graph output";
    if (r.role != BufferRole::Intermediate) return "the read buffer is not an intermediate";
    if (r.dtype != w.dtype) return "dtype differs";
    if (r.bytes != w.bytes) return "size differs";
    if (r.life.def == t) return "the read buffer is defined by the same step";
    if (r.life.last != t) return "the read buffer is used later";
    if (w.storage >= 0) return "the written buffer already has memory";
    for (int k : claimed)
      if (k == r.storage) return "the read buffer's memory is already taken";
    return "";
  }

  // In-place reuse (§7.5, last paragraph): `write` takes the memory of `read`, which dies here.
  void decide_inplace(int s, int t, const InPlaceCandidate& c, std::vector<int>& claimed) {
    InPlaceDecision d{s, c.read, c.write, false, refusal(c, t, claimed)};
    if (d.reason.empty()) {
      d.accepted = true;
      const int k = buf(c.read).storage;
      join(c.write, k, Placement::InPlace, c.read);
      // The reader's bytes already count at t; the writer's from t + 1 on.
      usage_.add(t + 1, buf(c.write).life.last, storage(k).bytes);
      claimed.push_back(k);
    }
    plan_.inplace.push_back(std::move(d));
  }

  // §7.5 rule 2: a freed storage of the same dtype and byte size, the most recently freed first,
  // held across the gap since it was freed only when that keeps every step at or below M*.
  bool take_from_pool(int w, int t) {
    auto it = pool_.find(key(w));
    if (it == pool_.end() || it->second.empty()) return false;
    std::vector<int>& freed_list = it->second;
    const std::uint64_t bytes = buf(w).bytes;
    for (std::size_t i = freed_list.size(); i-- > 0;) {
      const int k = freed_list[i];
      const int freed = storage(k).life.last;
      if (usage_.max(freed + 1, t - 1) + bytes > bound_) continue;
      freed_list.erase(freed_list.begin() + static_cast<std::ptrdiff_t>(i));
      in_pool_[static_cast<std::size_t>(k)] = false;
      join(w, k, Placement::Reuse, storage(k).buffers.back());
      usage_.add(freed + 1, buf(w).life.last, bytes);
      ++plan_.reuses;
      return true;
    }
    ++plan_.reuses_refused;
    return false;
  }

  void fresh(int w, int t) {
    StoragePlan st;
    st.buffers.push_back(w);
    st.bytes = buf(w).bytes;
    st.life = buf(w).life;
    plan_.storages.push_back(std::move(st));
    const int k = static_cast<int>(plan_.storages.size()) - 1;
    BufferPlan& b = buf(w);
    b.placement = Placement::Fresh;
    b.storage = k;
    in_pool_.push_back(false);
    ends_at_[static_cast<std::size_t>(b.life.last)].push_back(k);
    usage_.add(t, b.life.last, b.bytes);
  }

  void join(int w, int k, Placement how, int shares) {
    BufferPlan& b = buf(w);
    b.placement = how;
    b.shares = shares;
    b.storage = k;
    StoragePlan& st = storage(k);
    STAX_ASSERT(st.bytes == b.bytes, "storage shared by buffers of different sizes");
    st.buffers.push_back(w);
    st.life.last = std::max(st.life.last, b.life.last);
    ends_at_[static_cast<std::size_t>(st.life.last)].push_back(k);
  }

  // §7.5 rule 1: storages whose last buffer dies at t go to the pool (they only ever hold
  // intermediates, never an output or an input).
  void release(int t) {
    for (int k : ends_at_[static_cast<std::size_t>(t)]) {
      if (storage(k).life.last != t || in_pool_[static_cast<std::size_t>(k)]) continue;
      in_pool_[static_cast<std::size_t>(k)] = true;
      pool_[key(storage(k).buffers.back())].push_back(k);
    }
  }

  std::pair<int, std::uint64_t> key(int b) {
    return {static_cast<int>(buf(b).dtype), buf(b).bytes};
  }

  const MemoryProblem& p_;
  MemoryPlan& plan_;
  std::uint64_t bound_;  // the occupancy no reuse may exceed
  int steps_;
  RangeMax usage_;                              // occupancy per position, as decided so far
  std::vector<std::vector<int>> ends_at_;       // storages by the position their lifetime ends
  std::vector<bool> in_pool_;                   // per storage
  std::map<std::pair<int, std::uint64_t>, std::vector<int>> pool_;  // by (dtype, bytes)
};

}  // namespace

void assign_storages(const MemoryProblem& p, MemoryPlan& plan) {
  if (!plan.options.reuse) {
    StorageAssigner(p, plan, 0).run();
    return;
  }
  // The peak reuse must not raise is the one in place alone reaches (at most M*: an in-place
  // pair counts once where Definition 7.5 counts it twice). In-place decisions do not depend on
  // the pool, so a first pass without the pool measures it.
  MemoryPlan first = plan;
  first.options.reuse = false;
  StorageAssigner(p, first, 0).run();
  plan.reuse_bound = first.planned_peak;
  StorageAssigner(p, plan, plan.reuse_bound).run();
}

}  // namespace stax::memory::detail
