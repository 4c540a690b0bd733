// Convolution, pooling, normalization and indexing ops: dtype and shape inference (PyTorch's
// output sizes, ceil_mode's dropped last window, "same" padding), the normalized attributes, and
// every rejection with its JSON path and message.
#include <gtest/gtest.h>

#include "graph_test_util.h"

namespace stax::graph {
namespace {

using testing::node_of;
using testing::one_node;
using testing::type_of;

struct Case {
  const char* inputs;
  const char* body;
  const char* want;  // "dtype[shape]" or "error: <message>"
};

void check_table(const std::vector<Case>& cases) {
  for (const Case& c : cases) EXPECT_EQ(type_of(c.inputs, c.body), c.want) << c.inputs << "  " << c.body;
}

TEST(InferNn, ConvShapes) {
  check_table({
      // floor((L + 2p - d(k - 1) - 1) / s) + 1
      {"x:float32[2,3,10] w:float32[4,3,3]", R"({"op": "conv1d", "args": ["x", "w"]})", "float32[2, 4, 8]"},
      {"x:float32[2,3,10] w:float32[4,3,3] b:float32[4]",
       R"({"op": "conv1d", "args": ["x", "w", "b"], "stride": 3, "padding": 2, "dilation": 2})", "float32[2, 4, 4]"},
      {"x:float64[1,4,7,9] w:float64[6,2,3,2]",
       R"({"op": "conv2d", "args": ["x", "w", null], "stride": [2, 1], "padding": [1, 0], "dilation": [1, 3], "groups": 2})",
       "float64[1, 6, 4, 6]"},
      {"x:float32[1,4,7,9] w:float32[4,1,3,3]", R"({"op": "conv2d", "args": ["x", "w"], "groups": 4})",
       "float32[1, 4, 5, 7]"},  // depthwise
      {"x:float32[1,2,7,9] w:float32[3,2,4,2]", R"({"op": "conv2d", "args": ["x", "w"], "padding": "same"})",
       "float32[1, 3, 7, 9]"},
      {"x:float32[1,2,7,9] w:float32[3,2,4,2]",
       R"({"op": "conv2d", "args": ["x", "w"], "padding": "same", "dilation": [3, 2]})", "float32[1, 3, 7, 9]"},
      {"x:float32[1,2,7,9] w:float32[3,2,4,2]", R"({"op": "conv2d", "args": ["x", "w"], "padding": "valid"})",
       "float32[1, 3, 4, 8]"},
      {"x:float32[1,2,3] w:float32[1,2,3]", R"({"op": "conv1d", "args": ["x", "w"]})", "float32[1, 1, 1]"},
  });
}

TEST(InferNn, ConvRejections) {
  check_table({
      {"x:float32[3,10] w:float32[4,3,3]", R"({"op": "conv1d", "args": ["x", "w"]})",
       "error: op 'conv1d' needs a 3-d input [N, C, L], got float32[3, 10] (inputs are batched)"},
      {"x:int64[2,3,10] w:int64[4,3,3]", R"({"op": "conv1d", "args": ["x", "w"]})",
       "error: op 'conv1d' needs floating-point data, got int64 (integer data is not supported yet)"},
      {"x:float32[2,3,10] w:float32[4,3]", R"({"op": "conv1d", "args": ["x", "w"]})",
       "error: the weight of conv1d is 3-d [O, C/groups, k...], got [4, 3]"},
      {"x:float32[2,3,10] w:float64[4,3,3]", R"({"op": "conv1d", "args": ["x", "w"]})",
       "error: the weight must have the input's dtype float32, got float64"},
      {"x:float32[2,4,10] w:float32[3,2,3]", R"({"op": "conv1d", "args": ["x", "w"], "groups": 2})",
       "error: the weight's 3 output channels do not divide by groups 2"},
      {"x:float32[2,3,10] w:float32[4,2,3]", R"({"op": "conv1d", "args": ["x", "w"], "groups": 2})",
       "error: the input has 3 channels; weight [4, 2, 3] with groups 2 expects 4"},
      {"x:float32[2,3,10] w:float32[4,3,3]", R"({"op": "conv1d", "args": ["x", "w"], "groups": 0})",
       "error: groups must be >= 1, got 0"},
      {"x:float32[2,3,10] w:float32[4,3,3] b:float32[3]", R"({"op": "conv1d", "args": ["x", "w", "b"]})",
       "error: the bias has shape [3], expected [4]"},
      {"x:float32[2,3,10] w:float32[4,3,3]", R"({"op": "conv1d", "args": ["x", "w"], "stride": 0})",
       "error: stride must be >= 1, got [0]"},
      {"x:float32[2,3,10] w:float32[4,3,3]", R"({"op": "conv1d", "args": ["x", "w"], "padding": -1})",
       "error: padding must be non-negative, got [-1]"},
      {"x:float32[2,3,10] w:float32[4,3,3]", R"({"op": "conv1d", "args": ["x", "w"], "dilation": [0]})",
       "error: dilation must be >= 1, got [0]"},
      {"x:float32[1,1,8,8] w:float32[1,1,3,3]", R"({"op": "conv2d", "args": ["x", "w"], "stride": [2]})",
       "error: expected an integer or a list of 2 integers (one per spatial dim), got a list of 1"},
      {"x:float32[1,1,8,8] w:float32[1,1,3,3]", R"({"op": "conv2d", "args": ["x", "w"], "padding": "full"})",
       "error: expected an integer, a list, \"valid\" or \"same\", got \"full\""},
      {"x:float32[1,1,8,8] w:float32[1,1,3,3]", R"({"op": "conv2d", "args": ["x", "w"], "stride": 2, "padding": "same"})",
       "error: padding \"same\" needs stride 1, got stride [2, 2]"},
      {"x:float32[1,1,2,8] w:float32[1,1,3,3]", R"({"op": "conv2d", "args": ["x", "w"]})",
       "error: the padded input size 2 of dim H is smaller than the dilated kernel size 3"},
      {"x:float32[1,1,4,8] w:float32[1,1,3,3]", R"({"op": "conv2d", "args": ["x", "w"], "dilation": [2, 1]})",
       "error: the padded input size 4 of dim H is smaller than the dilated kernel size 5"},
      {"x:float32[1,1,8,8] w:float32[1,1,3,3]", R"({"op": "conv2d", "args": ["x"]})",
       "error: op 'conv2d' takes 2 to 3 arguments, got 1"},
      {"x:float32[1,1,8,8] w:float32[1,1,3,3]", R"({"op": "conv2d", "args": ["x", "w"], "bias": null})",
       "error: unknown key 'bias' for op 'conv2d'"},
  });
}

TEST(InferNn, PoolShapes) {
  check_table({
      {"x:float32[2,3,6,6]", R"({"op": "max_pool2d", "args": ["x"], "kernel_size": 2})", "float32[2, 3, 3, 3]"},
      {"x:float32[3,6,6]", R"({"op": "max_pool2d", "args": ["x"], "kernel_size": 3, "stride": 2})", "float32[3, 2, 2]"},
      // ceil_mode adds the partial last window ...
      {"x:float32[3,6,6]", R"({"op": "max_pool2d", "args": ["x"], "kernel_size": 3, "stride": 2, "ceil_mode": true})",
       "float32[3, 3, 3]"},
      // ... unless it would start in the right padding: L=5, k=2, s=2, p=1 gives 3, not 4.
      {"x:float32[1,1,5,5]", R"({"op": "avg_pool2d", "args": ["x"], "kernel_size": 2, "padding": 1, "ceil_mode": true})",
       "float32[1, 1, 3, 3]"},
      {"x:float32[1,1,5,7]",
       R"({"op": "max_pool2d", "args": ["x"], "kernel_size": [2, 3], "stride": 1, "padding": [1, 2], "dilation": [3, 2]})",
       "float32[1, 1, 4, 7]"},
      // padding up to half the effective kernel d(k - 1) + 1 (here 5): 2, beyond k / 2
      {"x:float32[1,1,4,4]", R"({"op": "max_pool2d", "args": ["x"], "kernel_size": 3, "stride": 1, "padding": 2, "dilation": 2})",
       "float32[1, 1, 4, 4]"},
      {"x:float64[2,1,5,5]",
       R"({"op": "avg_pool2d", "args": ["x"], "kernel_size": [3, 2], "stride": [1, 2], "count_include_pad": false, "divisor_override": 3})",
       "float64[2, 1, 3, 2]"},
      {"x:float32[2,3,5,7]", R"({"op": "adaptive_avg_pool2d", "args": ["x"], "output_size": 3})", "float32[2, 3, 3, 3]"},
      {"x:float32[3,5,7]", R"({"op": "adaptive_avg_pool2d", "args": ["x"], "output_size": [null, 9]})", "float32[3, 5, 9]"},
  });
}

TEST(InferNn, PoolRejections) {
  check_table({
      {"x:float32[6,6]", R"({"op": "max_pool2d", "args": ["x"], "kernel_size": 2})",
       "error: op 'max_pool2d' needs a 3-d [C, H, W] or 4-d [N, C, H, W] input, got float32[6, 6]"},
      {"x:int32[1,6,6]", R"({"op": "avg_pool2d", "args": ["x"], "kernel_size": 2})",
       "error: op 'avg_pool2d' needs floating-point data, got int32 (integer data is not supported yet)"},
      {"x:float32[1,6,6]", R"({"op": "max_pool2d", "args": ["x"]})", "error: missing key 'kernel_size'"},
      {"x:float32[1,6,6]", R"({"op": "max_pool2d", "args": ["x"], "kernel_size": [2, 0]})",
       "error: kernel_size must be >= 1, got [2, 0]"},
      {"x:float32[1,6,6]", R"({"op": "max_pool2d", "args": ["x"], "kernel_size": 2, "stride": 0})",
       "error: stride must be >= 1, got [0, 0]"},
      {"x:float32[1,6,6]", R"({"op": "max_pool2d", "args": ["x"], "kernel_size": 3, "padding": 2})",
       "error: padding [2, 2] must be at most half the effective kernel size d(k - 1) + 1 = 3 in dim H"},
      {"x:float32[1,6,6]", R"({"op": "avg_pool2d", "args": ["x"], "kernel_size": [3, 2], "padding": [1, 2]})",
       "error: padding [1, 2] must be at most half the kernel size 2 in dim W"},
      {"x:float32[1,6,6]", R"({"op": "avg_pool2d", "args": ["x"], "kernel_size": 2, "dilation": 2})",
       "error: unknown key 'dilation' for op 'avg_pool2d'"},
      {"x:float32[1,6,6]", R"({"op": "avg_pool2d", "args": ["x"], "kernel_size": 2, "divisor_override": 0})",
       "error: divisor_override must be >= 1, got 0"},
      {"x:float32[1,6,6]", R"({"op": "avg_pool2d", "args": ["x"], "kernel_size": 2, "ceil_mode": 1})",
       "error: expected true or false, got 1"},
      {"x:float32[1,2,6]", R"({"op": "max_pool2d", "args": ["x"], "kernel_size": 3})",
       "error: the output is too small: input [1, 2, 6] gives [0, 2] windows (kernel_size [3, 3], padding [0, 0])"},
      {"x:float32[1,2,6]", R"({"op": "adaptive_avg_pool2d", "args": ["x"], "output_size": [2, 0]})",
       "error: output_size entries must be >= 1, got [2, 0]"},
      {"x:float32[1,2,6]", R"({"op": "adaptive_avg_pool2d", "args": ["x"], "output_size": [2, 2, 2]})",
       "error: expected an integer or a list of 2 entries [h, w], got a list of 3"},
  });
}

TEST(InferNn, BatchNormAndActivations) {
  check_table({
      {"x:float32[2,3,4,5] m:float32[3] v:float32[3]", R"({"op": "batch_norm", "args": ["x", "m", "v"]})",
       "float32[2, 3, 4, 5]"},
      {"x:float64[2,3] m:float64[3] v:float64[3]",
       R"({"op": "batch_norm", "args": ["x", "m", "v", null, "m"], "eps": 0.1, "training": false})", "float64[2, 3]"},
      {"x:float32[3] m:float32[3] v:float32[3]", R"({"op": "batch_norm", "args": ["x", "m", "v"]})",
       "error: batch_norm needs an input [N, C, ...] of at least 2 dims, got [3]"},
      {"x:float32[2,3] m:float32[4] v:float32[3]", R"({"op": "batch_norm", "args": ["x", "m", "v"]})",
       "error: running_mean has shape [4], expected [3] (one per channel)"},
      {"x:float32[2,3] m:float32[3] v:float32[1,3]", R"({"op": "batch_norm", "args": ["x", "m", "v"]})",
       "error: running_var has shape [1, 3], expected [3] (one per channel)"},
      {"x:float32[2,3] m:float32[3] v:float64[3]", R"({"op": "batch_norm", "args": ["x", "m", "v"]})",
       "error: running_var must have the input's dtype float32, got float64"},
      {"x:float32[2,3] m:float32[3]", R"({"op": "batch_norm", "args": ["x", "m", null]})",
       "error: null is allowed only for an optional argument (layer_norm weight and bias, rms_norm weight, linear, conv1d and conv2d bias, batch_norm weight and bias)"},
      {"x:float32[2,3] m:float32[3]", R"({"op": "batch_norm", "args": ["x", "m", "m"], "training": true})",
       "error: only the inference form of batch_norm (training: false) is supported"},
      {"x:float32[2,3] m:float32[3]", R"({"op": "batch_norm", "args": ["x", "m", "m"], "eps": "inf"})",
       "error: expected a finite number, got \"inf\" (non-finite numbers stand only in scalar arguments, float constants, full.value, pad.value and clamp.min/max)"},
      {"x:float64[2,3]", R"({"op": "hardswish", "args": ["x"]})", "float64[2, 3]"},
      {"x:float32[]", R"({"op": "hardsigmoid", "args": ["x"]})", "float32[]"},
      {"x:float32[4]", R"({"op": "softplus", "args": ["x"], "beta": 2, "threshold": 5.5})", "float32[4]"},
      {"x:float32[4]", R"({"op": "elu", "args": ["x"], "alpha": 0.3})", "float32[4]"},
      {"x:int64[4]", R"({"op": "elu", "args": ["x"]})", "error: op 'elu' needs a floating-point tensor, got int64"},
      {"x:bool[4]", R"({"op": "hardswish", "args": ["x"]})", "error: op 'hardswish' needs a floating-point tensor, got bool"},
      {"x:float32[4]", R"({"op": "elu", "args": ["x"], "beta": 1})",
       "error: unknown key 'beta' for op 'elu'"},
  });
  Value sp = node_of("x:float32[4]", R"({"op": "softplus", "args": ["x"], "beta": 2, "threshold": 5.5})");
  EXPECT_EQ(sp.attrs.beta, 2.0);
  EXPECT_EQ(sp.attrs.threshold, 5.5);
  EXPECT_EQ(node_of("x:float32[4]", R"({"op": "elu", "args": ["x"]})").attrs.alpha, 1.0);
  EXPECT_EQ(node_of("x:float32[2,3] m:float32[3]", R"({"op": "batch_norm", "args": ["x", "m", "m"]})").attrs.eps, 1e-5);
}

TEST(InferNn, Indexing) {
  check_table({
      {"w:float32[10,4] i:int64[2,3]", R"({"op": "embedding", "args": ["w", "i"]})", "float32[2, 3, 4]"},
      {"w:float64[10,4] i:int32[]", R"({"op": "embedding", "args": ["w", "i"]})", "float64[4]"},
      {"w:float32[10] i:int64[2]", R"({"op": "embedding", "args": ["w", "i"]})",
       "error: the weight of embedding is 2-d [V, D], got [10]"},
      {"w:int64[10,4] i:int64[2]", R"({"op": "embedding", "args": ["w", "i"]})",
       "error: op 'embedding' needs floating-point data, got int64 (integer data is not supported yet)"},
      {"w:float32[10,4] i:float32[2]", R"({"op": "embedding", "args": ["w", "i"]})",
       "error: the indices of 'embedding' must be int32 or int64, got float32"},
      {"x:float32[4,5,6] i:int32[7]", R"({"op": "index_select", "args": ["x", "i"], "dim": -2})", "float32[4, 7, 6]"},
      {"x:float32[] i:int64[1]", R"({"op": "index_select", "args": ["x", "i"], "dim": 0})", "float32[]"},
      {"x:float32[] i:int64[3]", R"({"op": "index_select", "args": ["x", "i"], "dim": 0})",
       "error: the index of a 0-d input has 1 element, got [3]"},
      {"x:float32[4,5] i:int64[]", R"({"op": "index_select", "args": ["x", "i"], "dim": 0})",
       "error: the index of index_select is 1-d, got []"},
      {"x:float32[4,5] i:int64[2]", R"({"op": "index_select", "args": ["x", "i"], "dim": 2})",
       "error: dim 2 is out of range for a 2-d tensor (expected -2..1)"},
      {"x:float32[4,5] i:bool[2]", R"({"op": "index_select", "args": ["x", "i"], "dim": 0})",
       "error: the indices of 'index_select' must be int32 or int64, got bool"},
      {"x:float32[4,5] i:int64[2]", R"({"op": "index_select", "args": ["x", "i"]})", "error: missing key 'dim'"},
      {"x:float32[4,5] i:int64[7,3]", R"({"op": "gather", "args": ["x", "i"], "dim": 0})", "float32[7, 3]"},
      {"x:float64[] i:int64[]", R"({"op": "gather", "args": ["x", "i"], "dim": -1})", "float64[]"},
      {"x:float32[4,5] i:int64[7,6]", R"({"op": "gather", "args": ["x", "i"], "dim": 0})",
       "error: index [7, 6] is larger than the input [4, 5] in dim 1 (only dim 0 may be)"},
      {"x:float32[4,5] i:int64[4]", R"({"op": "gather", "args": ["x", "i"], "dim": 0})",
       "error: the index of gather must have the input's rank 2, got [4]"},
      {"x:float32[4,5] i:int32[4,5]", R"({"op": "gather", "args": ["x", "i"], "dim": 0})",
       "error: the indices of 'gather' must be int64, got int32"},
      {"x:float32[4,5] i:int64[4,5]", R"({"op": "gather", "args": ["x", 3], "dim": 0})",
       "error: op 'gather' needs a tensor here (a value name or an inline node), got the scalar 3"},
  });
}

TEST(InferNn, ErrorsNameThePathAndTheNode) {
  GraphError e = testing::error_of(one_node("x:float32[1,6,6]", R"({"op": "max_pool2d", "args": ["x"], "kernel_size": [2, "a"]})"));
  EXPECT_EQ(e.path(), "nodes[0].kernel_size[1]");
  EXPECT_EQ(e.node(), "y");
  EXPECT_NE(std::string(e.what()).find("op 'max_pool2d'"), std::string::npos) << e.what();
  EXPECT_GRAPH_ERROR(one_node("x:float32[1,1,8,8] w:float32[1,1,3,3]", R"({"op": "conv2d", "args": ["x", "w"], "stride": 2, "padding": "same"})"),
                     "nodes[0].padding", "needs stride 1");
  EXPECT_GRAPH_ERROR(one_node("x:float32[2,3,10] w:float32[4,3,3] b:float32[3]", R"({"op": "conv1d", "args": ["x", "w", "b"]})"),
                     "nodes[0].args[2]", "the bias has shape [3]");
  EXPECT_GRAPH_ERROR(one_node("x:float32[4,5] i:int64[7,6]", R"({"op": "gather", "args": ["x", "i"], "dim": 0})"),
                     "nodes[0].args[1]", "is larger than the input");
  EXPECT_GRAPH_ERROR(one_node("x:float32[1,6,6]", R"({"op": "avg_pool2d", "args": ["x"], "kernel_size": 2, "divisor_override": -1})"),
                     "nodes[0].divisor_override", "divisor_override must be >= 1");
}

TEST(InferNn, NormalizedWindowAttributes) {
  // "same": total d(k - 1) split with the odd element at the end.
  Value s = node_of("x:float32[1,2,7,9] w:float32[3,2,4,3]", R"({"op": "conv2d", "args": ["x", "w"], "padding": "same", "dilation": [1, 2]})");
  EXPECT_EQ(s.attrs.kernel, (std::vector<int64_t>{4, 3}));
  EXPECT_EQ(s.attrs.pad_begin, (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(s.attrs.pad_end, (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(s.attrs.stride, (std::vector<int64_t>{1, 1}));
  EXPECT_EQ(s.attrs.groups, 1);
  Value p = node_of("x:float32[1,6,6]", R"({"op": "max_pool2d", "args": ["x"], "kernel_size": [3, 2], "padding": [1, 0]})");
  EXPECT_EQ(p.attrs.stride, (std::vector<int64_t>{3, 2}));  // defaults to kernel_size
  EXPECT_EQ(p.attrs.pad_begin, p.attrs.pad_end);
  EXPECT_EQ(p.attrs.dilation, (std::vector<int64_t>{1, 1}));
  Value a = node_of("x:float32[1,6,6]", R"({"op": "avg_pool2d", "args": ["x"], "kernel_size": 2, "stride": null})");
  EXPECT_EQ(a.attrs.stride, (std::vector<int64_t>{2, 2}));
  EXPECT_TRUE(a.attrs.count_include_pad);
  EXPECT_EQ(a.attrs.divisor_override, 0);
  EXPECT_EQ(node_of("x:float32[2,6,6]", R"({"op": "adaptive_avg_pool2d", "args": ["x"], "output_size": [null, 2]})").attrs.output_size,
            (Shape{6, 2}));
  EXPECT_EQ(node_of("x:float32[4,5] i:int64[2]", R"({"op": "index_select", "args": ["x", "i"], "dim": -1})").attrs.dim, 1);
}

TEST(InferNn, SignatureText) {
  Graph g = parse_graph(testing::doc("x:float32[1,2,7,9] w:float32[3,2,4,3] i:int64[2]", R"([
      {"name": "c", "op": "conv2d", "args": ["x", "w", null], "padding": "same"},
      {"name": "m", "op": "max_pool2d", "args": ["x"], "kernel_size": 2, "ceil_mode": true},
      {"name": "a", "op": "avg_pool2d", "args": ["x"], "kernel_size": 3, "count_include_pad": false, "divisor_override": 2},
      {"name": "q", "op": "adaptive_avg_pool2d", "args": ["x"], "output_size": 1},
      {"name": "y", "op": "index_select", "args": ["x", "i"], "dim": 1},
      {"name": "s", "op": "softplus", "args": ["x"], "threshold": 3}])", R"(["c", "m", "a", "q", "y", "s"])"));
  std::string text = format_signature(g);
  EXPECT_NE(text.find("c: float32[1, 3, 7, 9] = conv2d(x, w, null, stride=[1, 1], padding=[1, 1], padding_end=[2, 1], "
                      "dilation=[1, 1], groups=1)"), std::string::npos) << text;
  EXPECT_NE(text.find("m: float32[1, 2, 4, 5] = max_pool2d(x, kernel_size=[2, 2], stride=[2, 2], padding=[0, 0], "
                      "dilation=[1, 1], ceil_mode=true)"), std::string::npos) << text;
  EXPECT_NE(text.find("a: float32[1, 2, 2, 3] = avg_pool2d(x, kernel_size=[3, 3], stride=[3, 3], padding=[0, 0], "
                      "ceil_mode=false, count_include_pad=false, divisor_override=2)"), std::string::npos) << text;
  EXPECT_NE(text.find("q: float32[1, 2, 1, 1] = adaptive_avg_pool2d(x, output_size=[1, 1])"), std::string::npos) << text;
  EXPECT_NE(text.find("y: float32[1, 2, 7, 9] = index_select(x, i, dim=1)"), std::string::npos) << text;
  EXPECT_NE(text.find("s: float32[1, 2, 7, 9] = softplus(x, beta=1.0, threshold=3.0)"), std::string::npos) << text;
}

}  // namespace
}  // namespace stax::graph
