// A seeded generator of random, valid stax graphs (graph-format.md v1) for differential testing:
// the same graph goes through the reference interpreter and through generated code, and their
// outputs are compared.
//
//   stax::randgraph::RandomGraphOptions opt;          // defaults: every op family, every dtype
//   std::string json = stax::randgraph::random_graph_json(42, opt);   // graph "rg_42"
//
// Guarantees:
// - Deterministic: the same seed and options give the same text (own random source, no
//   std:: distributions, no unordered containers; only the bound arithmetic uses libm, so a
//   platform whose exp/log differ in the last ulp could in principle make another choice).
// - Valid: every graph is one PyTorch 2.x eager would run (graph-format.md's Precise rules where
//   they differ). The generator tracks dtypes, shapes and value ranges itself; it shares no code
//   with the front end.
// - Tame values, for inputs drawn as `staxc` draws them (floats standard normal, assumed within
//   [-6, 6]; ints uniform in [-8, 8]; bools a coin): magnitudes stay below ~1e4, `exp` sees
//   bounded arguments, `log`/`sqrt`/`rsqrt`/divisors are made positive or kept away from zero
//   (e.g. `abs(x) + 0.5`), integer divisors are made nonzero (`abs(x) + 1`) unless
//   `zero_divisors` is set, integer values stay within +-2^24. Ops whose result jumps
//   (floor, round, sign, comparisons, casts to int or bool, argmax, float remainder...) only see
//   float operands that every correct implementation computes bit-identically (inputs,
//   constants, views of them, one add/sub/mul of those), so a float32 computation and a double
//   reference agree on which side of the jump a value falls. NaN/inf appear only where their
//   propagation is the same in every order of evaluation.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "stax/support/dtype.h"
#include "stax/support/tensor.h"

namespace stax::randgraph {

struct RandomGraphOptions {
  // Main nodes per graph (1..max_nodes, chosen by the seed). Helper nodes that keep values tame
  // (`abs(x) + 0.5` before a `log`, ...) come on top.
  int max_nodes = 12;
  int max_inputs = 3;
  int max_rank = 4;        // rank of every value <= max_rank (a few views add one more)
  int max_dim = 6;         // every dimension of inputs and constants <= max_dim
  int64_t max_numel = 256; // every value has at most this many elements
  // dtypes that may appear anywhere in the graph (ops whose result would have another dtype
  // are not generated).
  std::vector<DType> dtypes = {DType::Float32, DType::Float64, DType::Int32, DType::Int64,
                               DType::Bool};
  // Op families.
  bool elementwise = true;  // unary, binary, comparisons, logical, where, to
  bool reductions = true;   // sum mean prod amax amin any all var std logsumexp argmax argmin
  bool scans = true;        // cumsum cumprod
  bool views = true;        // reshape permute transpose expand unsqueeze squeeze flatten slice select
  bool cat_pad = true;      // cat pad
  bool creation = true;     // full arange
  bool matmul = true;       // matmul
  bool composites = true;   // softmax log_softmax layer_norm rms_norm linear batch_norm hardswish
                            // hardsigmoid softplus elu
  bool conv = true;         // conv1d conv2d (code generation does not lower them yet)
  bool pooling = true;      // max_pool2d avg_pool2d adaptive_avg_pool2d
  bool indexing = true;     // embedding index_select gather (indices always in range)
  // If non-empty, main nodes use only these ops (by JSON name); helper nodes may still use
  // abs, add, tanh, clamp, to, ....
  std::vector<std::string> only_ops;
  // Integer `div` with a rounding mode and integer `remainder` may appear (divisors made nonzero).
  bool int_division = true;
  // Integer divisors may be zero (raw inputs, literal 0): running the graph may then fail with a
  // division-by-zero error, which is the expected behaviour, not a bug.
  bool zero_divisors = false;
  // "inf"/"-inf"/"nan" literals and constants, and NaN-producing ops on exact operands (log of a
  // raw input, int/int true division by zero...).
  bool nonfinite = true;
};

// Expected dtype and shape of a named value, as the generator inferred it, and bounds of its
// elements: with `finite`, every element lies in [lo, hi] (up to float rounding) for inputs
// drawn as `staxc` draws them. A comparison may scale its absolute tolerance by
// max(1, |lo|, |hi|): float32 error grows with the magnitudes a computation goes through.
struct ValueSignature {
  std::string name;
  DType dtype = DType::Float32;
  Shape shape;
  double lo = 0, hi = 0;
  bool finite = true;  // false: inf or nan may occur (only with options.nonfinite)
};

struct RandomGraph {
  std::string name;   // "rg_<seed>"
  std::string json;   // the graph document
  // Every input, constant and named node, in definition order.
  std::vector<ValueSignature> values;
  // Some integer divisor may be zero at run time (only with options.zero_divisors).
  bool may_divide_by_zero = false;
  // Ops of every node, inline ones included, in order of appearance (may repeat).
  std::vector<std::string> ops;
};

// `options` without the convolutions: what the tests that compile graphs generate (their seeds
// keep the graphs they had before convolutions lowered; randgraph_check --conv adds them).
inline RandomGraphOptions lowerable(RandomGraphOptions options) {
  options.conv = false;
  return options;
}

RandomGraph random_graph(uint64_t seed, const RandomGraphOptions& options = {});

// Just the JSON text of random_graph(seed, options).
std::string random_graph_json(uint64_t seed, const RandomGraphOptions& options = {});

// Every op name the generator can produce (all ops of graph-format.md v1).
const std::vector<std::string>& random_graph_op_names();

}  // namespace stax::randgraph
