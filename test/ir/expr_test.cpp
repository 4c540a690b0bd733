// Value expressions: dtype rules of the factories, sharing, traversal, printing, and the
// program printer and verifier on a hand-built example 7.1.
#include "stax/ir/expr.h"

#include <gtest/gtest.h>

#include <cmath>

#include "stax/ir/printer.h"
#include "stax/ir/program.h"
#include "stax/support/error.h"

namespace stax::ir {
namespace {

const Index x0 = Index::var(xvar(0));
const Index x1 = Index::var(xvar(1));
const Index r0 = Index::var(rvar(0));

TEST(Expr, FactoriesCheckDtypes) {
  Expr a = load(0, DType::Float32, x0);
  Expr i = load(1, DType::Int32, x0);
  EXPECT_EQ(binary(ExprOp::Add, a, a).dtype(), DType::Float32);
  EXPECT_EQ(binary(ExprOp::Lt, a, a).dtype(), DType::Bool);
  EXPECT_EQ(unary(ExprOp::IsNan, a).dtype(), DType::Bool);
  EXPECT_THROW(binary(ExprOp::Add, a, i), InternalError);       // no implicit promotion
  EXPECT_THROW(unary(ExprOp::Exp, i), InternalError);           // float math on int
  EXPECT_THROW(binary(ExprOp::Div, i, i), InternalError);       // true division is float only
  EXPECT_THROW(binary(ExprOp::BitwiseAnd, a, a), InternalError);
  EXPECT_THROW(where(a, a, a), InternalError);                  // condition must be bool
  EXPECT_THROW(masked(bool_const(true), a, int_const(DType::Int32, 0)), InternalError);
  EXPECT_EQ(cast(i, DType::Float32).dtype(), DType::Float32);
  EXPECT_TRUE(cast(a, DType::Float32).same_as(a));
  EXPECT_EQ(binary(ExprOp::FloorDiv, i, i).dtype(), DType::Int32);
}

TEST(Expr, Constants) {
  EXPECT_EQ(constant_text(float_const(DType::Float32, 0.1)), "float32(0.100000001)");
  EXPECT_EQ(constant_text(float_const(DType::Float64, -INFINITY)), "float64(-inf)");
  EXPECT_EQ(constant_text(float_const(DType::Float32, NAN)), "float32(nan)");
  EXPECT_EQ(constant_text(int_const(DType::Int64, -3)), "int64(-3)");
  EXPECT_EQ(constant_text(bool_const(true)), "true");
  EXPECT_EQ(constant_text(const_of(DType::Int32, 2.0)), "int32(2)");
  EXPECT_EQ(float_const(DType::Float32, NAN), float_const(DType::Float32, NAN));
  EXPECT_FALSE(float_const(DType::Float32, 1.0) == float_const(DType::Float64, 1.0));
}

TEST(Expr, TraversalAndLoads) {
  Expr a = load(0, DType::Float32, 128 * x0 + x1);
  Expr e = unary(ExprOp::Exp, a);
  Expr sum = binary(ExprOp::Add, e, e);  // shared operand
  std::vector<Expr> order = topo_order(sum);
  ASSERT_EQ(order.size(), 3u);
  EXPECT_TRUE(order[0].same_as(a));
  EXPECT_TRUE(order[2].same_as(sum));
  EXPECT_EQ(node_count(sum), 3u);

  Expr mask = binary(ExprOp::Lt, index_value(x1), int_const(DType::Int64, 64));
  Expr m = masked(mask, load(1, DType::Float32, 64 * x0 + x1), float_const(DType::Float32, 0));
  Expr body = binary(ExprOp::Add, m, a);
  std::vector<LoadRef> loads = collect_loads(body);
  ASSERT_EQ(loads.size(), 2u);
  EXPECT_EQ(loads[0].buffer, 1);
  EXPECT_TRUE(loads[0].masked);
  EXPECT_EQ(loads[1].buffer, 0);
  EXPECT_FALSE(loads[1].masked);
  EXPECT_EQ(to_string(body, {"x", "y"}),
            "add(masked(lt(index<int64>(x1), int64(64)), y[64*x0 + x1], float32(0)), x[128*x0 + x1])");
}

TEST(Expr, StructuralEquality) {
  Expr a1 = binary(ExprOp::Mul, load(0, DType::Float32, x0 + x1), float_const(DType::Float32, 2));
  Expr a2 = binary(ExprOp::Mul, load(0, DType::Float32, x1 + x0), float_const(DType::Float32, 2));
  EXPECT_FALSE(a1.same_as(a2));
  EXPECT_EQ(a1, a2);
  EXPECT_EQ(a1.hash(), a2.hash());
  Expr a3 = binary(ExprOp::Mul, load(0, DType::Float32, x0), float_const(DType::Float32, 2));
  EXPECT_FALSE(a1 == a3);
}

Program example_71() {
  Program p;
  p.name = "k";
  Buffer x;
  x.id = 0;
  x.name = "x";
  x.kind = BufferKind::Input;
  x.shape = {64, 128};
  x.input_index = 0;
  x.origins = {"x"};
  Buffer s;
  s.id = 1;
  s.name = "buf1";
  s.kind = BufferKind::Reduction;
  s.shape = {64, 1};
  s.reduce_ranges = {128};
  s.reduce_op = ReduceOp::Sum;
  s.body = load(0, DType::Float32, 128 * x0 + r0);
  s.origins = {"s"};
  Buffer y;
  y.id = 2;
  y.name = "buf2";
  y.kind = BufferKind::Pointwise;
  y.shape = {64, 128};
  y.body = binary(ExprOp::Div, load(0, DType::Float32, 128 * x0 + x1), load(1, DType::Float32, x0));
  y.origins = {"y"};
  p.buffers = {x, s, y};
  p.outputs = {ProgramOutput{2, 0}};
  return p;
}

TEST(Program, DumpAndVerify) {
  Program p = example_71();
  EXPECT_NO_THROW(verify(p));
  EXPECT_EQ(dump_ir(p),
            "program k\n"
            "x: float32[64, 128] = input 0\n"
            "buf1: float32[64, 1] = reduction sum  (s)\n"
            "  loops x0 < 64, x1 < 1 | r0 < 128\n"
            "  t0 = load x[128*x0 + r0]  : float32\n"
            "  return t0\n"
            "buf2: float32[64, 128] = pointwise  (y)\n"
            "  loops x0 < 64, x1 < 128\n"
            "  t0 = load x[128*x0 + x1]  : float32\n"
            "  t1 = load buf1[x0]  : float32\n"
            "  t2 = div(t0, t1)  : float32\n"
            "  return t2\n"
            "outputs buf2\n");
  EXPECT_EQ(to_string(p[2].write_index()), "128*x0 + x1");
  EXPECT_EQ(p[1].loop_vars().size(), 3u);
}

TEST(Program, VerifyCatchesOutOfBoundsLoads) {
  Program p = example_71();
  p.buffers[2].body = load(0, DType::Float32, 128 * x0 + x1 + 1);
  EXPECT_THROW(verify(p), InternalError);
  p = example_71();
  p.buffers[1].body = load(2, DType::Float32, x0);  // reads a later buffer
  EXPECT_THROW(verify(p), InternalError);
  p = example_71();
  p.buffers[2].body = load(0, DType::Float32, 128 * x0 + r0);  // r0 outside a pointwise nest
  EXPECT_THROW(verify(p), InternalError);
}

TEST(Expr, IndirectLoad) {
  const Expr pos = load(1, DType::Int64, x0);
  const Expr e = indirect_load(0, DType::Float32, x1, pos, 4, 10);
  EXPECT_EQ(e.op(), ExprOp::IndirectLoad);
  EXPECT_EQ(e.dtype(), DType::Float32);
  EXPECT_EQ(e.buffer(), 0);
  EXPECT_EQ(e.index(), x1);
  EXPECT_EQ(e.stride(), 4);
  EXPECT_EQ(e.extent(), 10);
  EXPECT_EQ(to_string(e, {"w", "i"}), "w[x1 + 4*checked(i[x0], 10)]");
  EXPECT_TRUE(e == indirect_load(0, DType::Float32, x1, load(1, DType::Int64, x0), 4, 10));
  EXPECT_FALSE(e == indirect_load(0, DType::Float32, x1, pos, 4, 9));   // extent counts
  EXPECT_FALSE(e == indirect_load(0, DType::Float32, x1, pos, 2, 10));  // stride counts
  EXPECT_FALSE(e == load(0, DType::Float32, x1));
  EXPECT_THROW(indirect_load(0, DType::Float32, x1, load(0, DType::Float32, x0), 4, 10), InternalError);
  EXPECT_THROW(indirect_load(0, DType::Float32, x1, pos, 4, 0), InternalError);
  EXPECT_THROW(e.int_value(), InternalError);
  // collect_loads reports it apart from a plain load of the same base: its elements depend on
  // data; inside a Masked body it is masked as any load.
  const Expr both = binary(ExprOp::Add, e, masked(unary(ExprOp::IsNan, load(0, DType::Float32, x1)),
                                                  load(0, DType::Float32, x1), float_const(DType::Float32, 0)));
  const std::vector<LoadRef> loads = collect_loads(both);
  ASSERT_EQ(loads.size(), 3u);
  EXPECT_EQ(loads[0].buffer, 1);
  EXPECT_TRUE(loads[1].indirect);
  EXPECT_FALSE(loads[1].masked);
  EXPECT_FALSE(loads[2].indirect);
  EXPECT_FALSE(loads[2].masked);  // read unmasked by isnan too
  EXPECT_TRUE(collect_loads(masked(bool_const(true), e, float_const(DType::Float32, 0)))[1].masked);
  EXPECT_TRUE(may_fail(both));
  EXPECT_FALSE(may_fail(load(0, DType::Float32, x1)));
  EXPECT_TRUE(may_fail(binary(ExprOp::Remainder, pos, pos)));
  EXPECT_FALSE(may_fail(binary(ExprOp::Remainder, load(0, DType::Float32, x1), load(0, DType::Float32, x1))));
}

TEST(Program, IndirectLoadsAreSideEffectsAndVerified) {
  Program p = example_71();
  // buf2[x0, x1] = x[128 * i + x1] with i = floor(buf1[x0]) as an int: rows picked by data.
  const Expr row = cast(unary(ExprOp::Floor, load(1, DType::Float32, x0)), DType::Int64);
  p.buffers[2].body = indirect_load(0, DType::Float32, x1, row, 128, 64);
  EXPECT_NO_THROW(verify(p));
  EXPECT_TRUE(has_side_effects(p[2]));
  EXPECT_FALSE(has_side_effects(p[1]));
  EXPECT_NE(dump_ir(p).find("  t3 = iload x[x1 + 128*checked(t2, 64)]  : float32\n"), std::string::npos) << dump_ir(p);
  p.buffers[2].body = indirect_load(0, DType::Float32, x1, row, 128, 65);  // one row too many
  EXPECT_THROW(verify(p), InternalError);
}

}  // namespace
}  // namespace stax::ir
