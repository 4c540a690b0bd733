// Helpers for the interpreter tests: literal tensors, element dumps, value comparisons and a
// builder of typed graphs by hand (what the front end would produce).
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include "stax/graph/graph.h"
#include "stax/interp/interpreter.h"
#include "stax/support/tensor.h"

namespace stax::interp::testing {

inline Tensor make_tensor(DType dt, const Shape& shape, const std::vector<double>& values) {
  Tensor t(dt, shape);
  EXPECT_EQ(static_cast<int64_t>(values.size()), t.numel()) << "literal of the wrong size";
  for (std::size_t i = 0; i < values.size() && static_cast<int64_t>(i) < t.numel(); ++i)
    t.set_double(static_cast<int64_t>(i), values[i]);
  return t;
}

inline Tensor make_int_tensor(DType dt, const Shape& shape, const std::vector<int64_t>& values) {
  Tensor t(dt, shape);
  EXPECT_EQ(static_cast<int64_t>(values.size()), t.numel()) << "literal of the wrong size";
  for (std::size_t i = 0; i < values.size() && static_cast<int64_t>(i) < t.numel(); ++i)
    t.set_int(static_cast<int64_t>(i), values[i]);
  return t;
}

inline Tensor f32(const Shape& s, const std::vector<double>& v) { return make_tensor(DType::Float32, s, v); }
inline Tensor f64(const Shape& s, const std::vector<double>& v) { return make_tensor(DType::Float64, s, v); }
inline Tensor i32(const Shape& s, const std::vector<int64_t>& v) { return make_int_tensor(DType::Int32, s, v); }
inline Tensor i64(const Shape& s, const std::vector<int64_t>& v) { return make_int_tensor(DType::Int64, s, v); }
inline Tensor bools(const Shape& s, const std::vector<int64_t>& v) { return make_int_tensor(DType::Bool, s, v); }

inline std::vector<double> doubles(const Tensor& t) {
  std::vector<double> out;
  for (int64_t i = 0; i < t.numel(); ++i) out.push_back(t.get_double(i));
  return out;
}

inline std::vector<int64_t> ints(const Tensor& t) {
  std::vector<int64_t> out;
  for (int64_t i = 0; i < t.numel(); ++i) out.push_back(t.get_int(i));
  return out;
}

// Float elements equal to `expected` (each rounded to the tensor's dtype first) within `tol`
// relative to max(1, |expected|); NaN matches NaN, infinities must match exactly.
inline ::testing::AssertionResult floats_near(const Tensor& t, const std::vector<double>& expected,
                                              double tol = 0.0) {
  if (t.numel() != static_cast<int64_t>(expected.size()))
    return ::testing::AssertionFailure() << "numel " << t.numel() << " != " << expected.size();
  for (std::size_t i = 0; i < expected.size(); ++i) {
    const double got = t.get_double(static_cast<int64_t>(i));
    double want = expected[i];
    if (t.dtype() == DType::Float32) want = static_cast<float>(want);
    if (std::isnan(want) && std::isnan(got)) continue;
    if (std::isinf(want) || std::isinf(got)) {
      if (want == got) continue;
    } else if (std::fabs(got - want) <= tol * std::max(1.0, std::fabs(want))) {
      continue;
    }
    return ::testing::AssertionFailure()
           << "element " << i << ": got " << got << ", expected " << want;
  }
  return ::testing::AssertionSuccess();
}

// Builds a typed Graph as the front end would: every value with dtype, shape, compute dtype and
// normalized Attrs.
class GraphBuilder {
 public:
  explicit GraphBuilder(std::string name = "g") { g_.name = std::move(name); }

  graph::ValueId input(const std::string& name, DType dt, const Shape& shape) {
    graph::Value v;
    v.kind = graph::ValueKind::Input;
    v.name = name;
    v.dtype = dt;
    v.shape = shape;
    v.compute_dtype = dt;
    const graph::ValueId id = add(std::move(v));
    g_.inputs.push_back(id);
    return id;
  }

  graph::ValueId constant(const std::string& name, const Tensor& data) {
    graph::Value v;
    v.kind = graph::ValueKind::Constant;
    v.name = name;
    v.dtype = data.dtype();
    v.shape = data.shape();
    v.compute_dtype = data.dtype();
    v.data = data;
    return add(std::move(v));
  }

  // `compute` defaults to the result dtype.
  graph::ValueId node(const std::string& name, graph::Op op, std::vector<graph::Arg> args, DType dt,
                      const Shape& shape, graph::Attrs attrs = {},
                      std::optional<DType> compute = std::nullopt) {
    graph::Value v;
    v.kind = graph::ValueKind::Node;
    v.name = name;
    v.op = op;
    v.args = std::move(args);
    v.dtype = dt;
    v.shape = shape;
    v.attrs = std::move(attrs);
    v.compute_dtype = compute.value_or(dt);
    return add(std::move(v));
  }

  graph::Graph finish(std::initializer_list<graph::ValueId> outputs) {
    g_.outputs.assign(outputs.begin(), outputs.end());
    return g_;
  }

 private:
  graph::ValueId add(graph::Value v) {
    v.path = "values[" + std::to_string(g_.values.size()) + "]";
    g_.values.push_back(std::move(v));
    return static_cast<graph::ValueId>(g_.values.size() - 1);
  }
  graph::Graph g_;
};

inline graph::Arg V(graph::ValueId id) { return graph::Arg::of_value(id); }
inline graph::Arg I(int64_t v) { return graph::Arg::of_scalar(graph::Scalar::of_int(v)); }
inline graph::Arg F(double v) { return graph::Arg::of_scalar(graph::Scalar::of_float(v)); }
inline graph::Arg B(bool v) { return graph::Arg::of_scalar(graph::Scalar::of_bool(v)); }

}  // namespace stax::interp::testing
