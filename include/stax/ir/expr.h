// Value expressions: the body of a buffer, evaluated once per point of its loop nest
// (program.h). An `Expr` is an immutable handle to a shared node; a body is a DAG, and a
// subexpression that lowering reuses (a producer inlined twice into one consumer, the row max
// of logsumexp used twice) is the same node (`same_as`), so a code generator emits each distinct
// node once (CSE by node pointer; `hash`/`operator==` give structural CSE too).
//
// Every node has a dtype. Lowering inserts every conversion explicitly (`Cast`), so the operands
// of each op always have the dtypes its rule below names; the factories check that
// (STAX_ASSERT), and a code generator never has to think about type promotion.
//
// Leaves:
//   Load        buffer `buffer()` (an id into Program::buffers) read at element `index()`, a flat
//               row-major element offset into that buffer (dense layout, program.h) written over
//               the loop variables of the buffer being computed. dtype = the loaded buffer's.
//   Constant    a typed scalar: floats in `float_value()` (may be +-inf or nan), ints and bool
//               (0/1) in `int_value()`.
//   IndexValue  `index()` evaluated as an integer, as a value of dtype Int64 or Int32 (arange,
//               iota, masks of cat/pad compare it with constants).
//   IndirectLoad  buffer `buffer()` read at `index() + stride() * p`, where p is the value of
//               the one operand (the position, Int32 or Int64, computed from loaded data: an
//               index of embedding, index_select or gather). `index()` (the base: the position
//               0 of the indexed dim) is written over the loop variables like a Load's. p must
//               lie in [0, extent()): otherwise the generated code sets its error flag (the call
//               returns STAX_ERR_INDEX_OUT_OF_RANGE) and reads at the base instead, so no address
//               outside the buffer is ever read. Which elements it reads depends on data, so a
//               scheduler must take it as a read of the whole buffer (collect_loads marks it
//               `indirect`). dtype = the loaded buffer's.
// Ops (expr.def lists them with the operand dtypes each accepts):
//   Unary ops keep the dtype; float math (Exp..Erfc) needs a float operand; IsNan/IsInf/IsFinite
//   take a float and give bool; Cast converts to the node's dtype (float -> int of a non-finite
//   or out-of-range value: any value but never undefined behaviour; -> bool: x != 0, nan is
//   true; bool -> number: 0/1).
//   Binary arithmetic: both operands have the node's dtype. Integer Add/Sub/Mul wrap (two's
//   complement; compute in unsigned). Integer FloorDiv, TruncDiv and Remainder check the divisor:
//   on 0 the generated code sets its error flag (the call returns an error code) and uses any
//   value; INT_MIN / -1 wraps and INT_MIN % -1 is 0. Float FloorDiv/TruncDiv/Remainder follow
//   PyTorch's div(rounding_mode="floor"/"trunc") and remainder (result has the divisor's sign;
//   by 0: nan, or inf for a division). Integer Pow: PyTorch's (x**0 == 1; negative exponent: 1
//   for base 1, +-1 for base -1, else 0; wraps). Maximum/Minimum propagate nan.
//   Comparisons: two operands of the same dtype, bool result (nan compares unequal).
//   Where(cond, a, b): cond bool; a, b and the node of one dtype; both branches are evaluated.
//   Masked(mask, body, other): mask bool; `other` is a Constant of the node's dtype; the value
//     is `mask ? body : other` and the body is evaluated ONLY where mask holds (its loads may
//     address outside their buffer elsewhere, and its integer divisions must not flag errors
//     there). This is how `cat` and `pad` read their inputs: a masked load is
//     Masked(mask, Load(buf, index), other).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "stax/ir/index.h"
#include "stax/support/dtype.h"

namespace stax::ir {

enum class ExprOp : unsigned char {
#define STAX_EXPR_OP(E, name, arity) E,
#include "stax/ir/expr.def"
#undef STAX_EXPR_OP
};

std::string_view expr_op_name(ExprOp op);
int expr_op_arity(ExprOp op);
// A transcendental op (exp, log, the trigonometric and hyperbolic functions, erf, sigmoid, pow,
// ...): what CPU rule 1 of §6.6 calls expensive, and what the code generator weighs a loop by.
bool is_expensive(ExprOp op);

// Index of a buffer in Program::buffers.
using BufferId = int32_t;

class ExprNode;

class Expr {
 public:
  Expr() = default;  // null; only as a placeholder
  explicit operator bool() const { return node_ != nullptr; }

  ExprOp op() const;
  DType dtype() const;
  const std::vector<Expr>& operands() const;
  const Expr& operand(std::size_t i) const { return operands().at(i); }
  // Load, IndirectLoad: buffer and flat element index (IndirectLoad: the base). IndexValue: the
  // index.
  BufferId buffer() const;
  const Index& index() const;
  // IndirectLoad: the step of one position and the number of positions.
  int64_t stride() const;
  int64_t extent() const;
  // Constant: value (float dtypes use float_value, int and bool use int_value).
  double float_value() const;
  int64_t int_value() const;

  bool same_as(const Expr& other) const { return node_ == other.node_; }
  // Structural equality and hash (Load compares buffer and index; Constant compares dtype and
  // bit pattern, so nan == nan here).
  bool operator==(const Expr& other) const;
  std::size_t hash() const;
  const ExprNode* node() const { return node_.get(); }

 private:
  explicit Expr(std::shared_ptr<const ExprNode> node) : node_(std::move(node)) {}
  std::shared_ptr<const ExprNode> node_;
  friend class ExprBuilder;
};

// Factories (each checks the dtype rules of the op and STAX_ASSERTs on a violation).
Expr load(BufferId buffer, DType dtype, Index index);
Expr float_const(DType dtype, double v);   // dtype Float32/Float64
Expr int_const(DType dtype, int64_t v);    // dtype Int32/Int64/Bool (bool: v != 0)
Expr bool_const(bool v);
// A constant of any dtype from a double (ints truncate, bool: v != 0).
Expr const_of(DType dtype, double v);
Expr index_value(Index index, DType dtype = DType::Int64);
// buffer[base + stride * position], position checked against [0, extent) (extent >= 1,
// stride >= 0; position Int32 or Int64).
Expr indirect_load(BufferId buffer, DType dtype, Index base, Expr position, int64_t stride,
                   int64_t extent);
Expr unary(ExprOp op, Expr a);                     // Neg..Erfc, IsNan/IsInf/IsFinite
Expr cast(Expr a, DType to);                       // returns `a` itself when already `to`
Expr binary(ExprOp op, Expr a, Expr b);            // Add..Ge
Expr where(Expr cond, Expr a, Expr b);
Expr masked(Expr mask, Expr body, Expr other);

// Walks the DAG once per distinct node (by pointer), operands before users, in a deterministic
// order (depth-first, operands left to right). Useful for code generation and recording reads.
std::vector<Expr> topo_order(const Expr& root);
std::vector<Expr> topo_order(const std::vector<Expr>& roots);
// Distinct (buffer, index, indirect) reads of the loads, in topo order (masked loads included).
struct LoadRef {
  BufferId buffer;
  Index index;
  bool masked;  // inside the body of a Masked node
  // An IndirectLoad: `index` is only its base; it may read any element of the buffer.
  bool indirect = false;
};
std::vector<LoadRef> collect_loads(const Expr& root);
// Number of distinct nodes (the "size" of a body).
std::size_t node_count(const Expr& root);

// True when the expression may set the error flag of the generated code: an integer FloorDiv,
// TruncDiv or Remainder (a zero divisor) or an IndirectLoad (a position out of range).
bool may_fail(const Expr& root);

// Text of a constant: "float32(0.5)", "float64(-inf)", "int64(3)", "true".
std::string constant_text(const Expr& constant);

// One-line text of an expression with buffer names given by `buffer_name` (used by the
// printer and by tests): "add(x[128*x0 + x1], float32(1))", "cast<int64>(y[x0])".
std::string to_string(const Expr& e, const std::vector<std::string>& buffer_names);

}  // namespace stax::ir
