// Composites rewritten into primitive ops, numerically stable (design.md "Front end"):
//   softmax(x)     = e / sum(e)              with e = exp(x - amax(x))
//   log_softmax(x) = (x - m) - log(sum(exp(x - m)))   with m = amax(x)
//   layer_norm(x)  = (x - mean) * rsqrt(mean((x - mean)^2) + eps) [* weight] [+ bias]
//   rms_norm(x)    = x * rsqrt(mean(x * x) + eps) [* weight]   (PyTorch 2.4)
//   linear(x, w)   = matmul(x, transpose(w)) [+ bias]
//   batch_norm(x)  = x * alpha + beta with alpha = rsqrt(var + eps) [* weight] and
//                    beta = [bias] - mean * alpha (0 - ... without bias), the [C] values
//                    reshaped to [C, 1, ...] to broadcast over dim 1 (the inference form)
//   hardswish(x)   = x * min(max(x + 3, 0), 6) / 6;  hardsigmoid(x) = min(max(x + 3, 0), 6) / 6
//   softplus(x)    = where(x * beta > threshold, x, log1p(exp(x * beta)) / beta)
//   elu(x)         = where(x < 0, expm1(x) * alpha, x)
// (PyTorch's CPU kernels' formulas, in their order of operations.) Reductions are over the
// composite's dims with keepdim, so the results broadcast back.
#include "stax/graph/frontend.h"

#include <set>

#include "stax/graph/promote.h"
#include "stax/support/error.h"

namespace stax::graph {

namespace {

// Appends the primitive nodes of one composite to `out`.
class Expander {
 public:
  Expander(Graph& out, const Value& composite, std::set<std::string>& names)
      : out_(out), orig_(composite), names_(names) {}

  // The composite's result: the last node, named as the composite was.
  ValueId expand(const std::vector<Arg>& args) {
    if (orig_.op == Op::Softmax) return softmax(args[0].value, false);
    if (orig_.op == Op::LogSoftmax) return softmax(args[0].value, true);
    if (orig_.op == Op::LayerNorm) return layer_norm(args);
    if (orig_.op == Op::RmsNorm) return rms_norm(args);
    if (orig_.op == Op::Linear) return linear(args);
    if (orig_.op == Op::BatchNorm) return batch_norm(args);
    if (orig_.op == Op::Hardswish || orig_.op == Op::Hardsigmoid) return hard(args[0].value);
    if (orig_.op == Op::Softplus) return softplus(args[0].value);
    if (orig_.op == Op::Elu) return elu(args[0].value);
    STAX_ASSERT(false, "expand of a non-composite op");
    return kNoValue;
  }

 private:
  const Value& at(ValueId id) const { return out_.values[static_cast<std::size_t>(id)]; }

  std::string fresh_name() {
    for (;;) {
      std::string name = orig_.name + "#" + std::to_string(counter_++);
      if (names_.insert(name).second) return name;
    }
  }

  ValueId add(Op op, std::vector<Arg> args, Attrs attrs, DType dtype, DType compute, Shape shape,
              bool last) {
    Value v;
    v.kind = ValueKind::Node;
    v.op = op;
    v.args = std::move(args);
    v.attrs = std::move(attrs);
    v.dtype = dtype;
    v.compute_dtype = compute;
    v.shape = std::move(shape);
    v.path = orig_.path;
    if (last) {
      v.name = orig_.name;
      v.anonymous = orig_.anonymous;
    } else {
      v.name = fresh_name();
      v.anonymous = true;
    }
    out_.values.push_back(std::move(v));
    return static_cast<ValueId>(out_.values.size() - 1);
  }

  ValueId reduce(Op op, ValueId x, const std::vector<int64_t>& dims) {
    Attrs a;
    a.dims = dims;
    a.keepdim = true;
    Shape s = at(x).shape;
    for (int64_t d : dims) s[static_cast<std::size_t>(d)] = 1;
    DType dt = at(x).dtype;
    return add(op, {Arg::of_value(x)}, a, dt, dt, s, false);
  }

  ValueId unary(Op op, ValueId x) {
    DType dt = at(x).dtype;
    return add(op, {Arg::of_value(x)}, Attrs{}, dt, dt, at(x).shape, false);
  }

  ValueId binary(Op op, ValueId a, Arg b, bool last = false) {
    const Value& va = at(a);
    PromoteOperand pa{va.dtype, va.shape.empty() ? PromoteOperand::Rank::ZeroDim
                                                 : PromoteOperand::Rank::Dim};
    Shape shape = va.shape;
    PromoteOperand pb;
    if (b.is_value()) {
      const Value& vb = at(b.value);
      pb = {vb.dtype, vb.shape.empty() ? PromoteOperand::Rank::ZeroDim : PromoteOperand::Rank::Dim};
      std::optional<Shape> s = broadcast_shapes(va.shape, vb.shape);
      STAX_ASSERT(s.has_value(), "composite operands do not broadcast");
      shape = *s;
    } else {
      pb = {b.scalar.kind == Scalar::Kind::Float ? DType::Float64 : DType::Int64,
            PromoteOperand::Rank::PythonScalar};
    }
    DType dt = result_type({pa, pb});
    return add(op, {Arg::of_value(a), b}, Attrs{}, dt, dt, shape, last);
  }

  // A comparison of x with a float literal: bool, computed in x's dtype.
  ValueId compare(Op op, ValueId x, double c) {
    DType dt = at(x).dtype;
    return add(op, {Arg::of_value(x), flt(c)}, Attrs{}, DType::Bool, dt, at(x).shape, false);
  }

  static Arg flt(double v) { return Arg::of_scalar(Scalar::of_float(v)); }

  std::vector<int64_t> last_dims(std::size_t count) const {
    std::vector<int64_t> dims;
    auto ndim = static_cast<int64_t>(orig_.shape.size());
    for (auto d = ndim - static_cast<int64_t>(count); d < ndim; ++d) dims.push_back(d);
    return dims;
  }

  ValueId softmax(ValueId x, bool log) {
    std::vector<int64_t> dims;
    if (!at(x).shape.empty()) dims.push_back(orig_.attrs.dim);
    ValueId m = reduce(Op::Amax, x, dims);
    ValueId d = binary(Op::Sub, x, Arg::of_value(m));
    ValueId e = unary(Op::Exp, d);
    ValueId s = reduce(Op::Sum, e, dims);
    if (!log) return binary(Op::Div, e, Arg::of_value(s), true);
    ValueId l = unary(Op::Log, s);
    return binary(Op::Sub, d, Arg::of_value(l), true);
  }

  // x * rsqrt(mean(sq) + eps), where sq is (x - mean)^2 or x^2.
  ValueId normalize(ValueId centered, ValueId sq, bool last) {
    std::vector<int64_t> dims = last_dims(orig_.attrs.normalized_shape.size());
    ValueId var = reduce(Op::Mean, sq, dims);
    ValueId ve = binary(Op::Add, var, Arg::of_scalar(Scalar::of_float(orig_.attrs.eps)));
    ValueId r = unary(Op::Rsqrt, ve);
    return binary(Op::Mul, centered, Arg::of_value(r), last);
  }

  static bool present(const std::vector<Arg>& args, std::size_t k) {
    return k < args.size() && args[k].is_value();
  }

  ValueId layer_norm(const std::vector<Arg>& args) {
    ValueId x = args[0].value;
    bool has_w = present(args, 1), has_b = present(args, 2);
    std::vector<int64_t> dims = last_dims(orig_.attrs.normalized_shape.size());
    ValueId mu = reduce(Op::Mean, x, dims);
    ValueId d = binary(Op::Sub, x, Arg::of_value(mu));
    ValueId sq = binary(Op::Mul, d, Arg::of_value(d));
    ValueId y = normalize(d, sq, !has_w && !has_b);
    if (has_w) y = binary(Op::Mul, y, args[1], !has_b);
    if (has_b) y = binary(Op::Add, y, args[2], true);
    return y;
  }

  ValueId rms_norm(const std::vector<Arg>& args) {
    ValueId x = args[0].value;
    bool has_w = present(args, 1);
    ValueId sq = binary(Op::Mul, x, Arg::of_value(x));
    ValueId y = normalize(x, sq, !has_w);
    if (has_w) y = binary(Op::Mul, y, args[1], true);
    return y;
  }

  ValueId linear(const std::vector<Arg>& args) {
    ValueId x = args[0].value, w = args[1].value;
    bool has_b = present(args, 2);
    ValueId wt = w;
    if (at(w).shape.size() == 2) {
      Attrs a;
      a.dims = {1, 0};
      Shape s{at(w).shape[1], at(w).shape[0]};
      wt = add(Op::Transpose, {Arg::of_value(w)}, a, at(w).dtype, at(w).dtype, s, false);
    }
    DType dt = at(x).dtype;
    ValueId mm = add(Op::Matmul, {Arg::of_value(x), Arg::of_value(wt)}, Attrs{}, dt, dt,
                     orig_.shape, !has_b);
    if (!has_b) return mm;
    return binary(Op::Add, mm, args[2], true);
  }

  // A [C] parameter as [C, 1, ...]: it broadcasts over dim 1 of the [N, C, ...] input.
  ValueId per_channel(ValueId p) {
    const std::size_t rank = orig_.shape.size();
    if (rank <= 2) return p;
    Attrs a;
    a.shape = Shape(rank - 1, 1);
    a.shape[0] = at(p).shape[0];
    DType dt = at(p).dtype;
    return add(Op::Reshape, {Arg::of_value(p)}, a, dt, dt, a.shape, false);
  }

  // PyTorch's inference kernel: per channel alpha = rsqrt(var + eps) [* weight] and
  // beta = [bias] - mean * alpha, then x * alpha + beta (a zero variance with eps 0 gives
  // inf - inf = NaN, as in PyTorch, and zeros keep PyTorch's signs).
  ValueId batch_norm(const std::vector<Arg>& args) {
    ValueId x = args[0].value;
    bool has_w = present(args, 3), has_b = present(args, 4);
    ValueId ve = binary(Op::Add, args[2].value, flt(orig_.attrs.eps));
    ValueId alpha = unary(Op::Rsqrt, ve);
    if (has_w) alpha = binary(Op::Mul, alpha, args[3]);
    ValueId shift = binary(Op::Mul, args[1].value, Arg::of_value(alpha));
    Arg b = has_b ? args[4] : flt(0.0);
    DType dt = at(shift).dtype;
    ValueId beta = add(Op::Sub, {b, Arg::of_value(shift)}, Attrs{}, dt, dt, at(shift).shape, false);
    ValueId y = binary(Op::Mul, x, Arg::of_value(per_channel(alpha)));
    return binary(Op::Add, y, Arg::of_value(per_channel(beta)), true);
  }

  // hardswish and hardsigmoid: PyTorch's min(max(x + 3, 0), 6) / 6, times x for hardswish.
  ValueId hard(ValueId x) {
    ValueId t = binary(Op::Add, x, flt(3.0));
    t = binary(Op::Maximum, t, flt(0.0));
    t = binary(Op::Minimum, t, flt(6.0));
    if (orig_.op == Op::Hardswish) t = binary(Op::Mul, x, Arg::of_value(t));
    return binary(Op::Div, t, flt(6.0), true);
  }

  ValueId softplus(ValueId x) {
    const double beta = orig_.attrs.beta;
    ValueId bx = binary(Op::Mul, x, flt(beta));
    ValueId big = compare(Op::Gt, bx, orig_.attrs.threshold);
    ValueId soft = binary(Op::Div, unary(Op::Log1p, unary(Op::Exp, bx)), flt(beta));
    DType dt = at(x).dtype;
    return add(Op::Where, {Arg::of_value(big), Arg::of_value(x), Arg::of_value(soft)}, Attrs{},
               dt, dt, orig_.shape, true);
  }

  ValueId elu(ValueId x) {
    ValueId negative = compare(Op::Lt, x, 0.0);
    ValueId e = binary(Op::Mul, unary(Op::Expm1, x), flt(orig_.attrs.alpha));
    DType dt = at(x).dtype;
    return add(Op::Where, {Arg::of_value(negative), Arg::of_value(e), Arg::of_value(x)}, Attrs{},
               dt, dt, orig_.shape, true);
  }

  Graph& out_;
  const Value& orig_;
  std::set<std::string>& names_;
  int counter_ = 0;
};

Arg remap(const Arg& a, const std::vector<ValueId>& map) {
  if (!a.is_value()) return a;
  return Arg::of_value(map[static_cast<std::size_t>(a.value)]);
}

}  // namespace

Graph expand_composites(const Graph& g) {
  Graph out;
  out.name = g.name;
  std::set<std::string> names;
  for (const Value& v : g.values) names.insert(v.name);
  std::vector<ValueId> map(g.values.size(), kNoValue);
  for (std::size_t i = 0; i < g.values.size(); ++i) {
    const Value& v = g.values[i];
    std::vector<Arg> args;
    for (const Arg& a : v.args) args.push_back(remap(a, map));
    if (v.kind == ValueKind::Node && op_category(v.op) == OpCategory::Composite) {
      map[i] = Expander(out, v, names).expand(args);
      continue;
    }
    Value copy = v;
    copy.args = std::move(args);
    out.values.push_back(std::move(copy));
    map[i] = static_cast<ValueId>(out.values.size() - 1);
  }
  for (ValueId id : g.inputs) out.inputs.push_back(map[static_cast<std::size_t>(id)]);
  for (ValueId id : g.outputs) out.outputs.push_back(map[static_cast<std::size_t>(id)]);
  return out;
}

}  // namespace stax::graph
