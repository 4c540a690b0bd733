// The accumulators of reductions and scans as C++ text patterns: scalar (one value), vector
// (Proposition 8.1: W lanes combined at the end) and column (one per column of a block, §8.1's
// reductions across the contiguous dimension).
#pragma once

#include <optional>
#include <string>

#include "stax/ir/program.h"

namespace stax::codegen {

// How a reduction or scan accumulates: float32 sums and products in double (accurate without
// ordering tricks). `update` is a statement ({v} the value, {p} the flat reduction position),
// `result` the expression stored to the buffer.
struct Accumulator {
  std::string type;
  std::string init;
  std::string update;
  std::string result;
};

// Fills the placeholders of an accumulator's text: {v} the value, {p} the flat position, {c} the
// column (ColumnAccumulator).
std::string fill(const std::string& pattern, const std::string& v, const std::string& pos = "",
                 const std::string& col = "");

// `acc` renamed to `name` in an accumulator's texts (patterns use the word "acc" only as the
// variable).
std::string rename_acc(const std::string& text, const std::string& name);

// The accumulator of a sum (or product) in dtype `dt` (scans and reductions).
Accumulator sum_or_prod(DType dt, bool sum);

Accumulator reduction_accumulator(ir::ReduceOp op, DType dt, DType body_dt);

// The vector form of an accumulator (Proposition 8.1: W lanes, combined at the end): sums,
// products, maxima and minima of float and integer values (float32 sums and products in float64
// lanes, as the scalar accumulator), any/all in a Mask, and argmax/argmin as the best number and
// its position and the first NaN's position per lane (stax_rt::ArgLanes); nothing for the others
// (kernelplan's has_vector_accumulator tells which). `update` is a statement ({v}: the vector
// value, {p}: the lanes' positions for argmax/argmin, `acc` the vector accumulator), `combine`
// folds the lanes into the scalar accumulator `acc` ({v}: the vector accumulator's name).
// Operators update in place (`acc += {v}`): the value's text may be a sum or difference itself,
// and `acc + a - b` would add a to acc before subtracting b.
struct VecAccumulator {
  std::string type;
  std::string init;
  std::string update;
  std::string combine;
  std::optional<DType> position = std::nullopt;  // argmax/argmin: the dtype of the positions {p}
};

std::optional<VecAccumulator> vec_accumulator(const ir::Buffer& b, const std::string& isa);

// The column form of an accumulator (a reduction over a non-innermost dimension, §8.1): one
// accumulator per column of a block of kColumnBlock columns, in storage `acc` that stays in L1,
// {c} a column of the block; W adjacent columns load into the vector accumulator `lanes` and
// store back. `declare` and `store` are statements ({v}: the vector accumulator's name), `init`
// and `update` statements on column {c} alone (`update` as Accumulator::update), `load` and
// `result` expressions.
struct ColumnAccumulator {
  VecAccumulator lanes;
  std::string declare;
  std::string init;
  std::string load;
  std::string store;
  std::string update;
  std::string result;
};

std::optional<ColumnAccumulator> column_accumulator(const ir::Buffer& b, const std::string& isa);

}  // namespace stax::codegen
