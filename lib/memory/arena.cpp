#include "stax/memory/arena.h"

#include <algorithm>
#include <tuple>

#include "stax/support/error.h"

namespace stax::memory {

namespace {

int length(const Lifetime& l) { return l.last - l.def + 1; }

// The tree of §7.5 under construction. Node 0 is the root, a space split of slabs (time splits);
// every node keeps the blocks below it, for the lifetime tests.
class TreePacker {
 public:
  explicit TreePacker(const std::vector<ArenaBlock>& blocks) : blocks_(blocks) {
    nodes_.push_back(ArenaNode{ArenaNode::Kind::Space, 0, 0, -1, {}});
    under_.emplace_back();
  }

  void insert(int b) {
    for (int slab : nodes_[0].children) {
      if (!insert_time(slab, b)) continue;
      under_[0].push_back(b);
      return;
    }
    // No room anywhere: a new slab at the end of the arena.
    const int slab = add(ArenaNode::Kind::Time, blocks_[static_cast<std::size_t>(b)].size);
    nodes_[0].children.push_back(slab);
    add_block(slab, b);
    under_[0].push_back(b);
  }

  ArenaLayout finish() {
    ArenaLayout out;
    out.offsets.assign(blocks_.size(), 0);
    place(0, 0, out.offsets);
    out.size = nodes_[0].size;
    out.tree = std::move(nodes_);
    return out;
  }

 private:
  int add(ArenaNode::Kind kind, std::uint64_t size) {
    nodes_.push_back(ArenaNode{kind, 0, size, -1, {}});
    under_.emplace_back();
    return static_cast<int>(nodes_.size()) - 1;
  }

  void add_block(int time, int b) {
    const int leaf = add(ArenaNode::Kind::Block, blocks_[static_cast<std::size_t>(b)].size);
    nodes_[static_cast<std::size_t>(leaf)].storage = b;
    under_[static_cast<std::size_t>(leaf)].push_back(b);
    nodes_[static_cast<std::size_t>(time)].children.push_back(leaf);
    under_[static_cast<std::size_t>(time)].push_back(b);
  }

  bool overlaps(int node, int b) const {
    const Lifetime& l = blocks_[static_cast<std::size_t>(b)].life;
    for (int o : under_[static_cast<std::size_t>(node)])
      if (blocks_[static_cast<std::size_t>(o)].life.overlaps(l)) return true;
    return false;
  }

  // Into time split `t`: beside its children when no child's lifetime overlaps the block's,
  // inside the one child that overlaps otherwise; never when two or more overlap.
  bool insert_time(int t, int b) {
    const std::uint64_t size = blocks_[static_cast<std::size_t>(b)].size;
    const std::uint64_t capacity = nodes_[static_cast<std::size_t>(t)].size;
    if (size > capacity) return false;
    int hit = -1;
    for (int c : nodes_[static_cast<std::size_t>(t)].children) {
      if (!overlaps(c, b)) continue;
      if (hit >= 0) return false;
      hit = c;
    }
    if (hit >= 0) {
      if (!insert_into(hit, b)) return false;
      under_[static_cast<std::size_t>(t)].push_back(b);
      return true;
    }
    if (size == capacity) {
      add_block(t, b);
      return true;
    }
    // The block and, beside it, the room left: a space split of two time splits.
    const int split = add(ArenaNode::Kind::Space, capacity);
    const int left = add(ArenaNode::Kind::Time, size);
    const int right = add(ArenaNode::Kind::Time, capacity - size);
    nodes_[static_cast<std::size_t>(split)].children = {left, right};
    nodes_[static_cast<std::size_t>(t)].children.push_back(split);
    add_block(left, b);
    under_[static_cast<std::size_t>(split)].push_back(b);
    under_[static_cast<std::size_t>(t)].push_back(b);
    return true;
  }

  bool insert_into(int node, int b) {
    switch (nodes_[static_cast<std::size_t>(node)].kind) {
      case ArenaNode::Kind::Block:
        return false;
      case ArenaNode::Kind::Time:
        return insert_time(node, b);
      case ArenaNode::Kind::Space:
        for (int c : nodes_[static_cast<std::size_t>(node)].children) {
          if (!insert_time(c, b)) continue;
          under_[static_cast<std::size_t>(node)].push_back(b);
          return true;
        }
        return false;
    }
    return false;
  }

  // Offsets: a space split's children side by side, a time split's children at its own offset.
  void place(int node, std::uint64_t offset, std::vector<std::uint64_t>& offsets) {
    ArenaNode& n = nodes_[static_cast<std::size_t>(node)];
    n.offset = offset;
    switch (n.kind) {
      case ArenaNode::Kind::Block:
        offsets[static_cast<std::size_t>(n.storage)] = offset;
        return;
      case ArenaNode::Kind::Time:
        for (int c : std::vector<int>(n.children)) place(c, offset, offsets);
        return;
      case ArenaNode::Kind::Space: {
        std::uint64_t at = offset;
        for (int c : std::vector<int>(n.children)) {
          place(c, at, offsets);
          at += nodes_[static_cast<std::size_t>(c)].size;
        }
        nodes_[static_cast<std::size_t>(node)].size = at - offset;
        return;
      }
    }
  }

  const std::vector<ArenaBlock>& blocks_;
  std::vector<ArenaNode> nodes_;
  std::vector<std::vector<int>> under_;
};

}  // namespace

std::vector<int> packing_order(const std::vector<ArenaBlock>& blocks, ArenaPacker packer) {
  std::vector<int> order(blocks.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int>(i);
  auto key = [&blocks, packer](int i) {
    const ArenaBlock& b = blocks[static_cast<std::size_t>(i)];
    const auto size = -static_cast<std::int64_t>(b.size);
    const auto len = -static_cast<std::int64_t>(length(b.life));
    switch (packer) {
      case ArenaPacker::Tree:
      case ArenaPacker::BestFitBySize: return std::make_tuple(size, len, std::int64_t{b.life.def}, i);
      case ArenaPacker::BestFitByArea: return std::make_tuple(size * -len, size, std::int64_t{b.life.def}, i);
      case ArenaPacker::BestFitByLength: return std::make_tuple(len, size, std::int64_t{b.life.def}, i);
      case ArenaPacker::BestFitByStart: return std::make_tuple(std::int64_t{b.life.def}, size, len, i);
    }
    return std::make_tuple(size, len, std::int64_t{b.life.def}, i);
  };
  std::sort(order.begin(), order.end(), [&key](int a, int b) { return key(a) < key(b); });
  return order;
}

ArenaLayout pack(const std::vector<ArenaBlock>& blocks, ArenaPacker packer) {
  if (packer == ArenaPacker::Tree) return pack_tree(blocks);
  return pack_best_fit(blocks, packing_order(blocks, packer));
}

ArenaLayout pack_tree(const std::vector<ArenaBlock>& blocks) {
  TreePacker packer(blocks);
  for (int b : packing_order(blocks)) packer.insert(b);
  return packer.finish();
}

ArenaLayout pack_best_fit(const std::vector<ArenaBlock>& blocks, const std::vector<int>& order) {
  ArenaLayout out;
  out.offsets.assign(blocks.size(), 0);
  std::vector<int> placed;
  for (int b : order) {
    const ArenaBlock& block = blocks[static_cast<std::size_t>(b)];
    // The address ranges taken, during the block's lifetime, by blocks placed before it.
    std::vector<std::pair<std::uint64_t, std::uint64_t>> taken;
    for (int o : placed) {
      const ArenaBlock& other = blocks[static_cast<std::size_t>(o)];
      if (other.size > 0 && other.life.overlaps(block.life))
        taken.emplace_back(out.offsets[static_cast<std::size_t>(o)], out.offsets[static_cast<std::size_t>(o)] + other.size);
    }
    std::sort(taken.begin(), taken.end());
    std::uint64_t best = 0, best_gap = 0, end = 0;
    bool found = false;
    for (const auto& [lo, hi] : taken) {
      if (lo > end) {
        const std::uint64_t gap = lo - end;
        if (gap >= block.size && (!found || gap < best_gap)) best = end, best_gap = gap, found = true;
      }
      end = std::max(end, hi);
    }
    out.offsets[static_cast<std::size_t>(b)] = found ? best : end;
    out.size = std::max(out.size, out.offsets[static_cast<std::size_t>(b)] + block.size);
    placed.push_back(b);
  }
  return out;
}

}  // namespace stax::memory
