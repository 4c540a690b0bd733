// Shapes and normalized attributes of every view op, cat and pad.
#include <gtest/gtest.h>

#include "graph_test_util.h"

namespace stax::graph {
namespace {

using testing::node_of;
using testing::type_of;

struct Case {
  const char* inputs;
  const char* body;
  const char* want;
};

TEST(Views, Shapes) {
  const Case cases[] = {
      {"x:float32[2,3,4]", R"({"op": "reshape", "args": ["x"], "shape": [6, -1]})", "float32[6, 4]"},
      {"x:float32[2,3,4]", R"({"op": "reshape", "args": ["x"], "shape": [24]})", "float32[24]"},
      {"x:float32[1,1]", R"({"op": "reshape", "args": ["x"], "shape": []})", "float32[]"},
      {"x:float32[]", R"({"op": "reshape", "args": ["x"], "shape": [1, -1, 1]})", "float32[1, 1, 1]"},
      {"x:float32[2,3]", R"({"op": "reshape", "args": ["x"], "shape": [-2, 3]})",
       "error: shape entries must be >= 1 or -1, got -2"},
      {"x:float32[2,3,4]", R"({"op": "permute", "args": ["x"], "dims": [2, 0, 1]})", "float32[4, 2, 3]"},
      {"x:float32[2,3,4]", R"({"op": "permute", "args": ["x"], "dims": [-1, 0, 1]})", "float32[4, 2, 3]"},
      {"x:float32[2,3,4]", R"({"op": "permute", "args": ["x"], "dims": [0, 1]})",
       "error: permute of a 3-d tensor needs 3 dims, got 2"},
      {"x:float32[2,3,4]", R"({"op": "permute", "args": ["x"], "dims": [0, 1, -3]})",
       "error: dim 0 appears more than once"},
      {"x:float32[2,3,4]", R"({"op": "transpose", "args": ["x"], "dim0": 0, "dim1": -1})", "float32[4, 3, 2]"},
      {"x:float32[]", R"({"op": "transpose", "args": ["x"], "dim0": 0, "dim1": -1})", "float32[]"},
      {"x:float32[3,1]", R"({"op": "expand", "args": ["x"], "shape": [2, -1, 5]})", "float32[2, 3, 5]"},
      {"x:float32[]", R"({"op": "expand", "args": ["x"], "shape": [2, 2]})", "float32[2, 2]"},
      {"x:float32[3,1]", R"({"op": "expand", "args": ["x"], "shape": [-1, 3, 5]})",
       "error: -1 is not allowed for a new leading dim"},
      {"x:float32[3,2]", R"({"op": "expand", "args": ["x"], "shape": [3, 5]})",
       "error: cannot expand [3, 2] to [3, 5]: dim 1 has size 2 (only size 1 expands)"},
      {"x:float32[3,2]", R"({"op": "expand", "args": ["x"], "shape": [2]})",
       "error: expand needs at least 2 sizes for [3, 2], got [2]"},
      {"x:float32[2,3]", R"({"op": "unsqueeze", "args": ["x"], "dim": -1})", "float32[2, 3, 1]"},
      {"x:float32[2,3]", R"({"op": "unsqueeze", "args": ["x"], "dim": 0})", "float32[1, 2, 3]"},
      {"x:float32[]", R"({"op": "unsqueeze", "args": ["x"], "dim": -1})", "float32[1]"},
      {"x:float32[1,3,1]", R"({"op": "squeeze", "args": ["x"]})", "float32[3]"},
      {"x:float32[1,3,1]", R"({"op": "squeeze", "args": ["x"], "dim": 1})", "float32[1, 3, 1]"},
      {"x:float32[1,3,1]", R"({"op": "squeeze", "args": ["x"], "dim": -1})", "float32[1, 3]"},
      {"x:float32[1,3,1]", R"({"op": "squeeze", "args": ["x"], "dim": [0, 1]})", "float32[3, 1]"},
      {"x:float32[1,3,1]", R"({"op": "squeeze", "args": ["x"], "dim": 3})",
       "error: dim 3 is out of range for a 3-d tensor (expected -3..2)"},
      {"x:float32[]", R"({"op": "squeeze", "args": ["x"], "dim": 0})", "float32[]"},
      {"x:float32[2,3,4,5]", R"({"op": "flatten", "args": ["x"]})", "float32[120]"},
      {"x:float32[2,3,4,5]", R"({"op": "flatten", "args": ["x"], "start_dim": 1, "end_dim": 2})", "float32[2, 12, 5]"},
      {"x:float32[2,3,4,5]", R"({"op": "flatten", "args": ["x"], "start_dim": -2})", "float32[2, 3, 20]"},
      {"x:float32[]", R"({"op": "flatten", "args": ["x"]})", "float32[1]"},
      {"x:float32[2,3,4]", R"({"op": "flatten", "args": ["x"], "start_dim": 2, "end_dim": 1})",
       "error: start_dim (2) comes after end_dim (1)"},
      {"x:float32[5,6]", R"({"op": "slice", "args": ["x"], "dim": 1, "start": 1, "end": 5, "step": 2})", "float32[5, 2]"},
      {"x:float32[]", R"({"op": "slice", "args": ["x"], "dim": 0})", "error: slice needs a tensor with at least one dim"},
      {"x:float32[5,6]", R"({"op": "slice", "args": ["x"], "start": 1})", "error: missing key 'dim'"},
      {"x:float32[5,6]", R"({"op": "select", "args": ["x"], "dim": 0, "index": -1})", "float32[6]"},
      {"x:float32[5]", R"({"op": "select", "args": ["x"], "dim": 0, "index": 2})", "float32[]"},
      {"x:float32[5,6]", R"({"op": "select", "args": ["x"], "dim": 1, "index": 6})",
       "error: index 6 is out of range for dim 1 of size 6"},
      {"x:float32[5,6]", R"({"op": "select", "args": ["x"], "dim": 1, "index": -7})",
       "error: index -7 is out of range for dim 1 of size 6"},
  };
  for (const Case& c : cases) EXPECT_EQ(type_of(c.inputs, c.body), c.want) << c.inputs << "  " << c.body;
}

TEST(Views, NormalizedAttrs) {
  Value r = node_of("x:float32[2,3,4]", R"({"op": "reshape", "args": ["x"], "shape": [-1, 4]})");
  EXPECT_EQ(r.attrs.shape, (Shape{6, 4}));
  Value p = node_of("x:float32[2,3,4]", R"({"op": "permute", "args": ["x"], "dims": [-1, 0, -2]})");
  EXPECT_EQ(p.attrs.dims, (std::vector<int64_t>{2, 0, 1}));
  Value t = node_of("x:float32[2,3,4]", R"({"op": "transpose", "args": ["x"], "dim0": -1, "dim1": 1})");
  EXPECT_EQ(t.attrs.dims, (std::vector<int64_t>{0, 2, 1}));
  EXPECT_EQ(t.shape, (Shape{2, 4, 3}));
  Value e = node_of("x:float32[3,1]", R"({"op": "expand", "args": ["x"], "shape": [2, -1, 4]})");
  EXPECT_EQ(e.attrs.shape, (Shape{2, 3, 4}));
  Value u = node_of("x:float32[2,3]", R"({"op": "unsqueeze", "args": ["x"], "dim": -2})");
  EXPECT_EQ(u.attrs.dim, 1);
  EXPECT_EQ(u.shape, (Shape{2, 1, 3}));
  Value s = node_of("x:float32[1,3,1,1]", R"({"op": "squeeze", "args": ["x"], "dim": [-1, 1, 0]})");
  EXPECT_EQ(s.attrs.dims, (std::vector<int64_t>{0, 3}));  // dim 1 has size 3: kept
  EXPECT_EQ(s.shape, (Shape{3, 1}));
  Value all = node_of("x:float32[1,3,1]", R"({"op": "squeeze", "args": ["x"], "dim": null})");
  EXPECT_EQ(all.attrs.dims, (std::vector<int64_t>{0, 2}));
  Value f = node_of("x:float32[2,3,4,5]", R"({"op": "flatten", "args": ["x"], "start_dim": -3, "end_dim": -2})");
  EXPECT_EQ(f.attrs.start, 1);
  EXPECT_EQ(f.attrs.end, 2);
  EXPECT_EQ(f.attrs.shape, (Shape{2, 12, 5}));
  Value sl = node_of("x:float32[5,6]", R"({"op": "slice", "args": ["x"], "dim": -1, "start": -4, "step": 3})");
  EXPECT_EQ(sl.attrs.dim, 1);
  EXPECT_EQ(sl.attrs.start, 2);
  EXPECT_EQ(sl.attrs.end, 6);
  EXPECT_EQ(sl.attrs.step, 3);
  EXPECT_EQ(sl.shape, (Shape{5, 2}));
  Value se = node_of("x:float32[5,6]", R"({"op": "select", "args": ["x"], "dim": -2, "index": -2})");
  EXPECT_EQ(se.attrs.dim, 0);
  EXPECT_EQ(se.attrs.index, 3);
}

TEST(Views, Cat) {
  const Case cases[] = {
      {"a:float32[2,3] b:float32[4,3]", R"({"op": "cat", "args": ["a", "b"], "dim": 0})", "float32[6, 3]"},
      {"a:float32[2,3] b:float32[2,1]", R"({"op": "cat", "args": ["a", "b", "a"], "dim": -1})", "float32[2, 7]"},
      {"a:int32[2] b:float64[3]", R"({"op": "cat", "args": ["a", "b"], "dim": 0})", "float64[5]"},
      {"a:int32[2] b:int64[3]", R"({"op": "cat", "args": ["a", "b"], "dim": 0})", "int64[5]"},
      {"a:bool[2] b:int32[3]", R"({"op": "cat", "args": ["a", "b"], "dim": 0})", "int32[5]"},
      {"a:float32[2,3]", R"({"op": "cat", "args": ["a"], "dim": 1})", "float32[2, 3]"},
      {"a:float32[2,3] b:float32[4,2]", R"({"op": "cat", "args": ["a", "b"], "dim": 0})",
       "error: cannot concatenate [4, 2] with [2, 3] along dim 0 (other dims must match)"},
      {"a:float32[2,3] b:float32[6]", R"({"op": "cat", "args": ["a", "b"], "dim": 0})",
       "error: cannot concatenate [6] with [2, 3] along dim 0 (other dims must match)"},
      {"a:float32[2] b:float32[]", R"({"op": "cat", "args": ["a", "b"], "dim": 0})",
       "error: a 0-d tensor cannot be concatenated"},
      {"a:float32[2]", R"({"op": "cat", "args": ["a", 1.0], "dim": 0})",
       "error: op 'cat' needs a tensor here (a value name or an inline node), got the scalar 1.0"},
      {"a:float32[2]", R"({"op": "cat", "args": ["a"], "dim": 1})",
       "error: dim 1 is out of range for a 1-d tensor (expected -1..0)"},
  };
  for (const Case& c : cases) EXPECT_EQ(type_of(c.inputs, c.body), c.want) << c.body;
  EXPECT_EQ(node_of("a:float32[2,3] b:float32[2,1]", R"({"op": "cat", "args": ["a", "b"], "dim": -1})").attrs.dim, 1);
}

TEST(Views, Pad) {
  const Case cases[] = {
      {"x:float32[2,3]", R"({"op": "pad", "args": ["x"], "pad": [1, 2]})", "float32[2, 6]"},
      {"x:float32[2,3]", R"({"op": "pad", "args": ["x"], "pad": [1, 2, 3, 4]})", "float32[9, 6]"},
      {"x:float32[2,3]", R"({"op": "pad", "args": ["x"], "pad": [-1, 0, 0, 1]})", "float32[3, 2]"},
      {"x:float32[2,3]", R"({"op": "pad", "args": ["x"], "pad": []})", "float32[2, 3]"},
      {"x:int32[2,3]", R"({"op": "pad", "args": ["x"], "pad": [-3, 2]})", "int32[2, 2]"},
      {"x:float32[2,3]", R"({"op": "pad", "args": ["x"], "pad": [1]})", "error: the pad list has odd length 1"},
      {"x:float32[3]", R"({"op": "pad", "args": ["x"], "pad": [1, 1, 1, 1]})",
       "error: the pad list pads 2 dims of a 1-d tensor"},
      {"x:float32[3]", R"({"op": "pad", "args": ["x"], "pad": [-4, 5]})",
       "error: cropping 4 of dim 0 (size 3) removes more than it has"},
      {"x:float32[3]", R"({"op": "pad", "args": ["x"], "pad": [-2, -2]})",
       "error: cropping 2 more of dim 0 (size 3) removes more than it has"},
      {"x:float32[3]", R"({"op": "pad", "args": ["x"], "pad": [9223372036854775807, 1]})",
       "error: the padded size of dim 0 (size 3) overflows int64"},
      {"x:float32[3]", R"({"op": "pad", "args": ["x"], "pad": [1, 1], "value": "one"})",
       "error: expected a number, got \"one\""},
  };
  for (const Case& c : cases) EXPECT_EQ(type_of(c.inputs, c.body), c.want) << c.body;
  Value p = node_of("x:int32[3]", R"({"op": "pad", "args": ["x"], "pad": [1, 0], "value": 2.9})");
  EXPECT_EQ(p.attrs.pad, (std::vector<int64_t>{1, 0}));
  EXPECT_EQ(p.attrs.value, Scalar::of_int(2));
  Value q = node_of("x:float64[3]", R"({"op": "pad", "args": ["x"], "pad": [1, 0]})");
  EXPECT_EQ(q.attrs.value, Scalar::of_float(0.0));
  Value b = node_of("x:bool[3]", R"({"op": "pad", "args": ["x"], "pad": [1, 0], "value": true})");
  EXPECT_EQ(b.attrs.value, Scalar::of_bool(true));
}

}  // namespace
}  // namespace stax::graph
