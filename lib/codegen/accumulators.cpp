#include "accumulators.h"

#include <cctype>

#include "stax/codegen/literals.h"
#include "stax/kernelplan/access.h"
#include "stax/kernelplan/plan.h"
#include "vec_body_emitter.h"

namespace stax::codegen {

using ir::Buffer;

std::string fill(const std::string& pattern, const std::string& v, const std::string& pos, const std::string& col) {
  std::string s;
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    if (pattern.compare(i, 3, "{v}") == 0) {
      s += v;
      i += 2;
    } else if (pattern.compare(i, 3, "{p}") == 0) {
      s += pos;
      i += 2;
    } else if (pattern.compare(i, 3, "{c}") == 0) {
      s += col;
      i += 2;
    } else {
      s.push_back(pattern[i]);
    }
  }
  return s;
}

Accumulator sum_or_prod(DType dt, bool sum) {
  const std::string T = cxx_type(dt);
  if (is_floating(dt)) {
    const std::string op = sum ? " += " : " *= ";
    const std::string value = dt == DType::Float32 ? "static_cast<double>({v})" : "{v}";
    const std::string result = dt == DType::Float32 ? "static_cast<float>(acc)" : "acc";
    return {"double", sum ? "0.0" : "1.0", "acc" + op + value + ";", result};
  }
  const std::string fn = sum ? "add" : "mul";
  return {T, int_literal(dt, sum ? 0 : 1), "acc = stax_rt::" + fn + "<" + T + ">(acc, {v});", "acc"};
}

namespace {

std::string extreme(DType dt, bool max) {
  switch (dt) {
    case DType::Float32:
    case DType::Float64: return std::string(max ? "" : "-") + "stax_rt::inf<" + cxx_type(dt) + ">()";
    case DType::Int32: return max ? "INT32_MAX" : "INT32_MIN";
    case DType::Int64: return max ? "INT64_MAX" : "INT64_MIN";
    case DType::Bool: return max ? "true" : "false";
  }
  return "?";
}

}  // namespace

Accumulator reduction_accumulator(ir::ReduceOp op, DType dt, DType body_dt) {
  const std::string T = cxx_type(dt);
  switch (op) {
    case ir::ReduceOp::Sum: return sum_or_prod(dt, true);
    case ir::ReduceOp::Prod: return sum_or_prod(dt, false);
    case ir::ReduceOp::Max: return {T, extreme(dt, false), "acc = stax_rt::maximum<" + T + ">(acc, {v});", "acc"};
    case ir::ReduceOp::Min: return {T, extreme(dt, true), "acc = stax_rt::minimum<" + T + ">(acc, {v});", "acc"};
    case ir::ReduceOp::Any: return {"bool", "false", "acc |= {v};", "acc"};
    case ir::ReduceOp::All: return {"bool", "true", "acc &= {v};", "acc"};
    case ir::ReduceOp::ArgMax:
    case ir::ReduceOp::ArgMin: {
      const std::string A = cxx_type(body_dt);
      const std::string fn = op == ir::ReduceOp::ArgMax ? "argmax_update" : "argmin_update";
      return {"stax_rt::ArgAcc<" + A + ">", "stax_rt::arg_init<" + A + ">()",
              "stax_rt::" + fn + "<" + A + ">(acc, {v}, {p});", "acc.index"};
    }
  }
  return {};
}

namespace {

// The dtype of argmax/argmin positions in vector lanes: int32 while every position and the
// no-position mark (INT32_MAX) fit, so one vector of positions is one register.
DType position_dtype(const Buffer& b) {
  return kernelplan::product(b.reduce_ranges) < INT32_MAX ? DType::Int32 : DType::Int64;
}

}  // namespace

std::optional<VecAccumulator> vec_accumulator(const Buffer& b, const std::string& isa) {
  const ir::ReduceOp op = b.reduce_op;
  const DType dt = b.dtype, body_dt = b.body.dtype();
  switch (op) {
    case ir::ReduceOp::Any:
      return VecAccumulator{vec_type(DType::Bool, isa), "false", "acc |= {v};", "acc |= stax_rt::any({v});"};
    case ir::ReduceOp::All:
      return VecAccumulator{vec_type(DType::Bool, isa), "true", "acc &= {v};", "acc &= stax_rt::all({v});"};
    case ir::ReduceOp::ArgMax:
    case ir::ReduceOp::ArgMin: {
      // Lanes start at the identity: the value every number beats or ties, at no position.
      const bool max = op == ir::ReduceOp::ArgMax;
      const std::string fn = max ? "argmax" : "argmin";
      const DType pos = position_dtype(b);
      return VecAccumulator{"stax_rt::ArgLanes<" + cxx_type(body_dt) + ", " + cxx_type(pos) + ", " + isa + ">",
                            extreme(body_dt, !max), "stax_rt::" + fn + "_update(acc, {v}, {p});",
                            "stax_rt::" + fn + "_combine(acc, {v});", pos};
    }
    default: break;
  }
  if (dt != body_dt || dt == DType::Bool) return std::nullopt;
  const std::string T = cxx_type(dt);
  const std::string V = vec_type(dt, isa);
  switch (op) {
    case ir::ReduceOp::Sum:
    case ir::ReduceOp::Prod: {
      // In the scalar accumulator's type (float32 in float64 lanes).
      const bool sum = op == ir::ReduceOp::Sum;
      const std::string o = sum ? "+" : "*";
      const std::string lanes = std::string(sum ? "stax_rt::reduce_sum" : "stax_rt::reduce_prod") + "({v})";
      if (dt == DType::Float32)
        return VecAccumulator{vec_type(DType::Float64, isa), sum ? "0.0" : "1.0",
                              "acc = acc " + o + " stax_rt::convert({v}, stax_rt::VecTag<double>());", "acc " + o + "= " + lanes + ";"};
      if (dt == DType::Float64) return VecAccumulator{V, sum ? "0.0" : "1.0", "acc " + o + "= {v};", "acc " + o + "= " + lanes + ";"};
      return VecAccumulator{V, T + (sum ? "(0)" : "(1)"), "acc " + o + "= {v};",
                            "acc = stax_rt::" + std::string(sum ? "add" : "mul") + "<" + T + ">(acc, " + lanes + ");"};
    }
    case ir::ReduceOp::Max:
      return VecAccumulator{V, extreme(dt, false), "acc = stax_rt::maximum(acc, {v});",
                            "acc = stax_rt::maximum<" + T + ">(acc, stax_rt::reduce_max({v}));"};
    case ir::ReduceOp::Min:
      return VecAccumulator{V, extreme(dt, true), "acc = stax_rt::minimum(acc, {v});",
                            "acc = stax_rt::minimum<" + T + ">(acc, stax_rt::reduce_min({v}));"};
    default: return std::nullopt;
  }
}
std::string rename_acc(const std::string& text, const std::string& name) {
  std::string out;
  auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  for (std::size_t i = 0; i < text.size();) {
    if (text.compare(i, 3, "acc") == 0 && (i == 0 || !word(text[i - 1])) &&
        (i + 3 >= text.size() || !word(text[i + 3]))) {
      out += name;
      i += 3;
    } else {
      out.push_back(text[i++]);
    }
  }
  return out;
}

std::optional<ColumnAccumulator> column_accumulator(const Buffer& b, const std::string& isa) {
  std::optional<VecAccumulator> va = vec_accumulator(b, isa);
  if (!va) return std::nullopt;
  const std::string N = std::to_string(kernelplan::kColumnBlock);
  if (va->position) {  // argmax/argmin: arrays of numbers, positions and first-NaN positions
    const std::string fn = b.reduce_op == ir::ReduceOp::ArgMax ? "argmax" : "argmin";
    const std::string A = cxx_type(b.body.dtype());
    return ColumnAccumulator{*va,
                             "stax_rt::ArgColumns<" + A + ", " + cxx_type(*va->position) + ", " + N + "> acc;",
                             "acc.clear({c}, " + va->init + ");",
                             va->type + "::loadu(acc, {c})",
                             "{v}.storeu(acc, {c});",
                             "stax_rt::" + fn + "_update(acc, {c}, {v}, {p});",
                             "acc.position({c})"};
  }
  const Accumulator acc = reduction_accumulator(b.reduce_op, b.dtype, b.body.dtype());
  return ColumnAccumulator{*va,
                           "alignas(64) " + acc.type + " acc[" + N + "];",
                           "acc[{c}] = " + acc.init + ";",
                           va->type + "::loadu(acc + ({c}))",
                           "{v}.storeu(acc + ({c}));",
                           rename_acc(acc.update, "acc[{c}]"),
                           rename_acc(acc.result, "acc[{c}]")};
}

}  // namespace stax::codegen
