// ir::fold_batch: which batched products are one product of batch x M rows, and the strides of
// that product.
#include "stax/ir/program.h"

#include <gtest/gtest.h>

namespace stax::ir {
namespace {

// [batch..., m, k] x [k, n], A dense row-major and B one constant matrix for every position.
Matmul linear(std::vector<int64_t> batch, int64_t m, int64_t k, int64_t n) {
  Matmul mm;
  mm.batch = batch;
  mm.m = m, mm.k = k, mm.n = n;
  mm.a.row_stride = k, mm.a.col_stride = 1;
  mm.b.row_stride = n, mm.b.col_stride = 1;
  int64_t stride = m * k;
  mm.a.batch_strides.assign(batch.size(), 0);
  mm.b.batch_strides.assign(batch.size(), 0);
  for (std::size_t d = batch.size(); d-- > 0;) {
    mm.a.batch_strides[d] = batch[d] == 1 ? 0 : stride;
    stride *= batch[d];
  }
  return mm;
}

TEST(FoldBatch, ChannelsLastLinearIsOneProduct) {
  const Matmul f = fold_batch(linear({1, 14}, 14, 384, 1536));
  EXPECT_TRUE(f.batch.empty());
  EXPECT_TRUE(f.a.batch_strides.empty());
  EXPECT_TRUE(f.b.batch_strides.empty());
  EXPECT_EQ(f.m, 196);
  EXPECT_EQ(f.k, 384);
  EXPECT_EQ(f.n, 1536);
  EXPECT_EQ(f.a.row_stride, 384);
  EXPECT_EQ(f.a.col_stride, 1);
}

TEST(FoldBatch, SeveralDimsAndSizeOneDims) {
  Matmul mm = linear({2, 1, 5}, 7, 24, 30);
  mm.a.batch_strides[1] = 12345;  // a dim of one position: its stride is never used
  const Matmul f = fold_batch(mm);
  EXPECT_TRUE(f.batch.empty());
  EXPECT_EQ(f.m, 70);
  EXPECT_EQ(f.a.row_stride, 24);
}

TEST(FoldBatch, OneRowPerPositionTakesTheBatchStride) {
  Matmul mm = linear({3, 4}, 1, 16, 20);
  mm.a.row_stride = 0;  // one row: its stride is free
  const Matmul f = fold_batch(mm);
  EXPECT_TRUE(f.batch.empty());
  EXPECT_EQ(f.m, 12);
  EXPECT_EQ(f.a.row_stride, 16);
}

TEST(FoldBatch, KeptWhenBDiffersBetweenPositions) {
  Matmul mm = linear({4}, 8, 16, 16);
  mm.b.batch_strides[0] = 16 * 16;
  const Matmul f = fold_batch(mm);
  EXPECT_EQ(f.batch, std::vector<int64_t>{4});
  EXPECT_EQ(f.m, 8);
  EXPECT_EQ(f.b.batch_strides, std::vector<int64_t>{256});
}

TEST(FoldBatch, KeptWhenRowsDoNotContinue) {
  Matmul mm = linear({6}, 4, 16, 20);  // A a transposed [4, 6, 16]: rows 96 apart, positions 16
  mm.a.row_stride = 96;
  mm.a.batch_strides[0] = 16;
  EXPECT_EQ(fold_batch(mm).batch.size(), 1u);
  Matmul padded = linear({3}, 5, 8, 8);  // each position's rows followed by a gap
  padded.a.batch_strides[0] = 48;
  EXPECT_EQ(fold_batch(padded).batch.size(), 1u);
  Matmul broadcast = linear({3}, 5, 8, 8);  // A the same for every position
  broadcast.a.batch_strides[0] = 0;
  EXPECT_EQ(fold_batch(broadcast).batch.size(), 1u);
}

TEST(FoldBatch, InnerDimsMustFoldForOuterOnes) {
  Matmul mm = linear({2, 3}, 4, 8, 8);
  mm.b.batch_strides[1] = 64;  // B differs along the inner dim
  EXPECT_EQ(fold_batch(mm).batch.size(), 2u);
}

}  // namespace
}  // namespace stax::ir
