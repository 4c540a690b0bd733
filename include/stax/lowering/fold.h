// Graph rewrites before lowering that change no result beyond rounding.
//
// fold_batch_norms: a batch_norm (the inference form) whose running mean, running variance,
// weight and bias are constants (or absent), reading a convolution or a linear layer (linear,
// or matmul of a 2-D input by a 2-D constant) that nothing else reads and that is no graph
// output, with a constant weight and a constant or no bias, is folded into that layer's
// weight and bias at compile time: with s = weight / sqrt(var + eps) per channel,
//   w'[o, ...] = w[o, ...] * s[o],   b'[o] = (b[o] - mean[o]) * s[o] + beta[o]
// (b = 0 without a bias; weight 1 and beta 0 when absent), computed in double and rounded once
// to the layer's dtype. A linear layer folds only when its output is [N, C] (batch_norm
// normalizes dim 1). The folded layer takes the batch_norm's name (so a graph output keeps
// its name); its new constants are named "<layer>#folded_weight" and "<layer>#folded_bias".
// The graph is otherwise unchanged; call it on the graph as validated, before
// expand_composites (batch_norm is a composite).
#pragma once

#include <string>
#include <vector>

#include "stax/graph/graph.h"

namespace stax::lowering {

// `folded`, when given, receives one line per fold: "folded batch_norm BN into conv2d C".
graph::Graph fold_batch_norms(const graph::Graph& g, std::vector<std::string>* folded = nullptr);

// fold_pads_into_pools: a max_pool2d or avg_pool2d without padding or ceil_mode of its own that
// reads a `pad` of its input's last two dims only, the same amount on both sides of each and at
// most half the window's extent (PyTorch's limit), of -inf for the maximum or 0 for the average,
// with output rows of at least 16 positions (narrower ones measured faster over the copy),
// reads the pad's input instead with that padding (an average counting the padding,
// count_include_pad: each window lay whole inside the zeros before). The same windows over the
// same values, without the padded copy: PyTorch exports avg_pool2d(x, 3, 1, 1), Inception-v3's
// branch pool, as a Pad and an AveragePool. The pad stays in the graph for any other reader
// (lowering drops it when none is left). `folded`: "folded pad P into avg_pool2d A".
graph::Graph fold_pads_into_pools(const graph::Graph& g, std::vector<std::string>* folded = nullptr);

}  // namespace stax::lowering
