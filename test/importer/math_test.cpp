// Gemm, MatMul, Softmax / LogSoftmax in both axis semantics, LayerNormalization, reductions,
// ArgMax / ArgMin, CumSum, Einsum: against values computed here.
#include <cmath>
#include <map>

#include "op_check.h"

namespace stax::testing {
namespace {

using nlohmann::json;

// [m, k] @ [k, n] in double, rounded to float32.
Tensor matmul2d(const Tensor& a, const Tensor& b) {
  int64_t m = a.shape()[0], k = a.shape()[1], n = b.shape()[1];
  Tensor out(DType::Float32, {m, n});
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double s = 0;
      for (int64_t p = 0; p < k; ++p) s += a.get_double(i * k + p) * b.get_double(p * n + j);
      out.set_double(i * n + j, s);
    }
  return out;
}

Tensor transposed(const Tensor& a) {
  int64_t r = a.shape()[0], c = a.shape()[1];
  Tensor t(a.dtype(), {c, r});
  for (int64_t i = 0; i < r; ++i)
    for (int64_t j = 0; j < c; ++j) t.set_double(j * r + i, a.get_double(i * c + j));
  return t;
}

TEST(ImportGemm, TransposesAlphaBetaBias) {
  Tensor a = iota(DType::Float32, {2, 3}, -1, 0.5), b = iota(DType::Float32, {4, 3}, 2, -0.25);
  Tensor bias = f32({4}, {1, -1, 0.5f, 2});
  // transB with a [N] bias: PyTorch's linear.
  Tensor lin = matmul2d(a, transposed(b));
  for (int64_t i = 0; i < 8; ++i) lin.set_double(i, lin.get_double(i) + bias.get_double(i % 4));
  check_op({"Gemm", {a, b, bias}, lin, {attr_i("transB", 1)}, 13, 1e-6});
  // transA, alpha, beta, a [M, 1] C.
  Tensor at = transposed(a), bt = transposed(b), c = f32({2, 1}, {3, -2});
  Tensor want = matmul2d(a, bt);
  for (int64_t i = 0; i < 8; ++i) want.set_double(i, 0.5 * want.get_double(i) + 2.0 * c.get_double(i / 4));
  check_op({"Gemm", {at, bt, c}, want, {attr_i("transA", 1), attr_f("alpha", 0.5f), attr_f("beta", 2.0f)}, 13, 1e-6});
  check_op({"Gemm", {a, bt}, matmul2d(a, bt), {}, 11, 1e-6});
  OnnxModel m;
  m.input("x", DType::Float32, {2, 3}).initializer("w", b).initializer("b", bias)
      .node("Gemm", {"x", "w", "b"}, {"y"}, {attr_i("transB", 1)}).output("y", DType::Float32);
  EXPECT_EQ(node_named(document(import_model(m)), "y"), json::parse(R"({"name": "y", "op": "linear", "args": ["x", "w", "b"]})"));
}

TEST(ImportMatMul, BatchedAndVectors) {
  Tensor a = iota(DType::Float32, {2, 1, 2, 3}), b = iota(DType::Float32, {3, 3, 2}, 1);
  Tensor want(DType::Float32, {2, 3, 2, 2});
  for (int64_t p = 0; p < 2; ++p)
    for (int64_t q = 0; q < 3; ++q)
      for (int64_t i = 0; i < 2; ++i)
        for (int64_t j = 0; j < 2; ++j) {
          double s = 0;
          for (int64_t k = 0; k < 3; ++k) s += a.get_double(p * 6 + i * 3 + k) * b.get_double(q * 6 + k * 2 + j);
          want.set_double(((p * 3 + q) * 2 + i) * 2 + j, s);
        }
  check_op({"MatMul", {a, b}, want});
  check_op({"MatMul", {f32({3}, {1, 2, 3}), iota(DType::Float32, {3, 2})}, f32({2}, {16, 22})});
  check_op({"MatMul", {f32({3}, {1, 2, 3}), f32({3}, {4, 5, 6})}, f32({}, {32})});
  check_op({"MatMul", {i64({2, 2}, {1, 2, 3, 4}), i64({2}, {5, 6})}, i64({2}, {17, 39})});
}

// softmax of each row of `x` viewed as [rows, n].
Tensor softmax_rows(const Tensor& x, int64_t n, bool log) {
  Tensor out(x.dtype(), x.shape());
  for (int64_t r = 0; r < x.numel() / n; ++r) {
    double mx = -INFINITY, sum = 0;
    for (int64_t j = 0; j < n; ++j) mx = std::max(mx, x.get_double(r * n + j));
    for (int64_t j = 0; j < n; ++j) sum += std::exp(x.get_double(r * n + j) - mx);
    for (int64_t j = 0; j < n; ++j) {
      double v = x.get_double(r * n + j) - mx;
      out.set_double(r * n + j, log ? v - std::log(sum) : std::exp(v) / sum);
    }
  }
  return out;
}

TEST(ImportSoftmax, AxisSemanticsPerOpset) {
  Tensor x = iota(DType::Float32, {2, 2, 3}, -1, 0.3);
  for (const char* op : {"Softmax", "LogSoftmax"}) {
    bool log = std::string(op) == "LogSoftmax";
    // Before opset 13: the input as 2-D [2, 6] at axis 1 (the default), rows normalized.
    check_op({op, {x}, softmax_rows(x, 6, log), {}, 11, 1e-6});
    check_op({op, {x}, softmax_rows(x, 3, log), {attr_i("axis", 2)}, 12, 1e-6});
    check_op({op, {x}, softmax_rows(x, 12, log), {attr_i("axis", 0)}, 11, 1e-6});
    // From opset 13: along the axis alone (default -1).
    check_op({op, {x}, softmax_rows(x, 3, log), {}, 13, 1e-6});
    Tensor moved(DType::Float32, {2, 3, 2});  // x with axes 1 and 2 swapped
    for (int64_t i = 0; i < 2; ++i)
      for (int64_t j = 0; j < 2; ++j)
        for (int64_t k = 0; k < 3; ++k) moved.set_double(i * 6 + k * 2 + j, x.get_double(i * 6 + j * 3 + k));
    Tensor want_moved = softmax_rows(moved, 2, log), want(DType::Float32, {2, 2, 3});
    for (int64_t i = 0; i < 2; ++i)
      for (int64_t j = 0; j < 2; ++j)
        for (int64_t k = 0; k < 3; ++k) want.set_double(i * 6 + j * 3 + k, want_moved.get_double(i * 6 + k * 2 + j));
    check_op({op, {x}, want, {attr_i("axis", 1)}, 13, 1e-6});
  }
}

TEST(ImportLayerNorm, ScaleAndBiasForms) {
  Tensor x = iota(DType::Float32, {2, 2, 3}, -2, 0.7);
  auto expected = [&](int64_t n, const Tensor& scale, const Tensor* bias) {
    Tensor out(DType::Float32, x.shape());
    for (int64_t r = 0; r < x.numel() / n; ++r) {
      double mean = 0, var = 0;
      for (int64_t j = 0; j < n; ++j) mean += x.get_double(r * n + j) / static_cast<double>(n);
      for (int64_t j = 0; j < n; ++j) var += std::pow(x.get_double(r * n + j) - mean, 2) / static_cast<double>(n);
      for (int64_t j = 0; j < n; ++j) {
        int64_t p = j % scale.numel();
        double v = (x.get_double(r * n + j) - mean) / std::sqrt(var + 1e-5) * scale.get_double(p);
        out.set_double(r * n + j, v + (bias ? bias->get_double(p) : 0.0));
      }
    }
    return out;
  };
  Tensor s3 = f32({3}, {1, 2, -1}), b3 = f32({3}, {0.5f, 0, 1});
  check_op({"LayerNormalization", {x, s3, b3}, expected(3, s3, &b3), {}, 17, 1e-5});
  Tensor s6 = iota(DType::Float32, {2, 3}, 0.5, 0.25);
  check_op({"LayerNormalization", {x, s6}, expected(6, s6, nullptr), {attr_i("axis", 1)}, 17, 1e-5});
  // A [3] scale with axis 1 broadcasts over the normalized [2, 3]: applied after layer_norm.
  check_op({"LayerNormalization", {x, s3, b3}, expected(6, s3, &b3), {attr_i("axis", -2)}, 17, 1e-5});
  OnnxModel m(17);
  m.input("x", DType::Float32, {2, 3}).initializer("s", s3).initializer("b", b3)
      .node("LayerNormalization", {"x", "s", "b"}, {"y"}, {attr_f("epsilon", 1e-6f)}).output("y", DType::Float32);
  EXPECT_EQ(node_named(document(import_model(m)), "y"), json::parse(R"({"name": "y", "op": "layer_norm",
      "args": ["x", "s", "b"], "normalized_shape": [3], "eps": 1e-06})"));
}

// Mean and InvStdDev, the optional outputs: over the normalized dims, kept as 1s; InvStdDev from
// the biased variance (ONNX's node tests test_layer_normalization_*).
TEST(ImportLayerNorm, MeanAndInvStdDevOutputs) {
  Tensor x = f32({2, 3}, {1, 2, 6, -1, -1, 5});
  OnnxModel m(17);
  m.input("x", DType::Float32, {2, 3}).initializer("s", f32({3}, {1, 1, 1}))
      .node("LayerNormalization", {"x", "s"}, {"y", "mean", "inv"}, {attr_f("epsilon", 0.5f)})
      .output("mean", DType::Float32).output("inv", DType::Float32);
  std::vector<Tensor> out = run_model(m, {x});
  ASSERT_EQ(out.size(), 2u);
  // Row 0: mean 3, variance (4 + 1 + 9) / 3; row 1: mean 1, variance (4 + 4 + 16) / 3.
  EXPECT_TRUE(same_tensor(out[0], f32({2, 1}, {3, 1}), 1e-6));
  EXPECT_TRUE(same_tensor(out[1], f32({2, 1}, {static_cast<float>(1 / std::sqrt(14.0 / 3 + 0.5)),
                                               static_cast<float>(1 / std::sqrt(8.0 + 0.5))}), 1e-6));
}

TEST(ImportReduce, AxesForms) {
  Tensor x = iota(DType::Float32, {2, 3});
  check_op({"ReduceSum", {x}, f32({2, 1}, {3, 12}), {attr_ints("axes", {1})}, 11});
  check_op({"ReduceSum", {x, i64({1}, {-2})}, f32({3}, {3, 5, 7}), {attr_i("keepdims", 0)}, 13});
  check_op({"ReduceSum", {x}, f32({1, 1}, {15}), {}, 13});
  check_op({"ReduceSum", {x}, x, {attr_i("noop_with_empty_axes", 1)}, 13});
  check_op({"ReduceMean", {x}, f32({2}, {1, 4}), {attr_ints("axes", {1}), attr_i("keepdims", 0)}});
  check_op({"ReduceMax", {x}, f32({1, 3}, {3, 4, 5}), {attr_ints("axes", {0})}});
  check_op({"ReduceMin", {x}, f32({}, {0}), {attr_i("keepdims", 0)}});
  check_op({"ReduceProd", {f32({3}, {2, 3, 4})}, f32({1}, {24})});
  check_op({"ReduceL1", {f32({3}, {-2, 3, -4})}, f32({1}, {9})});
  check_op({"ReduceL2", {f32({2}, {3, -4})}, f32({1}, {5})});
  check_op({"ReduceSumSquare", {f32({2}, {3, -4})}, f32({1}, {25})});
  check_op({"ReduceLogSumExp", {f32({2}, {0, 0})}, f32({1}, {std::log(2.0f)}), {}, 13, 1e-7});
  check_op({"ReduceLogSum", {f32({2}, {1, 3})}, f32({1}, {std::log(4.0f)}), {}, 13, 1e-7});
  // PyTorch sums int32 into int64: cast back to ONNX's int32.
  check_op({"ReduceSum", {i32({3}, {1, 2, 3}), i64({1}, {0})}, i32({1}, {6})});
  check_op({"ReduceMax", {i64({3}, {1, 7, 3})}, i64({}, {7}), {attr_i("keepdims", 0)}});
  EXPECT_IMPORT_ERROR(single_node({"ReduceMean", {i64({2}, {1, 2})}, i64({1}, {1})}, false), "ReduceMean of integers");
}

TEST(ImportReduce, ArgMaxArgMinCumSum) {
  Tensor x = f32({2, 3}, {1, 5, 5, 7, 0, 7});
  // The first index of the extreme, as PyTorch.
  check_op({"ArgMax", {x}, i64({2, 1}, {1, 0}), {attr_i("axis", 1)}});
  check_op({"ArgMin", {x}, i64({3}, {0, 1, 0}), {attr_i("keepdims", 0)}});
  // select_last_index = 1: the last index of the extreme (ONNX's node tests *_select_last_index).
  check_op({"ArgMax", {x}, i64({2, 1}, {2, 2}), {attr_i("axis", 1), attr_i("select_last_index", 1)}});
  check_op({"ArgMin", {f32({2, 4}, {3, 1, 1, 4, 2, 0, 2, 0})}, i64({2}, {2, 3}),
            {attr_i("axis", -1), attr_i("keepdims", 0), attr_i("select_last_index", 1)}});
  check_op({"CumSum", {x, i64({}, {1})}, f32({2, 3}, {1, 6, 11, 7, 7, 14})});
  check_op({"CumSum", {i32({3}, {1, 2, 3}), i32({}, {0})}, i32({3}, {1, 3, 6})});
  EXPECT_IMPORT_ERROR(single_node({"CumSum", {x, i64({}, {1})}, x, {attr_i("reverse", 1)}}, false), "reverse = 1");
}

// Einsum by its definition: every assignment of the labels, the product of the operands'
// elements summed into the output's (`eq` without an ellipsis; `out_dtype` the inputs').
Tensor naive_einsum(const std::string& eq, const std::vector<Tensor>& xs) {
  std::size_t arrow = eq.find("->");
  std::vector<std::string> terms;
  for (std::size_t s = 0;;) {
    std::size_t comma = eq.find(',', s);
    terms.push_back(eq.substr(s, std::min(comma, arrow) - s));
    if (comma == std::string::npos || comma > arrow) break;
    s = comma + 1;
  }
  std::string out = eq.substr(arrow + 2), all;
  std::map<char, int64_t> size;
  for (std::size_t i = 0; i < terms.size(); ++i)
    for (std::size_t d = 0; d < terms[i].size(); ++d) {
      size[terms[i][d]] = std::max<int64_t>(size[terms[i][d]], xs[i].shape()[d]);
      if (all.find(terms[i][d]) == std::string::npos) all.push_back(terms[i][d]);
    }
  Shape out_shape;
  for (char ch : out) out_shape.push_back(size[ch]);
  Tensor y(xs[0].dtype(), out_shape);
  std::vector<double> acc(static_cast<std::size_t>(y.numel()), 0.0);
  std::map<char, int64_t> at;
  for (char ch : all) at[ch] = 0;
  for (;;) {
    double p = 1;
    for (std::size_t i = 0; i < terms.size(); ++i) {
      int64_t flat = 0;
      for (std::size_t d = 0; d < terms[i].size(); ++d) {
        int64_t n = xs[i].shape()[d];
        flat = flat * n + (n == 1 ? 0 : at[terms[i][d]]);  // a dim of 1 broadcasts
      }
      p *= xs[i].get_double(flat);
    }
    int64_t o = 0;
    for (char ch : out) o = o * size[ch] + at[ch];
    acc[static_cast<std::size_t>(o)] += p;
    std::size_t k = all.size();
    while (k > 0 && ++at[all[k - 1]] == size[all[k - 1]]) at[all[--k]] = 0;
    if (k == 0) break;
  }
  for (int64_t i = 0; i < y.numel(); ++i) y.set_double(i, acc[static_cast<std::size_t>(i)]);
  return y;
}

TEST(ImportEinsum, ContractionsAsMatmuls) {
  Tensor a = iota(DType::Float32, {2, 3}, -1, 0.5), b = iota(DType::Float32, {3, 4}, 2, -0.25);
  Tensor v = f32({3}, {1, -2, 0.5f}), w = f32({4}, {2, 1, -1, 3});
  auto check = [](const std::string& eq, const std::vector<Tensor>& xs, const std::string& expanded) {
    check_op({"Einsum", xs, naive_einsum(expanded, xs), {attr_s("equation", eq)}, 13, 1e-6});
  };
  check("i,j->ij", {v, w}, "i,j->ij");                 // torch.outer
  check("ij,jk->ik", {a, b}, "ij,jk->ik");
  check("ij,jk", {a, b}, "ij,jk->ik");                 // implicit output: labels used once, sorted
  check("ji,jk->ki", {b, b}, "ji,jk->ki");
  check("ij->ji", {a}, "ij->ji");
  check("ij->", {a}, "ij->");
  check("ij -> j", {a}, "ij->j");
  check("i,i->", {v, v}, "i,i->");                     // a dot product: a 0-d result
  check("ij,jk,kl->il", {a, b, iota(DType::Float32, {4, 2}, 1, 0.5)}, "ij,jk,kl->il");
  check("ij,kl->", {a, b}, "ij,kl->");                 // labels summed within each operand first
  Tensor q = iota(DType::Float32, {2, 2, 3, 4}, -2, 0.1), k = iota(DType::Float32, {2, 2, 5, 4}, 1, -0.07);
  check("bhqd,bhkd->bhqk", {q, k}, "bhqd,bhkd->bhqk");  // attention scores
  check("bhqk,bhkd->bqhd", {naive_einsum("bhqd,bhkd->bhqk", {q, k}), k}, "bhqk,bhkd->bqhd");
  // The ellipsis: the same broadcast dims everywhere, aligned at the right.
  Tensor e1 = iota(DType::Float32, {2, 1, 2, 3}), e2 = iota(DType::Float32, {1, 3, 3, 2}, 1);
  check("...ij,...jk->...ik", {e1, e2}, "abij,abjk->abik");
  check("...ij->...ji", {e1}, "abij->abji");
  check("i...,i...", {iota(DType::Float32, {3, 2}), iota(DType::Float32, {3, 2}, 1)}, "ia,ia->a");
  // Integers: int64 products; int32 sums cast back to int32, as PyTorch's einsum keeps the type.
  check("ij,j->i", {i64({2, 2}, {1, 2, 3, 4}), i64({2}, {5, 6})}, "ij,j->i");
  check("ij->i", {i32({2, 2}, {1, 2, 3, 4})}, "ij->i");
  check("ij,kl->", {i32({2, 2}, {1, 2, 3, 4}), i32({1, 2}, {-1, 3})}, "ij,kl->");
}

TEST(ImportEinsum, RefusedForms) {
  Tensor a = iota(DType::Float32, {3, 3});
  auto fails = [&](const std::string& eq, const std::vector<Tensor>& xs, const char* fragment) {
    EXPECT_IMPORT_ERROR(single_node({"Einsum", xs, f32({3}, {}), {attr_s("equation", eq)}}, false), fragment);
  };
  fails("ii->i", {a}, "repeats a label (a diagonal), which is not supported");
  // What ONNX's shape inference finds first, naming the node.
  fails("ij,jk->ik", {a}, "does not match the operands in the equation");
  fails("ijk->i", {a}, "Rank of input 0 does not match");
}

}  // namespace
}  // namespace stax::testing
