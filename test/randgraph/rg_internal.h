// Internals of the random graph generator: the random source, what the generator knows about a
// value, the dtype/shape/range inference it does on its own, and the generator state shared by
// the op generators (rg_*.cpp).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "random_graph.h"
#include "stax/support/dtype.h"
#include "stax/support/tensor.h"

namespace stax::randgraph::detail {

using Json = nlohmann::ordered_json;

// xoshiro256** seeded through splitmix64: the same numbers on every machine.
class Rng {
 public:
  explicit Rng(uint64_t seed);
  uint64_t next();
  // Uniform in [lo, hi] (inclusive).
  int64_t range(int64_t lo, int64_t hi);
  bool chance(double p);
  template <typename T>
  const T& pick(const std::vector<T>& v) {
    return v[static_cast<std::size_t>(range(0, static_cast<int64_t>(v.size()) - 1))];
  }

 private:
  uint64_t s_[4];
};

// What the generator knows about a tensor value or a scalar literal.
struct Val {
  Json ref;               // argument JSON: the name, the inline node object, or the literal
  std::string name;       // empty for inline nodes and literals
  bool scalar = false;    // a Python-style literal; dtype is Bool, Int64 or Float64 by its kind
  DType dtype = DType::Float32;
  Shape shape;
  // Bounds of its finite elements (bool: 0..1).
  double lo = 0, hi = 0;
  bool finite = true;     // no inf or nan can occur
  // Bit-exactness across implementations (float values only; ints and bools are always 2):
  // 2: never rounded (inputs, constants, views, neg/abs/max/where... of such);
  // 1: one correctly rounded add/sub/mul/div of level-2 operands (an FMA cannot contract it);
  // 0: anything else. Ops whose result jumps need level >= 1 for float operands.
  int exact = 2;
  // No structural repetition (fresh inputs, distinct constants, neg/affine of those): a float32
  // layer_norm over it does not cancel catastrophically.
  bool varied = false;
  // Known never to be zero even though lo < 0 < hi (e.g. `bitwise_or(x, 1)`).
  bool nonzero = false;

  int rank() const { return static_cast<int>(shape.size()); }
  bool is_inline() const { return !scalar && name.empty(); }
  double mag() const;  // max(|lo|, |hi|)
  bool never_zero() const { return nonzero || lo > 0 || hi < 0; }
};

// Dtype kinds an op accepts.
enum DTypeMask : unsigned { kBool = 1, kInt = 2, kFloat = 4, kNum = kInt | kFloat, kAny = 7 };
bool accepts(unsigned mask, DType dt);
bool is_float(DType dt);

// Promotion exactly as torch.result_type: dimensioned tensors, 0-d tensors and literals are
// three priority classes (a literal's int is int64, its float the default float32).
DType promote(DType a, DType b);
DType result_type(const std::vector<const Val*>& operands);
std::optional<Shape> broadcast_shapes(const Shape& a, const Shape& b);
Shape broadcast_all(const std::vector<const Val*>& operands);  // ignores literals
// Integer values stay within +-2^24, floats within +-1e4.
constexpr double kIntCap = 16777216.0;
constexpr double kFloatCap = 1e4;
bool range_ok(DType dt, double lo, double hi);
// The largest JSON float literal that is exactly a float32 (for the `exact` level).
bool f32_exact(double v);

enum class Mode { Named, Inline, Maybe };

// A named node of the generated graph, for the ops list and signatures.
struct Family {
  enum Kind : unsigned char {
    Elementwise, Reduction, Scan, View, CatPad, Creation, Matmul, Composite, Conv, Pool, Indexing
  };
};

class Gen;
using OpGen = bool (*)(Gen&, const std::string& op);
struct OpEntry {
  const char* name;
  Family::Kind family;
  OpGen gen;
};
// Every op the generator produces, with its generator (rg_table.cpp).
const std::vector<OpEntry>& op_table();

class Gen {
 public:
  Gen(uint64_t seed, const RandomGraphOptions& options);
  RandomGraph build();

  Rng rng;
  const RandomGraphOptions& opt;
  bool may_divide_by_zero = false;

  bool allowed(DType dt) const;
  // inf/nan may be produced: needs the option and bool (to sanitize with isfinite).
  bool nonfinite_ok() const;
  // Allowed dtypes among the mask.
  std::vector<DType> dtypes_in(unsigned mask) const;
  bool fits(const Shape& s) const;
  Shape random_shape(int min_rank = 0, int max_rank = -1);
  // A shape that broadcasts with `s` into a shape that fits (sometimes smaller, sometimes larger).
  Shape broadcast_partner(const Shape& s);

  // A fresh input, constant or `full` node of this dtype and shape.
  Val leaf(DType dt, const Shape& s);
  // A value of the pool (or the pending inline node) satisfying pred, preferring recent ones.
  std::optional<Val> pick(const std::function<bool(const Val&)>& pred);
  // pick, else a fresh leaf with a dtype of the mask and rank >= min_rank (nullopt when no
  // dtype of the mask is allowed or the leaf fails pred).
  std::optional<Val> operand(const std::function<bool(const Val&)>& pred, unsigned mask, int min_rank = 0);

  Json use(const Val& v);
  // Adds a node: named (in the pool) or inline (its ref is the node object, used once).
  Val emit(std::string_view op, std::vector<Json> args, const Json& attrs, Val result, Mode mode);
  // The main node of a step: named, or inline and pending for the next step.
  Val finish(std::string_view op, std::vector<Json> args, const Json& attrs, Val result);
  // A named version of v (emits a pending or inline node).
  Val materialize(const Val& v);

  // Literals.
  Val lit_int(int64_t v) const;
  Val lit_float(double v) const;
  Val lit_bool(bool v) const;
  Val lit_nonfinite(std::string_view s) const;  // "inf", "-inf", "nan"
  // A random literal of the kinds in mask (kBool/kInt/kFloat); exact float literals only if
  // need_exact; nonfinite only if allowed.
  Val random_literal(unsigned mask, bool need_exact, bool allow_nonfinite);

  // Helper chains that bring a value into an op's domain (each step named or inline).
  Val unary(std::string_view op, const Val& x, const Json& attrs = Json::object());
  Val binary(std::string_view op, const Val& a, const Val& b, const Json& attrs = Json::object());
  Val bounded(const Val& x, double bound, bool keep_exact);    // |x| <= bound
  Val positive(const Val& x, double min, bool keep_exact);     // x >= min (> 0)
  Val away_from_zero(const Val& x, double min, bool keep_exact);  // |x| >= min
  Val nonzero_int(const Val& x);                                // int, never 0
  Val as_float(const Val& x);                                   // float dtype (to/mul 1.0)
  Val sanitize(const Val& x);                                   // finite: where(isfinite(x), x, c)

  std::string fresh_node_name();

 private:
  std::string unique(std::string base);
  void record(const Val& v);  // its signature and bounds, for RandomGraph::values
  void add_input(DType dt, const Shape& s, Val& v);
  void add_constant(DType dt, const Shape& s, Val& v);
  void choose_outputs();
  std::string serialize() const;
  void record_ops(const Json& node);

  std::vector<Json> inputs_, constants_, nodes_;
  std::vector<Json> outputs_;
  std::vector<Val> pool_;
  std::optional<Val> pending_;
  std::optional<Val> last_;
  bool main_inline_ = false;  // the current step's main node is inline (pending)
  std::set<std::string> names_;
  std::map<std::string, int> uses_;
  std::vector<ValueSignature> sigs_;
  std::vector<std::string> ops_seen_;
  int counter_ = 0;
  uint64_t seed_;
};

// Value inference (rg_infer.cpp). Unary ops with their dtype rule; binary arithmetic with
// promotion and interval bounds. Domain is the caller's business.
Val infer_unary(std::string_view op, const Val& x, double param = 0.0);
Val infer_binary(std::string_view op, const Val& a, const Val& b);
bool unary_accepts(std::string_view op, DType dt);

// Op generators; each returns false before any side effect when it cannot apply.
bool gen_unary(Gen& g, const std::string& op);
bool gen_clamp(Gen& g, const std::string& op);
bool gen_arith(Gen& g, const std::string& op);      // add sub mul maximum minimum
bool gen_div(Gen& g, const std::string& op);        // div remainder
bool gen_pow(Gen& g, const std::string& op);
bool gen_atan2(Gen& g, const std::string& op);
bool gen_bitwise(Gen& g, const std::string& op);
bool gen_compare(Gen& g, const std::string& op);
bool gen_logical(Gen& g, const std::string& op);
bool gen_where(Gen& g, const std::string& op);
bool gen_to(Gen& g, const std::string& op);
bool gen_full(Gen& g, const std::string& op);
bool gen_arange(Gen& g, const std::string& op);
bool gen_reduction(Gen& g, const std::string& op);
bool gen_argreduce(Gen& g, const std::string& op);
bool gen_scan(Gen& g, const std::string& op);
bool gen_view(Gen& g, const std::string& op);
bool gen_cat(Gen& g, const std::string& op);
bool gen_pad(Gen& g, const std::string& op);
bool gen_softmax(Gen& g, const std::string& op);
bool gen_norm(Gen& g, const std::string& op);       // layer_norm rms_norm
bool gen_linear(Gen& g, const std::string& op);
bool gen_matmul(Gen& g, const std::string& op);
bool gen_conv(Gen& g, const std::string& op);        // conv1d conv2d (rg_window.cpp)
bool gen_pool(Gen& g, const std::string& op);        // max_pool2d avg_pool2d adaptive_avg_pool2d
bool gen_activation(Gen& g, const std::string& op);  // hardswish hardsigmoid softplus elu (rg_nn.cpp)
bool gen_batch_norm(Gen& g, const std::string& op);
bool gen_indexing(Gen& g, const std::string& op);    // embedding index_select gather

// Shared small helpers.
Json shape_json(const Shape& s);
Val like(DType dt, const Shape& s, double lo, double hi);
// A dim index for rank r (r >= 1), sometimes negative.
int64_t random_dim(Gen& g, int r);
int64_t norm_dim(int64_t d, int r);
// Whether `op` is one of `names`.
bool among(const std::string& op, std::initializer_list<const char*> names);
// Float operands must be bit-exact (ops whose result jumps).
bool float_ok(const Val& v);
// A weight-like operand of shape `s`: sometimes an existing finite value of that shape, else a
// new leaf; bounded by `bound` in magnitude (the convolutions' and the nn ops' parameters).
Val param(Gen& g, DType dt, const Shape& s, double bound);

}  // namespace stax::randgraph::detail
