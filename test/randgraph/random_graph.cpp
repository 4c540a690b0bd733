// The generator's driver: the op table, the main loop (one main node per step, sometimes
// inline and consumed by the next step), the outputs and the JSON text.
#include "random_graph.h"

#include <stdexcept>

#include "rg_internal.h"

namespace stax::randgraph {

namespace detail {

const std::vector<OpEntry>& op_table() {
  using F = Family;
  static const std::vector<OpEntry> table = {
      {"neg", F::Elementwise, gen_unary},         {"abs", F::Elementwise, gen_unary},
      {"sign", F::Elementwise, gen_unary},        {"relu", F::Elementwise, gen_unary},
      {"floor", F::Elementwise, gen_unary},       {"ceil", F::Elementwise, gen_unary},
      {"round", F::Elementwise, gen_unary},       {"trunc", F::Elementwise, gen_unary},
      {"logical_not", F::Elementwise, gen_unary}, {"bitwise_not", F::Elementwise, gen_unary},
      {"clamp", F::Elementwise, gen_clamp},       {"leaky_relu", F::Elementwise, gen_unary},
      {"gelu", F::Elementwise, gen_unary},        {"silu", F::Elementwise, gen_unary},
      {"exp", F::Elementwise, gen_unary},         {"exp2", F::Elementwise, gen_unary},
      {"expm1", F::Elementwise, gen_unary},       {"log", F::Elementwise, gen_unary},
      {"log2", F::Elementwise, gen_unary},        {"log10", F::Elementwise, gen_unary},
      {"log1p", F::Elementwise, gen_unary},       {"sqrt", F::Elementwise, gen_unary},
      {"rsqrt", F::Elementwise, gen_unary},       {"reciprocal", F::Elementwise, gen_unary},
      {"sin", F::Elementwise, gen_unary},         {"cos", F::Elementwise, gen_unary},
      {"tan", F::Elementwise, gen_unary},         {"asin", F::Elementwise, gen_unary},
      {"acos", F::Elementwise, gen_unary},        {"atan", F::Elementwise, gen_unary},
      {"sinh", F::Elementwise, gen_unary},        {"cosh", F::Elementwise, gen_unary},
      {"tanh", F::Elementwise, gen_unary},        {"sigmoid", F::Elementwise, gen_unary},
      {"erf", F::Elementwise, gen_unary},         {"erfc", F::Elementwise, gen_unary},
      {"isnan", F::Elementwise, gen_unary},       {"isinf", F::Elementwise, gen_unary},
      {"isfinite", F::Elementwise, gen_unary},    {"add", F::Elementwise, gen_arith},
      {"sub", F::Elementwise, gen_arith},         {"mul", F::Elementwise, gen_arith},
      {"div", F::Elementwise, gen_div},           {"remainder", F::Elementwise, gen_div},
      {"pow", F::Elementwise, gen_pow},           {"maximum", F::Elementwise, gen_arith},
      {"minimum", F::Elementwise, gen_arith},     {"atan2", F::Elementwise, gen_atan2},
      {"bitwise_and", F::Elementwise, gen_bitwise}, {"bitwise_or", F::Elementwise, gen_bitwise},
      {"bitwise_xor", F::Elementwise, gen_bitwise}, {"eq", F::Elementwise, gen_compare},
      {"ne", F::Elementwise, gen_compare},        {"lt", F::Elementwise, gen_compare},
      {"le", F::Elementwise, gen_compare},        {"gt", F::Elementwise, gen_compare},
      {"ge", F::Elementwise, gen_compare},        {"logical_and", F::Elementwise, gen_logical},
      {"logical_or", F::Elementwise, gen_logical}, {"logical_xor", F::Elementwise, gen_logical},
      {"where", F::Elementwise, gen_where},       {"to", F::Elementwise, gen_to},
      {"full", F::Creation, gen_full},            {"arange", F::Creation, gen_arange},
      {"sum", F::Reduction, gen_reduction},       {"mean", F::Reduction, gen_reduction},
      {"prod", F::Reduction, gen_reduction},      {"amax", F::Reduction, gen_reduction},
      {"amin", F::Reduction, gen_reduction},      {"any", F::Reduction, gen_reduction},
      {"all", F::Reduction, gen_reduction},       {"var", F::Reduction, gen_reduction},
      {"std", F::Reduction, gen_reduction},       {"logsumexp", F::Reduction, gen_reduction},
      {"argmax", F::Reduction, gen_argreduce},    {"argmin", F::Reduction, gen_argreduce},
      {"cumsum", F::Scan, gen_scan},              {"cumprod", F::Scan, gen_scan},
      {"reshape", F::View, gen_view},             {"permute", F::View, gen_view},
      {"transpose", F::View, gen_view},           {"expand", F::View, gen_view},
      {"unsqueeze", F::View, gen_view},           {"squeeze", F::View, gen_view},
      {"flatten", F::View, gen_view},             {"slice", F::View, gen_view},
      {"select", F::View, gen_view},              {"cat", F::CatPad, gen_cat},
      {"pad", F::CatPad, gen_pad},                {"softmax", F::Composite, gen_softmax},
      {"log_softmax", F::Composite, gen_softmax}, {"layer_norm", F::Composite, gen_norm},
      {"rms_norm", F::Composite, gen_norm},       {"linear", F::Composite, gen_linear},
      {"matmul", F::Matmul, gen_matmul},         {"batch_norm", F::Composite, gen_batch_norm},
      {"hardswish", F::Composite, gen_activation}, {"hardsigmoid", F::Composite, gen_activation},
      {"softplus", F::Composite, gen_activation}, {"elu", F::Composite, gen_activation},
      {"conv1d", F::Conv, gen_conv},              {"conv2d", F::Conv, gen_conv},
      {"max_pool2d", F::Pool, gen_pool},          {"avg_pool2d", F::Pool, gen_pool},
      {"adaptive_avg_pool2d", F::Pool, gen_pool}, {"embedding", F::Indexing, gen_indexing},
      {"index_select", F::Indexing, gen_indexing}, {"gather", F::Indexing, gen_indexing},
  };
  return table;
}

namespace {

bool family_on(const RandomGraphOptions& o, Family::Kind f) {
  switch (f) {
    case Family::Elementwise: return o.elementwise;
    case Family::Reduction: return o.reductions;
    case Family::Scan: return o.scans;
    case Family::View: return o.views;
    case Family::CatPad: return o.cat_pad;
    case Family::Creation: return o.creation;
    case Family::Matmul: return o.matmul;
    case Family::Composite: return o.composites;
    case Family::Conv: return o.conv;
    case Family::Pool: return o.pooling;
    case Family::Indexing: return o.indexing;
  }
  return false;
}

bool listed(const std::vector<std::string>& names, const char* n) {
  for (const std::string& s : names)
    if (s == n) return true;
  return false;
}

}  // namespace

void Gen::record_ops(const Json& node) {
  ops_seen_.push_back(node["op"].get<std::string>());
  if (!node.contains("args")) return;
  for (const Json& a : node["args"])
    if (a.is_object()) record_ops(a);
}

void Gen::choose_outputs() {
  std::vector<std::string> sinks;
  for (const Json& n : nodes_) {
    std::string name = n["name"].get<std::string>();
    if (uses_[name] == 0) sinks.push_back(name);
  }
  std::size_t keep = std::min<std::size_t>(sinks.size(), 4);
  for (std::size_t i = sinks.size() - keep; i < sinks.size(); ++i) outputs_.push_back(sinks[i]);
  if (outputs_.empty() && !nodes_.empty()) outputs_.push_back(nodes_.back()["name"]);
  if (outputs_.empty()) outputs_.push_back(rng.pick(pool_).name);
  if (!inputs_.empty() && rng.chance(0.12)) outputs_.push_back(rng.pick(inputs_)["name"]);
  if (!constants_.empty() && rng.chance(0.1)) outputs_.push_back(rng.pick(constants_)["name"]);
  if (!nodes_.empty() && rng.chance(0.1)) outputs_.push_back(rng.pick(nodes_)["name"]);
  if (rng.chance(0.12)) {
    Json again = rng.pick(outputs_);
    outputs_.insert(outputs_.begin() + rng.range(0, static_cast<int64_t>(outputs_.size())), again);
  }
}

std::string Gen::serialize() const {
  auto list = [](const std::vector<Json>& items) {
    if (items.empty()) return std::string("[]");
    std::string s = "[\n";
    for (std::size_t i = 0; i < items.size(); ++i) s += "    " + items[i].dump() + (i + 1 < items.size() ? ",\n" : "\n");
    return s + "  ]";
  };
  std::vector<std::pair<std::string, std::string>> keys;
  keys.emplace_back("format", "\"stax-graph\"");
  keys.emplace_back("version", "1");
  keys.emplace_back("name", Json("rg_" + std::to_string(seed_)).dump());
  keys.emplace_back("inputs", list(inputs_));
  if (!constants_.empty() || seed_ % 2 == 0) keys.emplace_back("constants", list(constants_));
  if (!nodes_.empty() || seed_ % 3 == 0) keys.emplace_back("nodes", list(nodes_));
  keys.emplace_back("outputs", Json(outputs_).dump());
  // JSON objects are unordered: sometimes list the outputs first.
  if (seed_ % 11 == 5) std::rotate(keys.begin(), keys.end() - 1, keys.end());
  std::string s = "{\n";
  for (std::size_t i = 0; i < keys.size(); ++i)
    s += "  \"" + keys[i].first + "\": " + keys[i].second + (i + 1 < keys.size() ? ",\n" : "\n");
  return s + "}\n";
}

RandomGraph Gen::build() {
  if (opt.dtypes.empty()) throw std::invalid_argument("random_graph: options.dtypes is empty");
  std::vector<const OpEntry*> ops;
  for (const OpEntry& e : op_table()) {
    if (!family_on(opt, e.family)) continue;
    if (!opt.only_ops.empty() && !listed(opt.only_ops, e.name)) continue;
    ops.push_back(&e);
  }
  if (ops.empty()) throw std::invalid_argument("random_graph: no op is enabled by the options");

  int n_in = opt.max_inputs <= 0 || rng.chance(0.06) ? 0 : static_cast<int>(rng.range(1, opt.max_inputs));
  for (int i = 0; i < n_in; ++i) {
    Val v;
    add_input(rng.pick(opt.dtypes), random_shape(), v);
    pool_.push_back(v);
    record(v);
  }
  int n_const = rng.chance(0.5) ? 0 : static_cast<int>(rng.range(1, 2));
  if (pool_.empty()) n_const = std::max(n_const, 1);
  for (int i = 0; i < n_const; ++i) {
    Val v;
    add_constant(rng.pick(opt.dtypes), random_shape(), v);
    pool_.push_back(v);
    record(v);
  }

  int steps = static_cast<int>(rng.range(1, std::max(1, opt.max_nodes)));
  for (int step = 0; step < steps; ++step) {
    bool had_pending = pending_.has_value();
    main_inline_ = rng.chance(0.12);
    last_.reset();
    for (int attempt = 0; attempt < 40; ++attempt) {
      const OpEntry* e = rng.pick(ops);
      if (e->gen(*this, e->name)) break;
    }
    if (had_pending && pending_) {
      materialize(*pending_);
      pending_.reset();
    }
    if (last_ && last_->is_inline()) pending_ = last_;
  }
  if (pending_) {
    materialize(*pending_);
    pending_.reset();
  }
  choose_outputs();
  for (const Json& n : nodes_) record_ops(n);

  RandomGraph g;
  g.name = "rg_" + std::to_string(seed_);
  g.json = serialize();
  g.values = sigs_;
  g.may_divide_by_zero = may_divide_by_zero;
  g.ops = ops_seen_;
  return g;
}

}  // namespace detail

RandomGraph random_graph(uint64_t seed, const RandomGraphOptions& options) {
  detail::Gen gen(seed, options);
  return gen.build();
}

std::string random_graph_json(uint64_t seed, const RandomGraphOptions& options) {
  return random_graph(seed, options).json;
}

const std::vector<std::string>& random_graph_op_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v;
    for (const detail::OpEntry& e : detail::op_table()) v.emplace_back(e.name);
    return v;
  }();
  return names;
}

}  // namespace stax::randgraph
