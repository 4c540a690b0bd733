// A lowered program: the buffers of a graph and how each computed one is produced (design.md,
// "Lowering"). Produced by stax::lowering::lower, read by the scheduler and code generator.
//
// Layout: every buffer is dense and row-major over its `shape` (a 0-d buffer holds 1 element);
// element (i0, .., ik) lives at flat offset sum i_d * stride_d, stride_last = 1. Loads address
// buffers by this flat offset.
//
// Loop variables and what each kind computes (x_d ranges over [0, shape[d])):
//   Pointwise  loops x0..x{k-1} over `shape` (k = rank; none for 0-d):
//                buffer[flat(x)] = body(x)
//   Reduction  loops x0..x{k-1} over `shape` (the output; a dim kept by keepdim has extent 1 and
//              its variable is simply 0) and r0..r{m-1} over `reduce_ranges` (the reduced dims
//              of the input, in input order; r0 outermost):
//                buffer[flat(x)] = reduce_op over all r of body(x, r)
//              Sum/Prod: dtype == body dtype (int sums/products accumulate in int64 and wrap;
//              lowering casts the body to the result dtype). Max/Min: nan propagates; body
//              dtype == dtype, int or float. Any/All: bool body and dtype. ArgMax/ArgMin: body of
//              any int/float dtype, buffer Int64, the result is the row-major flat position over
//              the reduction ranges (r0 outermost) of the first maximum/minimum (a nan counts as
//              the maximum/minimum and the first nan wins, as PyTorch).
//              Identities: Sum 0, Prod 1, Max -inf / INT_MIN, Min +inf / INT_MAX, Any false,
//              All true. `reduce_ranges` is never empty (a reduction over no dims is lowered to
//              a pointwise buffer).
//   Scan       loops x0..x{k-1} over `shape`; dim `scan_dim` is carried:
//                buffer[flat(x)] = scan_op over t = 0..x[scan_dim] of body(x with x[scan_dim]=t)
//              dtype == body dtype (Int64 for int/bool input, as PyTorch's cumsum/cumprod).
//   Extern     a library kernel reading whole buffers (`extern_op`: a matmul or a convolution,
//              below); no body.
//   Input      the graph input `input_index`, given by the caller; no body.
//   Constant   `data` (a tensor of `dtype` and `shape`), baked into the generated code.
//
// Order: `buffers` are in a valid execution order: inputs first (graph input order, every input
// even if unused), then the constants that are used, then computed buffers, each after every
// buffer its body or extern reads. Names: inputs and constants keep their graph names (which may
// not be C identifiers: code generation mangles); computed buffers are "buf<id>" with id their
// position in `buffers` (example 7.1: x is buffer 0, the row sum buf1, the quotient buf2).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "stax/ir/expr.h"
#include "stax/ir/index.h"
#include "stax/support/dtype.h"
#include "stax/support/tensor.h"

namespace stax::ir {

enum class BufferKind : unsigned char { Input, Constant, Pointwise, Reduction, Scan, Extern };
enum class ReduceOp : unsigned char { Sum, Prod, Max, Min, ArgMax, ArgMin, Any, All };
enum class ScanOp : unsigned char { Sum, Prod };
enum class ExternOp : unsigned char { Matmul, Conv };

std::string_view buffer_kind_name(BufferKind k);  // "input", "pointwise", ...
std::string_view reduce_op_name(ReduceOp op);     // "sum", "argmax", ...
std::string_view scan_op_name(ScanOp op);         // "cumsum", "cumprod"
std::string_view extern_op_name(ExternOp op);     // "matmul", "conv"

// One operand of a matmul, read in place through strides (no copy for a transposed or sliced
// weight): element [b..., i, j] of the operand's logical [batch..., rows, cols] matrix is
//   buffer[offset + sum_d b_d * batch_strides[d] + i * row_stride + j * col_stride]
// Broadcast batch dims have stride 0.
struct MatmulOperand {
  BufferId buffer = -1;
  int64_t offset = 0;
  std::vector<int64_t> batch_strides;  // one per Matmul::batch dim
  int64_t row_stride = 0;
  int64_t col_stride = 0;
};

// out[b..., i, j] = sum_{k < K} A[b..., i, k] * B[b..., k, j] for i < M, j < N, written dense
// row-major as [batch..., M, N] (the buffer's shape is the graph's, which drops M or N for 1-D
// operands; the element count and order are the same). A and B have the buffer's dtype (the
// graph requires equal dtypes); ints accumulate in their own type with wrap, floats in their
// own type.
struct Matmul {
  std::vector<int64_t> batch;  // broadcast batch dims (may be empty)
  int64_t m = 1, k = 1, n = 1;
  MatmulOperand a;  // [batch..., M, K]
  MatmulOperand b;  // [batch..., K, N]
};

// out[i, o, y, x] = bias[o] + sum over ci < c / groups, a < kh, b < kw of
//   weight[o, ci, a, b] * input[i, g * c / groups + ci, y * sh - ph + a * dh, x * sw - pw + b * dw]
// with g = o / (cout / groups) and input elements outside [0, h) x [0, w) zero: PyTorch's conv2d
// (a conv1d is one with h = kh = 1, sh = dh = 1, ph = 0). input [n, c, h, w], weight
// [cout, c / groups, kh, kw] and the optional bias [cout] are whole dense buffers of the output's
// dtype (float32 or float64); the output is [n, cout, oh, ow] (the buffer's shape is the graph's:
// [n, cout, ow] for a conv1d). ph, pw: the padding before each dim; the padding after is implied
// by oh, ow.
struct Conv {
  BufferId input = -1, weight = -1, bias = -1;  // bias -1: none
  int64_t n = 1, c = 1, h = 1, w = 1, cout = 1, kh = 1, kw = 1, oh = 1, ow = 1;
  int64_t sh = 1, sw = 1, ph = 0, pw = 0, dh = 1, dw = 1, groups = 1;
};

struct Buffer {
  BufferId id = -1;
  std::string name;
  BufferKind kind = BufferKind::Pointwise;
  DType dtype = DType::Float32;
  Shape shape;  // dense row-major; [] for 0-d
  // The graph nodes this buffer computes, inlined producers included, in graph order (value
  // names; anonymous nodes appear as "<parent>#<k>"). Input/Constant: their own name.
  std::vector<std::string> origins;

  // Input: position in the graph's inputs.
  int input_index = -1;
  // Constant: the data (dtype and shape as the buffer's).
  Tensor data;
  // Pointwise, Reduction, Scan: the body over x (and r) variables.
  Expr body;
  // Reduction.
  ReduceOp reduce_op = ReduceOp::Sum;
  Shape reduce_ranges;
  // Scan.
  ScanOp scan_op = ScanOp::Sum;
  int scan_dim = 0;
  // Extern: which kernel, and its operands (the record of that kernel).
  ExternOp extern_op = ExternOp::Matmul;
  Matmul matmul;
  Conv conv;

  int64_t numel() const { return shape_numel(shape); }
  bool is_computed() const {
    return kind == BufferKind::Pointwise || kind == BufferKind::Reduction ||
           kind == BufferKind::Scan || kind == BufferKind::Extern;
  }
  // x0..x{rank-1} (Pointwise, Reduction, Scan).
  std::vector<Var> output_vars() const;
  // r0..r{m-1} (Reduction; empty otherwise).
  std::vector<Var> reduce_vars() const;
  // x vars then r vars: the loop nest, outermost first.
  std::vector<Var> loop_vars() const;
  // Extents of loop_vars().
  VarRanges ranges() const;
  // The index this buffer writes at: flat row-major of the x vars (0 for 0-d).
  Index write_index() const;
};

// Graph output `index` (position in the graph's outputs) is the content of `buffer`, which has
// the output's dtype and element count; its dense row-major bytes are the output's (its shape
// differs only when the output is a reshape of it). The same buffer may serve several outputs,
// and may be an Input or Constant buffer (the code generator copies it into the caller's output
// memory).
struct ProgramOutput {
  BufferId buffer = -1;
  int index = 0;
};

struct Program {
  std::string name;  // the graph's name
  std::vector<Buffer> buffers;
  std::vector<ProgramOutput> outputs;  // in graph output order (index 0, 1, ...)

  const Buffer& operator[](BufferId id) const { return buffers.at(static_cast<std::size_t>(id)); }
  std::vector<std::string> buffer_names() const;
};

// The same product with its batch dims folded into M where that is one larger product: when B
// is the same matrix for every batch position (batch stride 0 on each dim of more than one
// position) and A's rows continue across the batch dims (each dim's stride the rows below it),
// as a Linear on [batch, tokens, features] or on channels-last [n, h, w, c] is. Rows then run over
// the batch positions in order (row r is batch position r / M, row r % M), which is the output's
// dense order. Else the matmul unchanged. A product of one batch position folds too.
Matmul fold_batch(const Matmul& mm);

// The buffers an Extern reads (each whole), in operand order, without repeats.
std::vector<BufferId> extern_operands(const Buffer& b);

// True when computing the buffer may fail (ir::may_fail of its body): an integer FloorDiv,
// TruncDiv or Remainder (a zero divisor) or an IndirectLoad (an index out of range) sets the
// error flag. Such a buffer is a side effect: lowering keeps one even when nothing reads it
// (eager PyTorch raises for an unused `a % 0` too), and dead-node elimination must not remove it.
bool has_side_effects(const Buffer& b);

// Checks the invariants above (ids, order, dtypes of bodies, variables within the loop nest,
// shapes of outputs); STAX_ASSERT on a violation. Lowering calls it on its result.
void verify(const Program& p);

}  // namespace stax::ir
