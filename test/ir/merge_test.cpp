// Loop merging and the canonical form of accesses (§7.1 MemoryDep).
#include "stax/ir/simplify.h"

#include <gtest/gtest.h>

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
