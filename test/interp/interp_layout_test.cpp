// Interpreter tests on hand-built graphs for the ops that move elements around: reductions over
// dim sets, arg reductions, scans, views, cat, pad, matmul and the composites.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "interp_test_util.h"
#include "stax/support/error.h"

namespace stax::interp::testing {
namespace {

using graph::Op;

const double kNan = std::nan("");
const double kInf = std::numeric_limits<double>::infinity();

graph::Attrs reduce_dims(std::vector<int64_t> dims, bool keepdim = false) {
  graph::Attrs a;
  a.dims = std::move(dims);
  a.keepdim = keepdim;
  return a;
}

Tensor run1(graph::Graph g, std::vector<Tensor> inputs) {
  auto out = interpret(g, inputs);
  EXPECT_EQ(out.size(), 1u);
  return out.at(0);
}

// y = op(x) with the given result dtype/shape and attrs.
graph::Graph one(Op op, DType in, const Shape& in_shape, DType out, const Shape& out_shape,
                 graph::Attrs attrs = {}) {
  GraphBuilder b;
  const auto x = b.input("x", in, in_shape);
  const auto y = b.node("y", op, {V(x)}, out, out_shape, std::move(attrs), in);
  return b.finish({y});
}

// x = [[[0, 1, 2], [3, 4, 5]], [[6, 7, 8], [9, 10, 11]]] as float32 [2, 2, 3]
Tensor x223() { return f32({2, 2, 3}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}); }

TEST(InterpReduce, SumOverDimSetsAndKeepdim) {
  EXPECT_EQ(doubles(run1(one(Op::Sum, DType::Float32, {2, 2, 3}, DType::Float32, {2, 3}, reduce_dims({1})), {x223()})),
            (std::vector<double>{3, 5, 7, 15, 17, 19}));
  EXPECT_EQ(doubles(run1(one(Op::Sum, DType::Float32, {2, 2, 3}, DType::Float32, {1, 2, 1}, reduce_dims({0, 2}, true)), {x223()})),
            (std::vector<double>{24, 42}));
  EXPECT_EQ(doubles(run1(one(Op::Sum, DType::Float32, {2, 2, 3}, DType::Float32, {}, reduce_dims({0, 1, 2})), {x223()})),
            (std::vector<double>{66}));
  // a 0-d input reduces nothing
  EXPECT_EQ(doubles(run1(one(Op::Sum, DType::Float64, {}, DType::Float64, {}, reduce_dims({})), {f64({}, {2.5})})),
            (std::vector<double>{2.5}));
}

TEST(InterpReduce, IntegerSumAndProdWidenAndWrap) {
  const Tensor x = i32({3}, {std::numeric_limits<int32_t>::max(), 1, 2});
  EXPECT_EQ(ints(run1(one(Op::Sum, DType::Int32, {3}, DType::Int64, {}, reduce_dims({0})), {x})),
            (std::vector<int64_t>{2147483650}));
  EXPECT_EQ(ints(run1(one(Op::Prod, DType::Int32, {3}, DType::Int64, {}, reduce_dims({0})), {x})),
            (std::vector<int64_t>{4294967294}));
  const Tensor big = i64({2}, {int64_t{1} << 62, 4});
  EXPECT_EQ(ints(run1(one(Op::Prod, DType::Int64, {2}, DType::Int64, {}, reduce_dims({0})), {big})),
            (std::vector<int64_t>{0}));
  const Tensor b = bools({2, 2}, {1, 1, 0, 1});
  EXPECT_EQ(ints(run1(one(Op::Sum, DType::Bool, {2, 2}, DType::Int64, {2}, reduce_dims({1})), {b})),
            (std::vector<int64_t>{2, 1}));
}

TEST(InterpReduce, AmaxAminPropagateNanAnyAll) {
  const Tensor x = f32({2, 3}, {1, kNan, 3, -1, -5, 2});
  EXPECT_TRUE(floats_near(run1(one(Op::Amax, DType::Float32, {2, 3}, DType::Float32, {2}, reduce_dims({1})), {x}), {kNan, 2}));
  EXPECT_TRUE(floats_near(run1(one(Op::Amin, DType::Float32, {2, 3}, DType::Float32, {2}, reduce_dims({1})), {x}), {kNan, -5}));
  EXPECT_TRUE(floats_near(run1(one(Op::Amax, DType::Float32, {2, 3}, DType::Float32, {3}, reduce_dims({0})), {x}), {1, kNan, 3}));
  const Tensor z = f32({2, 2}, {0, kNan, 0, 0});
  EXPECT_EQ(ints(run1(one(Op::Any, DType::Float32, {2, 2}, DType::Bool, {2}, reduce_dims({1})), {z})), (std::vector<int64_t>{1, 0}));
  EXPECT_EQ(ints(run1(one(Op::All, DType::Int32, {2, 2}, DType::Bool, {2}, reduce_dims({1})), {i32({2, 2}, {1, -3, 0, 2})})),
            (std::vector<int64_t>{1, 0}));
  EXPECT_EQ(ints(run1(one(Op::Amax, DType::Int64, {3}, DType::Int64, {}, reduce_dims({0})), {i64({3}, {-7, 4, 2})})),
            (std::vector<int64_t>{4}));
}

TEST(InterpReduce, VarStdWithCorrections) {
  // x = [1, 2, 3, 4]: mean 2.5, sum of squared deviations 5
  const Tensor x = f64({4}, {1, 2, 3, 4});
  auto var = [&](double c) {
    graph::Attrs a = reduce_dims({0});
    a.correction = c;
    return run1(one(Op::Var, DType::Float64, {4}, DType::Float64, {}, a), {x}).get_double(0);
  };
  EXPECT_DOUBLE_EQ(var(0), 1.25);
  EXPECT_DOUBLE_EQ(var(1), 5.0 / 3.0);
  EXPECT_DOUBLE_EQ(var(2.5), 5.0 / 1.5);
  EXPECT_EQ(var(4), kInf);  // n - correction <= 0: divide by zero
  graph::Attrs a = reduce_dims({0});
  a.correction = 0;
  EXPECT_DOUBLE_EQ(run1(one(Op::Std, DType::Float64, {4}, DType::Float64, {}, a), {x}).get_double(0), std::sqrt(1.25));
  // one element, correction 1: 0 / 0
  EXPECT_TRUE(std::isnan(run1(one(Op::Var, DType::Float32, {1}, DType::Float32, {}, reduce_dims({0})), {f32({1}, {3})}).get_double(0)));
}

TEST(InterpReduce, MeanAndLogsumexp) {
  EXPECT_TRUE(floats_near(run1(one(Op::Mean, DType::Float32, {2, 2, 3}, DType::Float32, {2, 2, 1}, reduce_dims({2}, true)), {x223()}),
                          {1, 4, 7, 10}));
  const Tensor x = f64({3, 2}, {0, 0, 1000, 1000, -kInf, -kInf});
  EXPECT_TRUE(floats_near(run1(one(Op::Logsumexp, DType::Float64, {3, 2}, DType::Float64, {3}, reduce_dims({1})), {x}),
                          {std::log(2.0), 1000 + std::log(2.0), -kInf}, 1e-15));
  EXPECT_TRUE(floats_near(run1(one(Op::Logsumexp, DType::Float64, {2}, DType::Float64, {}, reduce_dims({0})), {f64({2}, {kInf, 1})}),
                          {kInf}));
}

TEST(InterpArgReduce, FirstOccurrenceAndNan) {
  graph::Attrs a = reduce_dims({1});
  const Tensor x = f32({3, 4}, {1, 3, 3, 0, 2, kNan, 5, kNan, -1, -1, -1, -1});
  EXPECT_EQ(ints(run1(one(Op::Argmax, DType::Float32, {3, 4}, DType::Int64, {3}, a), {x})), (std::vector<int64_t>{1, 1, 0}));
  EXPECT_EQ(ints(run1(one(Op::Argmin, DType::Float32, {3, 4}, DType::Int64, {3}, a), {x})), (std::vector<int64_t>{3, 1, 0}));
  // flattened (has_dim false), keepdim
  graph::Attrs flat = reduce_dims({0, 1}, true);
  flat.has_dim = false;
  EXPECT_EQ(ints(run1(one(Op::Argmax, DType::Int32, {2, 3}, DType::Int64, {1, 1}, flat), {i32({2, 3}, {4, 1, 9, 9, 0, 2})})),
            (std::vector<int64_t>{2}));
  // over dim 0 of [2, 3]
  EXPECT_EQ(ints(run1(one(Op::Argmin, DType::Int32, {2, 3}, DType::Int64, {3}, reduce_dims({0})), {i32({2, 3}, {4, 1, 9, 3, 1, 2})})),
            (std::vector<int64_t>{1, 0, 1}));
}

TEST(InterpScan, CumsumCumprodAlongADim) {
  graph::Attrs a;
  a.dim = 1;
  EXPECT_EQ(doubles(run1(one(Op::Cumsum, DType::Float32, {2, 2, 3}, DType::Float32, {2, 2, 3}, a), {x223()})),
            (std::vector<double>{0, 1, 2, 3, 5, 7, 6, 7, 8, 15, 17, 19}));
  a.dim = 0;
  EXPECT_EQ(ints(run1(one(Op::Cumprod, DType::Int32, {4}, DType::Int64, {4}, a), {i32({4}, {2, -3, 4, 65536})})),
            (std::vector<int64_t>{2, -6, -24, -1572864}));
  EXPECT_EQ(ints(run1(one(Op::Cumsum, DType::Bool, {3}, DType::Int64, {3}, a), {bools({3}, {1, 0, 1})})),
            (std::vector<int64_t>{1, 1, 2}));
  EXPECT_EQ(doubles(run1(one(Op::Cumsum, DType::Float64, {}, DType::Float64, {}, a), {f64({}, {4})})), (std::vector<double>{4}));
}

TEST(InterpView, PermuteSliceSelectExpandAndViewsOfViews) {
  GraphBuilder b;
  const auto x = b.input("x", DType::Float32, {2, 2, 3});
  graph::Attrs perm;
  perm.dims = {2, 0, 1};
  const auto p = b.node("p", Op::Permute, {V(x)}, DType::Float32, {3, 2, 2}, perm);  // p[k][i][j] = x[i][j][k]
  graph::Attrs sl;
  sl.dim = 0;
  sl.start = 1;
  sl.end = 3;
  sl.step = 2;
  const auto s = b.node("s", Op::Slice, {V(p)}, DType::Float32, {1, 2, 2}, sl);  // k = 1
  graph::Attrs sel;
  sel.dim = 2;
  sel.index = 1;
  const auto t = b.node("t", Op::Select, {V(s)}, DType::Float32, {1, 2}, sel);  // j = 1: x[i][1][1]
  graph::Attrs ex;
  ex.shape = {3, 2, 2};
  const auto e = b.node("e", Op::Expand, {V(t)}, DType::Float32, {3, 2, 2}, ex);
  graph::Attrs sq;
  sq.dims = {0};
  const auto q = b.node("q", Op::Squeeze, {V(t)}, DType::Float32, {2}, sq);
  graph::Attrs un;
  un.dim = 1;
  const auto u = b.node("u", Op::Unsqueeze, {V(q)}, DType::Float32, {2, 1}, un);
  graph::Attrs tr;
  tr.dims = {1, 0};
  const auto v = b.node("v", Op::Transpose, {V(u)}, DType::Float32, {1, 2}, tr);
  graph::Attrs rs;
  rs.shape = {2, 3, 2};
  const auto r = b.node("r", Op::Reshape, {V(p)}, DType::Float32, {2, 3, 2}, rs);
  const auto out = interpret(b.finish({p, s, t, e, u, v, r}), {x223()});
  EXPECT_EQ(doubles(out[0]), (std::vector<double>{0, 3, 6, 9, 1, 4, 7, 10, 2, 5, 8, 11}));
  EXPECT_EQ(doubles(out[1]), (std::vector<double>{1, 4, 7, 10}));
  EXPECT_EQ(doubles(out[2]), (std::vector<double>{4, 10}));
  EXPECT_EQ(doubles(out[3]), (std::vector<double>{4, 10, 4, 10, 4, 10, 4, 10, 4, 10, 4, 10}));
  EXPECT_EQ(doubles(out[4]), (std::vector<double>{4, 10}));
  EXPECT_EQ(doubles(out[5]), (std::vector<double>{4, 10}));
  EXPECT_EQ(doubles(out[6]), (std::vector<double>{0, 3, 6, 9, 1, 4, 7, 10, 2, 5, 8, 11}));
  EXPECT_EQ(out[6].shape(), (Shape{2, 3, 2}));
}

TEST(InterpCat, PromotesAndConcatenatesAlongADim) {
  GraphBuilder b;
  const auto x = b.input("x", DType::Int32, {2, 1});
  const auto y = b.input("y", DType::Float32, {2, 2});
  graph::Attrs a;
  a.dim = 1;
  const auto c = b.node("c", Op::Cat, {V(x), V(y), V(x)}, DType::Float32, {2, 4}, a);
  const auto out = interpret(b.finish({c}), {i32({2, 1}, {7, 8}), f32({2, 2}, {0.5, 1.5, 2.5, 3.5})});
  EXPECT_EQ(doubles(out[0]), (std::vector<double>{7, 0.5, 1.5, 7, 8, 2.5, 3.5, 8}));
}

TEST(InterpPad, ConstantPadAndNegativeCrop) {
  GraphBuilder b;
  const auto x = b.input("x", DType::Int64, {2, 3});
  graph::Attrs a;
  a.pad = {1, -1, 0, 1};  // last dim: 1 before, crop 1 after; dim 0: 1 after
  a.value = graph::Scalar::of_int(-9);
  const auto p = b.node("p", Op::Pad, {V(x)}, DType::Int64, {3, 3}, a);
  const auto out = interpret(b.finish({p}), {i64({2, 3}, {1, 2, 3, 4, 5, 6})});
  EXPECT_EQ(ints(out[0]), (std::vector<int64_t>{-9, 1, 2, -9, 4, 5, -9, -9, -9}));
}

TEST(InterpMatmul, VectorMatrixAndBatchedBroadcast) {
  GraphBuilder b;
  const auto v = b.input("v", DType::Float64, {2});
  const auto m = b.input("m", DType::Float64, {2, 3});
  const auto bt = b.input("bt", DType::Float64, {2, 1, 2, 2});  // batch [2, 1]
  const auto w = b.input("w", DType::Float64, {3, 2, 3});         // batch [3]
  const auto dot = b.node("dot", Op::Matmul, {V(v), V(v)}, DType::Float64, {});
  const auto vm = b.node("vm", Op::Matmul, {V(v), V(m)}, DType::Float64, {3});
  const auto bm = b.node("bm", Op::Matmul, {V(bt), V(w)}, DType::Float64, {2, 3, 2, 3});
  const auto out = interpret(b.finish({dot, vm, bm}),
                             {f64({2}, {1, 2}), f64({2, 3}, {1, 2, 3, 4, 5, 6}),
                              f64({2, 1, 2, 2}, {1, 0, 0, 1, 0, 1, 1, 0}),
                              f64({3, 2, 3}, {1, 2, 3, 4, 5, 6, 0, 0, 0, 1, 1, 1, -1, 0, 1, 0, 2, 0})});
  EXPECT_EQ(doubles(out[0]), (std::vector<double>{5}));
  EXPECT_EQ(doubles(out[1]), (std::vector<double>{9, 12, 15}));
  // batch (0, j): identity @ w[j]; batch (1, j): swap rows of w[j]
  EXPECT_EQ(doubles(out[2]), (std::vector<double>{1, 2, 3, 4, 5, 6, 0, 0, 0, 1, 1, 1, -1, 0, 1, 0, 2, 0,
                                                  4, 5, 6, 1, 2, 3, 1, 1, 1, 0, 0, 0, 0, 2, 0, -1, 0, 1}));
}

TEST(InterpMatmul, IntegerMatmulIsExactAndWraps) {
  GraphBuilder b;
  const auto x = b.input("x", DType::Int64, {2, 2});
  const auto y = b.input("y", DType::Int64, {2, 1});
  const auto m = b.node("m", Op::Matmul, {V(x), V(y)}, DType::Int64, {2, 1});
  const int64_t big = (int64_t{1} << 53) + 1;  // not exact in double
  const auto out = interpret(b.finish({m}), {i64({2, 2}, {big, 1, int64_t{1} << 62, 0}), i64({2, 1}, {4, 1})});
  EXPECT_EQ(ints(out[0]), (std::vector<int64_t>{36028797018963973, 0}));  // 4 * big + 1; 2^64 wraps
}

TEST(InterpComposite, SoftmaxLogSoftmaxOverADim) {
  GraphBuilder b;
  const auto x = b.input("x", DType::Float64, {2, 2});
  graph::Attrs a;
  a.dim = 0;
  const auto s = b.node("s", Op::Softmax, {V(x)}, DType::Float64, {2, 2}, a);
  const auto l = b.node("l", Op::LogSoftmax, {V(x)}, DType::Float64, {2, 2}, a);
  const auto out = interpret(b.finish({s, l}), {f64({2, 2}, {0, 1000, std::log(3.0), 1000})});
  EXPECT_TRUE(floats_near(out[0], {0.25, 0.5, 0.75, 0.5}, 1e-15));
  EXPECT_TRUE(floats_near(out[1], {std::log(0.25), std::log(0.5), std::log(0.75), std::log(0.5)}, 1e-15));
}

TEST(InterpComposite, LayerNormRmsNormLinear) {
  GraphBuilder b;
  const auto x = b.input("x", DType::Float64, {2, 2});
  const auto w = b.input("w", DType::Float64, {2});
  const auto bias = b.input("bias", DType::Float64, {2});
  graph::Attrs ln;
  ln.normalized_shape = {2};
  ln.eps = 0.0;
  const auto y = b.node("y", Op::LayerNorm, {V(x), graph::Arg::none(), V(bias)}, DType::Float64, {2, 2}, ln);
  const auto r = b.node("r", Op::RmsNorm, {V(x), V(w)}, DType::Float64, {2, 2}, ln);
  const auto lin = b.node("lin", Op::Linear, {V(x), V(x), V(bias)}, DType::Float64, {2, 2});
  const auto out = interpret(b.finish({y, r, lin}), {f64({2, 2}, {1, 3, -2, 2}), f64({2}, {2, 10}), f64({2}, {0.5, -1})});
  // rows [1, 3] and [-2, 2]: mean 2 / 0, biased std 1 / 2 -> [-1, 1] + bias
  EXPECT_TRUE(floats_near(out[0], {-0.5, 0, -0.5, 0}, 1e-15));
  // rms of [1, 3] = sqrt(5), of [-2, 2] = 2
  EXPECT_TRUE(floats_near(out[1], {2 / std::sqrt(5.0), 30 / std::sqrt(5.0), -2, 10}, 1e-15));
  // x @ x.T + bias = [[10, 4], [4, 8]] + [0.5, -1]
  EXPECT_TRUE(floats_near(out[2], {10.5, 3, 4.5, 7}));
}

}  // namespace
}  // namespace stax::interp::testing
