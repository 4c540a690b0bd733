// Loop merging and the canonical form of accesses (§7.1 MemoryDep).
#include "stax/ir/simplify.h"

#include <algorithm>

#include <gtest/gtest.h>

#include <random>

namespace stax::ir {
namespace {

const Index x0 = Index::var(xvar(0));
const Index x1 = Index::var(xvar(1));
const Index x2 = Index::var(xvar(2));
const Index r0 = Index::var(rvar(0));

TEST(MergeLoops, ContiguousMerges) {
  // Design.md: 128*i0 + i1 over (64, 128) becomes c0 over 8192.
  MergedLoops m = merge_loops({xvar(0), xvar(1)}, {{xvar(0), 64}, {xvar(1), 128}}, {128 * x0 + x1});
  ASSERT_EQ(m.sizes, (std::vector<int64_t>{8192}));
  EXPECT_EQ(to_string(m.indices[0]), "c0");
  ASSERT_EQ(m.reindex.size(), 2u);
  EXPECT_EQ(to_string(m.reindex[0]), "c0 // 128");
  EXPECT_EQ(to_string(m.reindex[1]), "c0 % 128");
}

TEST(MergeLoops, TransposedDoesNotMerge) {
  MergedLoops m = merge_loops({xvar(0), xvar(1)}, {{xvar(0), 64}, {xvar(1), 128}}, {x0 + 64 * x1});
  ASSERT_EQ(m.sizes, (std::vector<int64_t>{64, 128}));
  EXPECT_EQ(to_string(m.indices[0]), "c0 + 64*c1");
}

TEST(MergeLoops, AllIndicesMustAgree) {
  // One contiguous access and one broadcast along x0: the broadcast blocks the merge.
  MergedLoops m = merge_loops({xvar(0), xvar(1)}, {{xvar(0), 64}, {xvar(1), 128}},
                              {128 * x0 + x1, x1});
  ASSERT_EQ(m.sizes, (std::vector<int64_t>{64, 128}));
  EXPECT_EQ(to_string(m.indices[1]), "c1");
}

TEST(MergeLoops, PartialMergeOfThreeDims) {
  // A [4, 8, 16] buffer read with its last two dims swapped: address 128*x0 + x1 + 16*x2 over
  // (4, 16, 8). No adjacent pair of loops has chained strides, so nothing merges.
  MergedLoops m = merge_loops({xvar(0), xvar(1), xvar(2)},
                              {{xvar(0), 4}, {xvar(1), 16}, {xvar(2), 8}}, {128 * x0 + x1 + 16 * x2});
  ASSERT_EQ(m.sizes, (std::vector<int64_t>{4, 16, 8}));
  // Address 128*x0 + 8*x1 + x2 over (4, 16, 8) is fully contiguous: one loop.
  m = merge_loops({xvar(0), xvar(1), xvar(2)}, {{xvar(0), 4}, {xvar(1), 16}, {xvar(2), 8}},
                  {128 * x0 + 8 * x1 + x2});
  ASSERT_EQ(m.sizes, (std::vector<int64_t>{512}));
  EXPECT_EQ(to_string(m.indices[0]), "c0");
  // A strided outer dim (a slice with step 2 of dim 0) merges the inner two only.
  m = merge_loops({xvar(0), xvar(1), xvar(2)}, {{xvar(0), 4}, {xvar(1), 16}, {xvar(2), 8}},
                  {256 * x0 + 8 * x1 + x2});
  ASSERT_EQ(m.sizes, (std::vector<int64_t>{4, 128}));
  EXPECT_EQ(to_string(m.indices[0]), "256*c0 + c1");
}

TEST(MergeLoops, ExtentOneLoopsDisappear) {
  MergedLoops m = merge_loops({xvar(0), xvar(1), xvar(2)},
                              {{xvar(0), 64}, {xvar(1), 1}, {xvar(2), 128}}, {128 * x0 + x2 + x1});
  ASSERT_EQ(m.sizes, (std::vector<int64_t>{8192}));
  EXPECT_EQ(to_string(m.indices[0]), "c0");
  EXPECT_EQ(to_string(m.reindex[1]), "0");
}

TEST(MergeLoops, NonAffineIndicesMerge) {
  // (128*x0 + x1) // 2 over (64, 128): one loop, c0 // 2.
  MergedLoops m = merge_loops({xvar(0), xvar(1)}, {{xvar(0), 64}, {xvar(1), 128}},
                              {floordiv(128 * x0 + x1, 2)});
  ASSERT_EQ(m.sizes, (std::vector<int64_t>{8192}));
  EXPECT_EQ(to_string(m.indices[0]), "c0 // 2");
  // 2*x0 + x1 // 3 over (4, 6) is (6*x0 + x1) // 3.
  m = merge_loops({xvar(0), xvar(1)}, {{xvar(0), 4}, {xvar(1), 6}}, {2 * x0 + floordiv(x1, 3)});
  ASSERT_EQ(m.sizes, (std::vector<int64_t>{24}));
  EXPECT_EQ(to_string(m.indices[0]), "c0 // 3");
  // A transposed reshape stays two loops.
  m = merge_loops({xvar(0), xvar(1)}, {{xvar(0), 4}, {xvar(1), 6}}, {floordiv(x1, 2) + 6 * mod(x1, 2) + x0});
  EXPECT_EQ(m.sizes, (std::vector<int64_t>{4, 6}));
}

// Whatever merge_loops decides, the merged nest visits the same accesses in the same order, and
// `reindex` gives back the original variables.
TEST(MergeLoops, RandomizedSameAccessSequence) {
  std::mt19937_64 rng(99);
  auto pick = [&](int n) { return static_cast<int64_t>(rng() % static_cast<uint64_t>(n)); };
  int merged_some = 0;
  for (int trial = 0; trial < 400; ++trial) {
    std::vector<Var> vars = {xvar(0), xvar(1), xvar(2)};
    VarRanges ranges;
    std::vector<int64_t> sizes;
    for (Var v : vars) {
      sizes.push_back(1 + pick(6));
      ranges[v] = sizes.back();
    }
    // Row-major strides of a random permutation of the dims, sometimes through a reshape.
    std::vector<Index> xs = {x0, x1, x2};
    std::vector<int> perm = {0, 1, 2};
    std::shuffle(perm.begin(), perm.end(), rng);
    std::vector<Index> coords;
    std::vector<int64_t> shape;
    for (int p : perm) {
      coords.push_back(xs[static_cast<std::size_t>(p)]);
      shape.push_back(sizes[static_cast<std::size_t>(p)]);
    }
    Index e = flat_index(coords, shape);
    if (pick(2)) e = floordiv(e, 1 + pick(4)) + mod(e, 1 + pick(5)) * 3;
    std::vector<Index> indices = {e};
    if (pick(3) == 0) indices.push_back(x0 * 100 + x1 * 10 + x2);
    MergedLoops m = merge_loops(vars, ranges, indices);
    if (m.sizes.size() < 3) ++merged_some;
    // Walk both nests.
    std::vector<int64_t> at(3, 0), mat(m.sizes.size(), 0);
    const int64_t total = sizes[0] * sizes[1] * sizes[2];
    for (int64_t step = 0; step < total; ++step) {
      auto orig = [&](Var v) { return at[static_cast<std::size_t>(v.id)]; };
      auto merged = [&](Var v) { return mat[static_cast<std::size_t>(v.id)]; };
      for (std::size_t k = 0; k < indices.size(); ++k)
        ASSERT_EQ(evaluate(m.indices[k], merged), evaluate(indices[k], orig))
            << to_string(indices[k]) << " -> " << to_string(m.indices[k]);
      for (std::size_t k = 0; k < 3; ++k) ASSERT_EQ(evaluate(m.reindex[k], merged), at[k]);
      for (std::size_t d = 3; d-- > 0;) {
        if (++at[d] < sizes[d]) break;
        at[d] = 0;
      }
      for (std::size_t d = mat.size(); d-- > 0;) {
        if (++mat[d] < m.sizes[d]) break;
        mat[d] = 0;
      }
    }
  }
  EXPECT_GT(merged_some, 100);
}

TEST(CanonicalAccess, Example71) {
  const VarRanges r{{xvar(0), 64}, {xvar(1), 1}, {rvar(0), 128}};
  // op0 reads primals_1 at 128*x0 + r0 over x0 < 64, r0 < 128: c0 over {c0: 8192}.
  CanonicalAccess read = canonicalize_access(128 * x0 + r0, {xvar(0), xvar(1), rvar(0)}, r);
  EXPECT_EQ(to_string(read), "c0 over {c0: 8192}");
  // op0 writes buf1 at x0 (keepdim: [64, 1]).
  CanonicalAccess write = canonicalize_access(x0 + x1, {xvar(0), xvar(1)}, r);
  EXPECT_EQ(to_string(write), "c0 over {c0: 64}");
  // op1 (pointwise over (64, 128)) reads buf1 at x0: the unused x1 is dropped, so the read
  // equals the write (vertical fusion is legal).
  const VarRanges r1{{xvar(0), 64}, {xvar(1), 128}};
  CanonicalAccess read1 = canonicalize_access(x0, {xvar(0), xvar(1)}, r1);
  EXPECT_EQ(read1, write);
  CanonicalAccess in1 = canonicalize_access(128 * x0 + x1, {xvar(0), xvar(1)}, r1);
  EXPECT_EQ(in1, read);
}

TEST(CanonicalAccess, ShiftedReadDiffers) {
  const VarRanges r{{xvar(0), 63}};
  CanonicalAccess w = canonicalize_access(x0, {xvar(0)}, r);
  CanonicalAccess shifted = canonicalize_access(x0 + 1, {xvar(0)}, r);
  EXPECT_EQ(to_string(shifted), "c0 + 1 over {c0: 63}");
  EXPECT_FALSE(w == shifted);
}

TEST(CanonicalAccess, SameAccessTwoWays) {
  // A [8, 16] buffer read through reshape([128]) then reshape([4, 32]) equals a direct
  // [4, 32] read.
  const VarRanges r{{xvar(0), 4}, {xvar(1), 32}};
  std::vector<Index> c = unflatten_index(32 * x0 + x1, {8, 16});
  Index via_views = flat_index(c, {8, 16});
  EXPECT_EQ(canonicalize_access(via_views, {xvar(0), xvar(1)}, r),
            canonicalize_access(32 * x0 + x1, {xvar(0), xvar(1)}, r));
}

TEST(CanonicalAccess, BroadcastInner) {
  // A bias [128] read inside (64, 128): c0 over {c0: 128}.
  const VarRanges r{{xvar(0), 64}, {xvar(1), 128}};
  EXPECT_EQ(to_string(canonicalize_access(x1, {xvar(0), xvar(1)}, r)), "c0 over {c0: 128}");
  // Transposed read keeps two dims.
  EXPECT_EQ(to_string(canonicalize_access(x0 + 64 * x1, {xvar(0), xvar(1)}, r)),
            "c0 + 64*c1 over {c0: 64, c1: 128}");
  (void)x2;
}

}  // namespace
}  // namespace stax::ir
