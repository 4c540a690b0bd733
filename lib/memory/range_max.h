// A segment tree over positions 0..n-1 with range add and range max, for the occupancy profile
// the reuse pool consults (§7.5 rule 2: a reuse must not lift the occupancy above the peak).
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace stax::memory::detail {

class RangeMax {
 public:
  explicit RangeMax(int n) : n_(std::max(n, 1)), max_(4 * static_cast<std::size_t>(n_), 0), add_(max_.size(), 0) {}

  // Adds v to every position in [lo, hi] (nothing when lo > hi).
  void add(int lo, int hi, std::uint64_t v) {
    if (lo > hi) return;
    add(1, 0, n_ - 1, lo, hi, v);
  }
  // The largest value in [lo, hi] (0 when lo > hi).
  std::uint64_t max(int lo, int hi) const {
    if (lo > hi) return 0;
    return max(1, 0, n_ - 1, lo, hi);
  }

 private:
  void add(std::size_t node, int l, int r, int lo, int hi, std::uint64_t v) {
    if (hi < l || r < lo) return;
    if (lo <= l && r <= hi) {
      max_[node] += v;
      add_[node] += v;
      return;
    }
    const int m = l + (r - l) / 2;
    add(2 * node, l, m, lo, hi, v);
    add(2 * node + 1, m + 1, r, lo, hi, v);
    max_[node] = add_[node] + std::max(max_[2 * node], max_[2 * node + 1]);
  }
  std::uint64_t max(std::size_t node, int l, int r, int lo, int hi) const {
    if (hi < l || r < lo) return 0;
    if (lo <= l && r <= hi) return max_[node];
    const int m = l + (r - l) / 2;
    return add_[node] + std::max(max(2 * node, l, m, lo, hi), max(2 * node + 1, m + 1, r, lo, hi));
  }

  int n_;
  std::vector<std::uint64_t> max_;  // max over the node's range, its own pending adds included
  std::vector<std::uint64_t> add_;  // added to the whole range of the node
};

}  // namespace stax::memory::detail
