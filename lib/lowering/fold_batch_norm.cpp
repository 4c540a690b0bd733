// fold_batch_norms (stax/lowering/fold.h): batch norms folded into the convolution or linear
// layer before them.
#include <cmath>
#include <optional>

#include "stax/lowering/fold.h"

namespace stax::lowering {

namespace {

using graph::Arg;
using graph::Graph;
using graph::Op;
using graph::Value;
using graph::ValueId;
using graph::ValueKind;

enum class Layer : unsigned char { Conv, Linear, Matmul };

// One fold: batch_norm `bn` into `layer`, whose weight and bias become `weight` and `bias`.
struct Fold {
  ValueId bn = graph::kNoValue, layer = graph::kNoValue;
  Layer kind = Layer::Conv;
  Tensor weight, bias;
};

bool is_constant(const Graph& g, const std::vector<Arg>& args, std::size_t k) {
  return k < args.size() && args[k].is_value() && g[args[k].value].kind == ValueKind::Constant;
}
bool constant_or_absent(const Graph& g, const std::vector<Arg>& args, std::size_t k) {
  return k >= args.size() || args[k].is_none() || is_constant(g, args, k);
}
// Element i of optional constant argument k, or `absent`.
double param(const Graph& g, const std::vector<Arg>& args, std::size_t k, int64_t i, double absent) {
  return is_constant(g, args, k) ? g[args[k].value].data.get_double(i) : absent;
}

// Uses of each value: node arguments and graph outputs.
std::vector<int> use_counts(const Graph& g) {
  std::vector<int> uses(g.values.size(), 0);
  for (const Value& v : g.values)
    for (const Arg& a : v.args)
      if (a.is_value()) ++uses[static_cast<std::size_t>(a.value)];
  for (ValueId o : g.outputs) ++uses[static_cast<std::size_t>(o)];
  return uses;
}

// The layer kind of `l` when batch_norm can fold into it (weights constant, output [N, C, ...]).
std::optional<Layer> foldable_layer(const Graph& g, const Value& l) {
  if (l.kind != ValueKind::Node) return std::nullopt;
  if (l.op == Op::Conv1d || l.op == Op::Conv2d) {
    if (is_constant(g, l.args, 1) && constant_or_absent(g, l.args, 2)) return Layer::Conv;
  } else if (l.op == Op::Linear && l.shape.size() == 2) {
    if (is_constant(g, l.args, 1) && g[l.args[1].value].shape.size() == 2 && constant_or_absent(g, l.args, 2))
      return Layer::Linear;
  } else if (l.op == Op::Matmul && l.shape.size() == 2 && is_constant(g, l.args, 1) &&
             g[l.args[1].value].shape.size() == 2 && l.args[0].is_value() && g[l.args[0].value].shape.size() == 2) {
    return Layer::Matmul;
  }
  return std::nullopt;
}

// The fold of batch_norm `bn`, if it has one.
std::optional<Fold> fold_of(const Graph& g, ValueId bn, const std::vector<int>& uses) {
  const Value& v = g[bn];
  if (v.kind != ValueKind::Node || v.op != Op::BatchNorm || !v.args.at(0).is_value()) return std::nullopt;
  if (!is_constant(g, v.args, 1) || !is_constant(g, v.args, 2) || !constant_or_absent(g, v.args, 3) ||
      !constant_or_absent(g, v.args, 4))
    return std::nullopt;
  const ValueId x = v.args[0].value;
  const Value& l = g[x];
  if (uses[static_cast<std::size_t>(x)] != 1 || l.dtype != v.dtype) return std::nullopt;
  const std::optional<Layer> kind = foldable_layer(g, l);
  if (!kind) return std::nullopt;
  Fold f;
  f.bn = bn;
  f.layer = x;
  f.kind = *kind;
  const int64_t channels = v.shape.at(1);
  const Tensor& w = g[l.args[1].value].data;
  // Linear and conv weights are [C, ...] (a row per channel); a matmul's is [K, C].
  const int64_t per = w.numel() / channels;
  f.weight = Tensor(l.dtype, *kind == Layer::Matmul ? Shape{channels, per} : w.shape());
  f.bias = Tensor(l.dtype, Shape{channels});
  for (int64_t c = 0; c < channels; ++c) {
    const double s = param(g, v.args, 3, c, 1.0) / std::sqrt(param(g, v.args, 2, c, 0.0) + v.attrs.eps);
    for (int64_t r = 0; r < per; ++r)
      f.weight.set_double(c * per + r, w.get_double(*kind == Layer::Matmul ? r * channels + c : c * per + r) * s);
    const double b = *kind == Layer::Matmul ? 0.0 : param(g, l.args, 2, c, 0.0);
    f.bias.set_double(c, (b - param(g, v.args, 1, c, 0.0)) * s + param(g, v.args, 4, c, 0.0));
  }
  return f;
}

Value constant(const Value& layer, const std::string& what, Tensor data) {
  Value c;
  c.kind = ValueKind::Constant;
  c.name = layer.name + "#folded_" + what;
  c.anonymous = true;
  c.path = layer.path;
  c.dtype = c.compute_dtype = data.dtype();
  c.shape = data.shape();
  c.data = std::move(data);
  return c;
}

}  // namespace

Graph fold_batch_norms(const Graph& g, std::vector<std::string>* folded) {
  const std::vector<int> uses = use_counts(g);
  std::vector<Fold> folds;
  std::vector<int> fold_of_layer(g.values.size(), -1), fold_of_bn(g.values.size(), -1);
  for (std::size_t i = 0; i < g.values.size(); ++i) {
    std::optional<Fold> f = fold_of(g, static_cast<ValueId>(i), uses);
    if (!f) continue;
    fold_of_layer[static_cast<std::size_t>(f->layer)] = fold_of_bn[i] = static_cast<int>(folds.size());
    if (folded != nullptr)
      folded->push_back("folded batch_norm " + g[f->bn].name + " into " + std::string(graph::op_name(g[f->layer].op)) +
                        " " + g[f->layer].name);
    folds.push_back(std::move(*f));
  }
  if (folds.empty()) return g;
  Graph out;
  out.name = g.name;
  std::vector<ValueId> map(g.values.size(), graph::kNoValue);
  std::vector<ValueId> weight_id(folds.size()), bias_id(folds.size());
  auto push = [&out](Value v) {
    out.values.push_back(std::move(v));
    return static_cast<ValueId>(out.values.size() - 1);
  };
  bool constants_added = false;
  for (std::size_t i = 0; i < g.values.size(); ++i) {
    const Value& v = g.values[i];
    if (v.kind == ValueKind::Node && !constants_added) {  // the new constants after the others
      for (std::size_t k = 0; k < folds.size(); ++k) {
        weight_id[k] = push(constant(g[folds[k].layer], "weight", folds[k].weight));
        bias_id[k] = push(constant(g[folds[k].layer], "bias", folds[k].bias));
      }
      constants_added = true;
    }
    if (fold_of_bn[i] >= 0) {
      map[i] = map[static_cast<std::size_t>(folds[static_cast<std::size_t>(fold_of_bn[i])].layer)];
      continue;
    }
    Value copy = v;
    for (Arg& a : copy.args)
      if (a.is_value()) a.value = map[static_cast<std::size_t>(a.value)];
    if (const int k = fold_of_layer[i]; k >= 0) {
      const Value& bn = g[folds[static_cast<std::size_t>(k)].bn];
      copy.name = bn.name;
      copy.anonymous = bn.anonymous;
      if (copy.op == Op::Matmul) copy.op = Op::Linear;  // x @ w' + b' with w' as [C, K]
      copy.args.resize(3);
      copy.args[1] = Arg::of_value(weight_id[static_cast<std::size_t>(k)]);
      copy.args[2] = Arg::of_value(bias_id[static_cast<std::size_t>(k)]);
    }
    map[i] = push(std::move(copy));
  }
  for (ValueId id : g.inputs) out.inputs.push_back(map[static_cast<std::size_t>(id)]);
  for (ValueId id : g.outputs) out.outputs.push_back(map[static_cast<std::size_t>(id)]);
  return out;
}

}  // namespace stax::lowering
