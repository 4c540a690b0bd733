// expand_composites: structure (no composite left, names kept, shapes and dtypes right) and
// numbers (a small double evaluator of the primitive ops the expansion uses, against the
// composites' formulas).
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <map>

#include "graph_test_util.h"
#include "stax/graph/promote.h"

namespace stax::graph {
namespace {

using testing::doc;
using testing::parse_ok;

bool has_composite(const Graph& g) {
  for (const Value& v : g.values)
    if (v.kind == ValueKind::Node && op_category(v.op) == OpCategory::Composite) return true;
  return false;
}

// Every node's args refer to earlier values, and names are unique.
void check_well_formed(const Graph& g) {
  std::map<std::string, int> names;
  for (std::size_t i = 0; i < g.values.size(); ++i) {
    const Value& v = g.values[i];
    EXPECT_EQ(names[v.name]++, 0) << "duplicate name " << v.name;
    for (const Arg& a : v.args)
      if (a.is_value()) {
        EXPECT_GE(a.value, 0);
        EXPECT_LT(static_cast<std::size_t>(a.value), i) << v.name;
      }
  }
}

// ---- a tiny evaluator in double for the ops expansions produce ----
struct T {
  Shape shape;
  std::vector<double> v;
};

std::vector<int64_t> strides(const Shape& s) {
  std::vector<int64_t> st(s.size(), 1);
  for (std::size_t k = s.size(); k-- > 1;) st[k - 1] = st[k] * s[k];
  return st;
}

// Element of `t` at the multi-index `idx` of a broadcast shape `out`.
double at_broadcast(const T& t, const std::vector<int64_t>& idx, const Shape& out) {
  std::vector<int64_t> st = strides(t.shape);
  std::size_t off = out.size() - t.shape.size();
  int64_t flat = 0;
  for (std::size_t k = 0; k < t.shape.size(); ++k)
    if (t.shape[k] != 1) flat += idx[off + k] * st[k];
  return t.v[static_cast<std::size_t>(flat)];
}

std::vector<int64_t> unflatten(int64_t i, const Shape& s) {
  std::vector<int64_t> idx(s.size());
  for (std::size_t k = s.size(); k-- > 0;) {
    idx[k] = i % s[k];
    i /= s[k];
  }
  return idx;
}

T eval_value(const Value& n, const std::vector<T>& env) {
  auto arg = [&](std::size_t k) {
    const Arg& a = n.args[k];
    if (a.is_value()) return env[static_cast<std::size_t>(a.value)];
    return T{{}, {a.scalar.as_double()}};
  };
  T out{n.shape, std::vector<double>(static_cast<std::size_t>(shape_numel(n.shape)))};
  std::function<double(double, double)> bin;
  std::function<double(double)> un;
  switch (n.op) {
    case Op::Add: bin = [](double a, double b) { return a + b; }; break;
    case Op::Sub: bin = [](double a, double b) { return a - b; }; break;
    case Op::Mul: bin = [](double a, double b) { return a * b; }; break;
    case Op::Div: bin = [](double a, double b) { return a / b; }; break;
    case Op::Exp: un = [](double a) { return std::exp(a); }; break;
    case Op::Log: un = [](double a) { return std::log(a); }; break;
    case Op::Rsqrt: un = [](double a) { return 1.0 / std::sqrt(a); }; break;
    case Op::Gelu: un = [](double a) { return 0.5 * a * (1 + std::erf(a / std::sqrt(2.0))); }; break;
    case Op::Amax:
    case Op::Sum:
    case Op::Mean: {
      T x = arg(0);
      std::vector<double> count(out.v.size(), 0);
      for (auto& e : out.v) e = n.op == Op::Amax ? -INFINITY : 0.0;
      for (int64_t i = 0; i < shape_numel(x.shape); ++i) {
        std::vector<int64_t> idx = unflatten(i, x.shape);
        for (int64_t d : n.attrs.dims) idx[static_cast<std::size_t>(d)] = 0;
        int64_t o = 0;
        std::vector<int64_t> st = strides(out.shape);
        for (std::size_t k = 0; k < idx.size(); ++k) o += idx[k] * st[k];
        double xv = x.v[static_cast<std::size_t>(i)];
        auto& r = out.v[static_cast<std::size_t>(o)];
        r = n.op == Op::Amax ? std::max(r, xv) : r + xv;
        count[static_cast<std::size_t>(o)] += 1;
      }
      if (n.op == Op::Mean)
        for (std::size_t k = 0; k < out.v.size(); ++k) out.v[k] /= count[k];
      return out;
    }
    case Op::Transpose: {
      T x = arg(0);
      for (int64_t i = 0; i < x.shape[0]; ++i)
        for (int64_t j = 0; j < x.shape[1]; ++j)
          out.v[static_cast<std::size_t>(j * x.shape[0] + i)] = x.v[static_cast<std::size_t>(i * x.shape[1] + j)];
      return out;
    }
    case Op::Matmul: {
      T a = arg(0), b = arg(1);
      int64_t m = a.shape[0], k = a.shape[1], nn = b.shape[1];
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < nn; ++j) {
          double s = 0;
          for (int64_t p = 0; p < k; ++p)
            s += a.v[static_cast<std::size_t>(i * k + p)] * b.v[static_cast<std::size_t>(p * nn + j)];
          out.v[static_cast<std::size_t>(i * nn + j)] = s;
        }
      return out;
    }
    default: ADD_FAILURE() << "evaluator lacks " << op_name(n.op); return out;
  }
  for (int64_t i = 0; i < shape_numel(out.shape); ++i) {
    std::vector<int64_t> idx = unflatten(i, out.shape);
    out.v[static_cast<std::size_t>(i)] =
        un ? un(at_broadcast(arg(0), idx, out.shape))
           : bin(at_broadcast(arg(0), idx, out.shape), at_broadcast(arg(1), idx, out.shape));
  }
  return out;
}

// Evaluates an expanded graph; inputs get a deterministic pattern.
std::vector<T> evaluate(const Graph& g) {
  std::vector<T> env;
  for (const Value& v : g.values) {
    T t{v.shape, std::vector<double>(static_cast<std::size_t>(v.numel()))};
    if (v.kind == ValueKind::Input)
      for (std::size_t i = 0; i < t.v.size(); ++i) t.v[i] = std::sin(0.7 * static_cast<double>(i) + 0.3) * 3.0;
    else if (v.kind == ValueKind::Constant)
      for (std::size_t i = 0; i < t.v.size(); ++i) t.v[i] = v.data.get_double(static_cast<int64_t>(i));
    else
      t = eval_value(v, env);
    env.push_back(std::move(t));
  }
  return env;
}

const char* kConstants = R"([{"name": "w", "dtype": "float32", "shape": [6], "data": [1, 2, 0.5, -1, 0.25, 3]},
                             {"name": "b", "dtype": "float32", "shape": [6], "data": [0, 1, -1, 2, 0.5, -0.5]},
                             {"name": "lw", "dtype": "float32", "shape": [3, 6], "data": [1, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0.5, 0.5, -1, 2, 0, 0]},
                             {"name": "lb", "dtype": "float32", "shape": [3], "data": [0.5, -0.5, 1]}])";

TEST(Expand, StructureAndNames) {
  Graph g = parse_ok(doc("x:float32[4,6]",
      R"([{"name": "s", "op": "softmax", "args": ["x"], "dim": -1},
          {"name": "ls", "op": "log_softmax", "args": ["x"], "dim": 0},
          {"name": "ln", "op": "layer_norm", "args": ["x", "w", "b"], "normalized_shape": 6},
          {"name": "rn", "op": "rms_norm", "args": ["x", "w"], "normalized_shape": [6], "eps": 1e-6},
          {"name": "li", "op": "linear", "args": ["x", "lw", "lb"]},
          {"name": "z", "op": "add", "args": [{"op": "softmax", "args": ["x"], "dim": 1}, "s"]}])",
      R"(["s", "ls", "ln", "rn", "li", "z", "x"])", kConstants));
  Graph e = expand_composites(g);
  EXPECT_FALSE(has_composite(e));
  EXPECT_TRUE(has_composite(g));
  check_well_formed(e);
  ASSERT_EQ(e.outputs.size(), g.outputs.size());
  for (std::size_t k = 0; k < g.outputs.size(); ++k) {
    const Value& before = g[g.outputs[k]];
    const Value& after = e[e.outputs[k]];
    EXPECT_EQ(after.name, before.name);
    EXPECT_EQ(after.shape, before.shape);
    EXPECT_EQ(after.dtype, before.dtype);
  }
  EXPECT_EQ(e.inputs, g.inputs);
  std::string sig = format_signature(e);
  EXPECT_NE(sig.find("s#0: float32[4, 1] = amax(x, dim=[1], keepdim=true)\n"
                     "s#1: float32[4, 6] = sub(x, s#0)\n"
                     "s#2: float32[4, 6] = exp(s#1)\n"
                     "s#3: float32[4, 1] = sum(s#2, dim=[1], keepdim=true)\n"
                     "s: float32[4, 6] = div(s#2, s#3)\n"), std::string::npos) << sig;
  EXPECT_NE(sig.find("ls#3: float32[1, 6] = sum(ls#2, dim=[0], keepdim=true)\n"
                     "ls#4: float32[1, 6] = log(ls#3)\n"
                     "ls: float32[4, 6] = sub(ls#1, ls#4)\n"), std::string::npos) << sig;
  EXPECT_NE(sig.find("ln#0: float32[4, 1] = mean(x, dim=[1], keepdim=true)\n"
                     "ln#1: float32[4, 6] = sub(x, ln#0)\n"
                     "ln#2: float32[4, 6] = mul(ln#1, ln#1)\n"
                     "ln#3: float32[4, 1] = mean(ln#2, dim=[1], keepdim=true)\n"
                     "ln#4: float32[4, 1] = add(ln#3, 1e-05)\n"
                     "ln#5: float32[4, 1] = rsqrt(ln#4)\n"
                     "ln#6: float32[4, 6] = mul(ln#1, ln#5)\n"
                     "ln#7: float32[4, 6] = mul(ln#6, w)\n"
                     "ln: float32[4, 6] = add(ln#7, b)\n"), std::string::npos) << sig;
  EXPECT_NE(sig.find("li#0: float32[6, 3] = transpose(lw, dims=[1, 0])\n"
                     "li#1: float32[4, 3] = matmul(x, li#0)\n"
                     "li: float32[4, 3] = add(li#1, lb)\n"), std::string::npos) << sig;
  // The inline softmax "z#0" expands into "z#0#k" nodes and keeps its own name.
  EXPECT_NE(sig.find("z#0: float32[4, 6] = div(z#0#2, z#0#3)\n"
                     "z: float32[4, 6] = add(z#0, s)\n"), std::string::npos) << sig;
}

TEST(Expand, NamesDoNotCollideWithInlineNodes) {
  Graph g = parse_ok(doc("x:float32[2,3]",
      R"([{"name": "y", "op": "softmax", "args": [{"op": "neg", "args": ["x"]}], "dim": 1}])"));
  Graph e = expand_composites(g);
  check_well_formed(e);
  EXPECT_EQ(e[e.find("y#0")].op, Op::Neg);
  EXPECT_EQ(e[e.find("y#1")].op, Op::Amax);
}

TEST(Expand, OptionalArgumentsAndOneDimWeight) {
  Graph g = parse_ok(doc("x:float32[4,6] v:float32[6]",
      R"([{"name": "a", "op": "layer_norm", "args": ["x"], "normalized_shape": [4, 6]},
          {"name": "c", "op": "layer_norm", "args": ["x", null, "b"], "normalized_shape": 6},
          {"name": "d", "op": "rms_norm", "args": ["x"], "normalized_shape": 6},
          {"name": "f", "op": "linear", "args": ["x", "v"]},
          {"name": "h", "op": "linear", "args": ["x", "lw", null]}])",
      R"(["a", "c", "d", "f", "h"])", kConstants));
  Graph e = expand_composites(g);
  EXPECT_FALSE(has_composite(e));
  check_well_formed(e);
  const Value& a = e[e.find("a")];
  EXPECT_EQ(a.op, Op::Mul);
  EXPECT_EQ(e[e.find("a#0")].attrs.dims, (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(e[e.find("a#0")].shape, (Shape{1, 1}));
  const Value& c = e[e.find("c")];
  EXPECT_EQ(c.op, Op::Add);
  EXPECT_EQ(e[e.find("d")].op, Op::Mul);
  const Value& f = e[e.find("f")];
  EXPECT_EQ(f.op, Op::Matmul);
  EXPECT_EQ(f.shape, (Shape{4}));
  EXPECT_EQ(e[f.args[1].value].name, "v");
  EXPECT_EQ(e[e.find("h")].op, Op::Matmul);
}

TEST(Expand, BatchNormAndActivations) {
  Graph g = parse_ok(doc("x:float32[2,3,4,5] m:float32[3] v:float32[3] r:float64[2,3] q:float64[3]",
      R"([{"name": "bn", "op": "batch_norm", "args": ["x", "m", "v", "m", "v"], "eps": 0.5},
          {"name": "b2", "op": "batch_norm", "args": ["r", "q", "q", null, "q"]},
          {"name": "b3", "op": "batch_norm", "args": ["x", "m", "v"]},
          {"name": "hs", "op": "hardswish", "args": ["x"]},
          {"name": "hg", "op": "hardsigmoid", "args": ["x"]},
          {"name": "sp", "op": "softplus", "args": ["x"], "beta": 2, "threshold": 3},
          {"name": "el", "op": "elu", "args": ["x"], "alpha": 0.25}])",
      R"(["bn", "b2", "b3", "hs", "hg", "sp", "el"])"));
  Graph e = expand_composites(g);
  EXPECT_FALSE(has_composite(e));
  check_well_formed(e);
  std::string sig = format_signature(e);
  EXPECT_NE(sig.find("bn#0: float32[3] = add(v, 0.5)\n"
                     "bn#1: float32[3] = rsqrt(bn#0)\n"
                     "bn#2: float32[3] = mul(bn#1, m)\n"
                     "bn#3: float32[3] = mul(m, bn#2)\n"
                     "bn#4: float32[3] = sub(v, bn#3)\n"
                     "bn#5: float32[3, 1, 1] = reshape(bn#2, shape=[3, 1, 1])\n"
                     "bn#6: float32[2, 3, 4, 5] = mul(x, bn#5)\n"
                     "bn#7: float32[3, 1, 1] = reshape(bn#4, shape=[3, 1, 1])\n"
                     "bn: float32[2, 3, 4, 5] = add(bn#6, bn#7)\n"), std::string::npos) << sig;
  // A [N, C] input needs no reshape; absent weight: no product; absent bias: 0 - mean * alpha.
  EXPECT_NE(sig.find("b2#0: float64[3] = add(q, 1e-05)\n"
                     "b2#1: float64[3] = rsqrt(b2#0)\n"
                     "b2#2: float64[3] = mul(q, b2#1)\n"
                     "b2#3: float64[3] = sub(q, b2#2)\n"
                     "b2#4: float64[2, 3] = mul(r, b2#1)\n"
                     "b2: float64[2, 3] = add(b2#4, b2#3)\n"), std::string::npos) << sig;
  EXPECT_NE(sig.find("hs#0: float32[2, 3, 4, 5] = add(x, 3.0)\n"
                     "hs#1: float32[2, 3, 4, 5] = maximum(hs#0, 0.0)\n"
                     "hs#2: float32[2, 3, 4, 5] = minimum(hs#1, 6.0)\n"
                     "hs#3: float32[2, 3, 4, 5] = mul(x, hs#2)\n"
                     "hs: float32[2, 3, 4, 5] = div(hs#3, 6.0)\n"), std::string::npos) << sig;
  EXPECT_NE(sig.find("hg#2: float32[2, 3, 4, 5] = minimum(hg#1, 6.0)\n"
                     "hg: float32[2, 3, 4, 5] = div(hg#2, 6.0)\n"), std::string::npos) << sig;
  EXPECT_NE(sig.find("sp#0: float32[2, 3, 4, 5] = mul(x, 2.0)\n"
                     "sp#1: bool[2, 3, 4, 5] = gt(sp#0, 3.0)\n"
                     "sp#2: float32[2, 3, 4, 5] = exp(sp#0)\n"
                     "sp#3: float32[2, 3, 4, 5] = log1p(sp#2)\n"
                     "sp#4: float32[2, 3, 4, 5] = div(sp#3, 2.0)\n"
                     "sp: float32[2, 3, 4, 5] = where(sp#1, x, sp#4)\n"), std::string::npos) << sig;
  EXPECT_NE(sig.find("el#0: bool[2, 3, 4, 5] = lt(x, 0.0)\n"
                     "el#1: float32[2, 3, 4, 5] = expm1(x)\n"
                     "el#2: float32[2, 3, 4, 5] = mul(el#1, 0.25)\n"
                     "el: float32[2, 3, 4, 5] = where(el#0, el#2, x)\n"), std::string::npos) << sig;
  EXPECT_EQ(e[e.find("sp#1")].compute_dtype, DType::Float32);
  EXPECT_NE(sig.find("b3#3: float32[3] = sub(0.0, b3#2)\n"), std::string::npos) << sig;
}

TEST(Expand, GraphWithoutCompositesIsUnchanged) {
  Graph g = parse_ok(doc("x:float32[2,3]", R"([{"name": "y", "op": "exp", "args": ["x"]}])"));
  EXPECT_EQ(format_signature(expand_composites(g)), format_signature(g));
}

double reference(const std::string& which, const std::vector<double>& x, const std::vector<double>& w,
                 const std::vector<double>& b, int64_t rows, int64_t cols, int64_t r, int64_t c) {
  auto X = [&](int64_t i, int64_t j) { return x[static_cast<std::size_t>(i * cols + j)]; };
  if (which == "softmax" || which == "log_softmax") {
    double m = -INFINITY, s = 0;
    for (int64_t j = 0; j < cols; ++j) m = std::max(m, X(r, j));
    for (int64_t j = 0; j < cols; ++j) s += std::exp(X(r, j) - m);
    return which == "softmax" ? std::exp(X(r, c) - m) / s : X(r, c) - m - std::log(s);
  }
  double mean = 0, sq = 0;
  for (int64_t j = 0; j < cols; ++j) mean += X(r, j) / static_cast<double>(cols);
  if (which == "layer_norm") {
    for (int64_t j = 0; j < cols; ++j) sq += (X(r, j) - mean) * (X(r, j) - mean) / static_cast<double>(cols);
    return (X(r, c) - mean) / std::sqrt(sq + 1e-5) * w[static_cast<std::size_t>(c)] + b[static_cast<std::size_t>(c)];
  }
  for (int64_t j = 0; j < cols; ++j) sq += X(r, j) * X(r, j) / static_cast<double>(cols);
  (void)rows;
  return X(r, c) / std::sqrt(sq + 1.1920928955078125e-07) * w[static_cast<std::size_t>(c)];
}

TEST(Expand, NumbersMatchTheComposites) {
  Graph g = expand_composites(parse_ok(doc("x:float32[4,6]",
      R"([{"name": "softmax", "op": "softmax", "args": ["x"], "dim": -1},
          {"name": "log_softmax", "op": "log_softmax", "args": ["x"], "dim": 1},
          {"name": "layer_norm", "op": "layer_norm", "args": ["x", "w", "b"], "normalized_shape": 6},
          {"name": "rms_norm", "op": "rms_norm", "args": ["x", "w"], "normalized_shape": 6},
          {"name": "linear", "op": "linear", "args": ["x", "lw", "lb"]}])",
      R"(["softmax"])", kConstants)));
  std::vector<T> env = evaluate(g);
  const std::vector<double>& x = env[static_cast<std::size_t>(g.find("x"))].v;
  const std::vector<double>& w = env[static_cast<std::size_t>(g.find("w"))].v;
  const std::vector<double>& b = env[static_cast<std::size_t>(g.find("b"))].v;
  for (const char* which : {"softmax", "log_softmax", "layer_norm", "rms_norm"}) {
    const T& got = env[static_cast<std::size_t>(g.find(which))];
    for (int64_t r = 0; r < 4; ++r)
      for (int64_t c = 0; c < 6; ++c)
        EXPECT_NEAR(got.v[static_cast<std::size_t>(r * 6 + c)], reference(which, x, w, b, 4, 6, r, c), 1e-12)
            << which << " at " << r << "," << c;
  }
  // linear: x @ lw.T + lb, by hand for row 0: lw rows pick x0, x1 + x5, and
  // 0.5 x0 + 0.5 x1 - x2 + 2 x3.
  const T& lin = env[static_cast<std::size_t>(g.find("linear"))];
  EXPECT_EQ(lin.shape, (Shape{4, 3}));
  EXPECT_NEAR(lin.v[0], x[0] + 0.5, 1e-12);
  EXPECT_NEAR(lin.v[1], x[1] + x[5] - 0.5, 1e-12);
  EXPECT_NEAR(lin.v[2], 0.5 * x[0] + 0.5 * x[1] - x[2] + 2 * x[3] + 1, 1e-12);
  // Softmax rows sum to one.
  const T& sm = env[static_cast<std::size_t>(g.find("softmax"))];
  double row = 0;
  for (int c = 0; c < 6; ++c) row += sm.v[static_cast<std::size_t>(6 + c)];
  EXPECT_NEAR(row, 1.0, 1e-12);
}

}  // namespace
}  // namespace stax::graph
