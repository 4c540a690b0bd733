#include "kernels.h"

#include <algorithm>
#include <cctype>
#include <functional>
#include <map>
#include <optional>
#include <tuple>

#include "body_emitter.h"
#include "vec_body_emitter.h"
#include "code_writer.h"
#include "stax/codegen/isa.h"
#include "stax/codegen/literals.h"
#include "stax/ir/simplify.h"
#include "stax/support/error.h"

namespace stax::codegen {

namespace {

using ir::Buffer;
using ir::BufferId;
using ir::Expr;
using ir::Index;
using ir::Var;

// ---- Loops --------------------------------------------------------------------------------

int64_t product(const std::vector<int64_t>& v) {
  int64_t p = 1;
  for (int64_t s : v) p *= s;
  return p;
}

std::string loop_head(const std::string& var, int64_t size) {
  return "for (int64_t " + var + " = 0; " + var + " < " + std::to_string(size) + "; ++" + var + ")";
}

// `#pragma omp parallel for` over the first loops of `outer` when the nest does enough work:
// collapse the outer loops until they give kParallelMinUnits units (or all of them).
void parallel_pragma(CodeWriter& out, const std::vector<int64_t>& outer, int64_t total_work,
                     bool fallible) {
  if (outer.empty() || total_work < kParallelMinWork) return;
  std::size_t depth = 0;
  int64_t units = 1;
  while (depth < outer.size() && units < kParallelMinUnits) units *= outer[depth++];
  if (units < 2) return;
  std::string pragma = "#pragma omp parallel for";
  if (depth > 1) pragma += " collapse(" + std::to_string(depth) + ")";
  if (fallible) pragma += " reduction(|:err)";
  out.raw(pragma);
}

std::string shape_text(const Buffer& b) {
  return std::string(dtype_name(b.dtype)) + shape_str(b.shape);
}

std::string join(const std::vector<std::string>& parts, const std::string& sep) {
  std::string s;
  for (std::size_t i = 0; i < parts.size(); ++i) s += (i ? sep : "") + parts[i];
  return s;
}

// ---- Accumulators ---------------------------------------------------------------------------

// How a reduction or scan accumulates: float32 sums and products in double (accurate without
// ordering tricks; the vectorized kernels of a later stage block the sum instead).
struct Accumulator {
  std::string type;
  std::string init;
  std::string update;  // statement: {v} the value, {p} the flat reduction position
  std::string result;  // expression stored to the buffer
};

// Fills the placeholders of an Accumulator::update: {v} the value, {p} the flat position, {c}
// the column (ColumnAccumulator).
std::string fill(const std::string& pattern, const std::string& v, const std::string& pos = "",
                 const std::string& col = "") {
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

// The vector form of an accumulator (Proposition 8.1: W lanes, combined at the end): sums,
// products, maxima and minima of float and integer values (float32 sums and products in
// float64 lanes, as the scalar accumulator), any/all in a Mask, and argmax/argmin as the best
// number and its position and the first NaN's position per lane (stax_rt::ArgLanes); nothing
// for the others (the loop stays scalar). `update` is a statement ({v}: the vector value, {p}:
// the lanes' positions for argmax/argmin, `acc` the vector accumulator), `combine` folds the
// lanes into the scalar accumulator `acc` ({v}: the vector accumulator's name). Operators
// update in place (`acc += {v}`): the value's text may be a sum or difference itself, and
// `acc + a - b` would add a to acc before subtracting b.
struct VecAccumulator {
  std::string type;
  std::string init;
  std::string update;
  std::string combine;
  std::optional<DType> position = std::nullopt;  // argmax/argmin: the dtype of the positions {p}
};

// The dtype of argmax/argmin positions in vector lanes: int32 while every position and the
// no-position mark (INT32_MAX) fit, so one vector of positions is one register.
DType position_dtype(const Buffer& b) { return product(b.reduce_ranges) < INT32_MAX ? DType::Int32 : DType::Int64; }

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

// ---- Kernel skeleton ------------------------------------------------------------------------

struct Signature {
  std::vector<BufferId> params;
  std::string text;
};

// Parameters: the buffers read (first-read order), then the written one.
Signature signature(const ir::Program& p, const Buffer& b, const std::vector<BufferId>& reads,
                    const std::string& function, const std::vector<std::string>& names,
                    bool fallible) {
  Signature s;
  std::vector<std::string> params;
  for (BufferId id : reads) {
    if (std::find(s.params.begin(), s.params.end(), id) != s.params.end()) continue;
    s.params.push_back(id);
    params.push_back("const " + cxx_type(p[id].dtype) + "* " + names[static_cast<std::size_t>(id)]);
  }
  s.params.push_back(b.id);
  params.push_back(cxx_type(b.dtype) + "* " + names[static_cast<std::size_t>(b.id)]);
  s.text = std::string(fallible ? "int " : "void ") + function + "(" + join(params, ", ") + ")";
  return s;
}

std::vector<BufferId> loaded_buffers(const Expr& body) {
  std::vector<BufferId> ids;
  for (const ir::LoadRef& l : ir::collect_loads(body))
    if (std::find(ids.begin(), ids.end(), l.buffer) == ids.end()) ids.push_back(l.buffer);
  return ids;
}

std::string kernel_comment(const Buffer& b) {
  std::string what;
  switch (b.kind) {
    case ir::BufferKind::Pointwise: what = "pointwise"; break;
    case ir::BufferKind::Reduction: what = "reduction " + std::string(ir::reduce_op_name(b.reduce_op)); break;
    case ir::BufferKind::Scan: what = std::string(ir::scan_op_name(b.scan_op)) + " over dim " + std::to_string(b.scan_dim); break;
    case ir::BufferKind::Extern: what = "matmul"; break;
    case ir::BufferKind::Input:
    case ir::BufferKind::Constant: break;
  }
  return "// " + b.name + ": " + shape_text(b) + ", " + what + "; computes " + join(b.origins, ", ");
}

// ---- Kernels by buffer kind -----------------------------------------------------------------

void open_x_loops(CodeWriter& out, const std::vector<int64_t>& sizes) {
  for (std::size_t i = 0; i < sizes.size(); ++i) out.open(loop_head("x" + std::to_string(i), sizes[i]));
}
void close_loops(CodeWriter& out, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) out.close();
}

KernelCode scan(const ir::Program& p, const Buffer& b, const std::string& function,
                const std::vector<std::string>& names, std::set<std::string>& sections) {
  const bool fallible = BodyEmitter::has_checked_division(b.body);
  KernelCode k;
  k.function = function;
  k.fallible = fallible;
  const Signature sig = signature(p, b, loaded_buffers(b.body), function, names, fallible);
  k.params = sig.params;

  // The carried dimension runs innermost; the others keep their order around it.
  std::vector<std::size_t> outer;
  std::vector<int64_t> outer_sizes;
  for (std::size_t d = 0; d < b.shape.size(); ++d) {
    if (static_cast<int>(d) == b.scan_dim) continue;
    outer.push_back(d);
    outer_sizes.push_back(b.shape[d]);
  }
  CodeWriter out;
  out.line(kernel_comment(b));
  out.open(sig.text);
  if (fallible) out.line("int err = 0;");
  parallel_pragma(out, outer_sizes, b.numel(), fallible);
  for (std::size_t d : outer) out.open(loop_head("x" + std::to_string(d), b.shape[d]));
  const Accumulator acc = sum_or_prod(b.dtype, b.scan_op == ir::ScanOp::Sum);
  out.line(acc.type + " acc = " + acc.init + ";");
  const std::size_t sd = static_cast<std::size_t>(b.scan_dim);
  out.open(loop_head("x" + std::to_string(sd), b.shape[sd]));
  int temps = 0;
  auto buffer_name = [&](BufferId id) { return names[static_cast<std::size_t>(id)]; };
  auto index_text = [&](const Index& e) { return index_cxx(ir::simplify(e, b.ranges())); };
  BodyEmitter body(buffer_name, index_text, sections, temps);
  const std::string v = body.emit(b.body, out);
  out.line(fill(acc.update, bare(v)));
  out.line(buffer_name(b.id) + "[" + index_text(b.write_index()) + "] = " + acc.result + ";");
  out.close();
  close_loops(out, outer.size());
  if (fallible) out.line("return err;");
  out.close();
  k.text = out.str();
  return k;
}

// Pointer to an operand's matrix at the batch position of the x loops.
std::string operand_base(const ir::MatmulOperand& o, const std::string& name) {
  std::vector<std::string> terms;
  if (o.offset != 0) terms.push_back(std::to_string(o.offset));
  for (std::size_t d = 0; d < o.batch_strides.size(); ++d) {
    const int64_t s = o.batch_strides[d];
    if (s == 0) continue;
    const std::string x = "x" + std::to_string(d);
    terms.push_back(s == 1 ? x : std::to_string(s) + " * " + x);
  }
  if (terms.empty()) return name;
  return name + " + " + (terms.size() == 1 ? terms[0] : "(" + join(terms, " + ") + ")");
}

KernelCode matmul(const ir::Program& p, const Buffer& b, const std::string& function,
                  const std::vector<std::string>& names, std::set<std::string>& sections) {
  // stax_rt::matmul runs the GEMM on IsaNative, which may be any set of the table.
  sections.insert("matmul");
  for (const IsaRecord& r : isa_table()) sections.insert(r.section());
  const ir::Matmul& mm = b.matmul;
  KernelCode k;
  k.function = function;
  const Signature sig = signature(p, b, {mm.a.buffer, mm.b.buffer}, function, names, false);
  k.params = sig.params;
  const std::string T = cxx_type(b.dtype);
  auto name = [&](BufferId id) { return names[static_cast<std::size_t>(id)]; };

  CodeWriter out;
  out.line(kernel_comment(b) + " ([" + std::to_string(mm.m) + ", " + std::to_string(mm.k) +
           "] x [" + std::to_string(mm.k) + ", " + std::to_string(mm.n) + "]" +
           (mm.batch.empty() ? "" : " per batch " + shape_str(mm.batch)) + ")");
  out.open(sig.text);
  open_x_loops(out, mm.batch);
  // The output batch offset: row-major over the batch dims, times the matrix size.
  std::vector<Index> xs;
  for (std::size_t d = 0; d < mm.batch.size(); ++d) xs.push_back(Index::var(ir::xvar(static_cast<int32_t>(d))));
  const Index out_offset = ir::flat_index(xs, mm.batch) * (mm.m * mm.n);
  std::string c = name(b.id);
  // A sum is left unparenthesized: + binds the same either way.
  if (!out_offset.is_const(0)) c += " + " + index_cxx(out_offset);
  out.line("stax_rt::matmul<" + T + ">(" + operand_base(mm.a, name(mm.a.buffer)) + ", " +
           std::to_string(mm.a.row_stride) + ", " + std::to_string(mm.a.col_stride) + ", " +
           operand_base(mm.b, name(mm.b.buffer)) + ", " + std::to_string(mm.b.row_stride) + ", " +
           std::to_string(mm.b.col_stride) + ", " + c + ", " + std::to_string(mm.m) + ", " +
           std::to_string(mm.n) + ", " + std::to_string(mm.k) + ");");
  close_loops(out, mm.batch.size());
  out.close();
  k.text = out.str();
  return k;
}

}  // namespace

KernelCode emit_kernel(const ir::Program& p, const Buffer& b, const std::string& function,
                       const std::vector<std::string>& names, std::set<std::string>& sections) {
  sections.insert("core");
  switch (b.kind) {
    case ir::BufferKind::Scan: return scan(p, b, function, names, sections);
    case ir::BufferKind::Extern: return matmul(p, b, function, names, sections);
    case ir::BufferKind::Pointwise:
    case ir::BufferKind::Reduction:
    case ir::BufferKind::Input:
    case ir::BufferKind::Constant: break;
  }
  internal_error(__FILE__, __LINE__, "emit_kernel of a buffer that is not a scan or an extern: " + b.name);
}

// ---- Loop kernels of the schedule ------------------------------------------------------------

namespace {

using scheduler::Kernel;
using scheduler::KernelNode;
using scheduler::LoopGroup;

// An index of node n's body on the kernel's loop variables (x0.. outer then the group's inner,
// r0.. the group's reduction loops).
Index kernel_index(const KernelNode& n, const Index& e) {
  return ir::simplify(ir::substitute(e, n.loops.reindex), n.loops.ranges());
}

// `acc` renamed to `name` in an Accumulator's texts (patterns use the word "acc" only as the
// variable).
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

std::optional<ColumnAccumulator> column_accumulator(const Buffer& b, const std::string& isa) {
  std::optional<VecAccumulator> va = vec_accumulator(b, isa);
  if (!va) return std::nullopt;
  const std::string N = std::to_string(kColumnBlock);
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

bool kernel_may_fail(const ir::Program& p, const Kernel& k) {
  for (const KernelNode& n : k.nodes)
    if (p[n.buffer].body && BodyEmitter::has_checked_division(p[n.buffer].body)) return true;
  return false;
}

std::string node_summary(const ir::Program& p, const KernelNode& n) {
  const Buffer& b = p[n.buffer];
  std::string what = b.kind == ir::BufferKind::Reduction
                         ? "reduction " + std::string(ir::reduce_op_name(b.reduce_op))
                         : std::string("pointwise");
  return n.name + " " + b.name + ": " + shape_text(b) + ", " + what + "; computes " + join(b.origins, ", ");
}

}  // namespace

namespace {

// A pointwise nest whose outer loops are the whole nest (one or more pointwise groups without
// inner loops): its innermost outer loop is the contiguous (vector) loop.
bool is_whole_nest(const Kernel& k) {
  for (const LoopGroup& g : k.loop_groups)
    if (g.reduction || !g.inner.empty()) return false;
  return true;
}

}  // namespace

std::size_t parallel_depth(const Kernel& k) {
  const std::vector<int64_t>& outer = k.outer;
  // Fewer iterations than two threads' minimum chunks never pay (line 4 with P = 2).
  if (kernel_work(k) < 2 * kMinChunk) return 0;
  // When the outer loops are the whole nest, the innermost is the contiguous (vector) loop and
  // stays out of the collapse, unless it is the only loop.
  const std::size_t limit = is_whole_nest(k) && outer.size() > 1 ? outer.size() - 1 : outer.size();
  std::size_t d = 0;
  int64_t par = 1;
  while (d < limit && par < 2 * kMaxThreadsPlanned) par *= outer[d++];
  return par > 1 ? d : 0;
}

int64_t kernel_work(const Kernel& k) {
  int64_t per_outer = 0;
  for (const LoopGroup& g : k.loop_groups) per_outer += product(g.inner) * product(g.reduce);
  return product(k.outer) * per_outer;
}

bool can_share_region(const ir::Program& p, const Kernel& k) {
  if (k.loop_groups.empty() || parallel_depth(k) == 0 || kernel_may_fail(p, k)) return false;
  // A single pointwise loop of one block or less runs serially when vectorized (see
  // emit_loop_kernel), so it has no worksharing loop to share a region with.
  return !(is_whole_nest(k) && k.outer.size() == 1 && k.outer[0] <= kBlock);
}

namespace {

// `e` with the variables of `vars` set to 0.
Index without_vars(const Index& e, const std::vector<Var>& vars, const ir::VarRanges& ranges) {
  std::map<Var, Index> zero;
  for (Var v : vars) zero[v] = Index::constant(0);
  return ir::simplify(ir::substitute(e, zero), ranges);
}

std::vector<Var> outer_vars(const Kernel& k) {
  std::vector<Var> vs;
  for (std::size_t i = 0; i < k.outer.size(); ++i) vs.push_back(ir::xvar(static_cast<int32_t>(i)));
  return vs;
}

// The variables of node n's loops inside the outer ones (its group's inner and reduction loops).
std::vector<Var> inside_vars(const Kernel& k, const KernelNode& n) {
  std::vector<Var> vs;
  for (std::size_t i = k.outer.size(); i < n.loops.x.size(); ++i) vs.push_back(ir::xvar(static_cast<int32_t>(i)));
  for (std::size_t i = 0; i < n.loops.r.size(); ++i) vs.push_back(ir::rvar(static_cast<int32_t>(i)));
  return vs;
}

// The part of an access of node n inside one outer iteration: `e` = slab + part, where slab
// depends on the outer variables only and equals `slab`; nullopt otherwise.
std::optional<Index> row_part(const Kernel& k, const KernelNode& n, const Index& e, const Index& slab) {
  const ir::VarRanges ranges = n.loops.ranges();
  if (without_vars(e, inside_vars(k, n), ranges) != slab) return std::nullopt;
  Index part = without_vars(e, outer_vars(k), ranges);
  if (ir::simplify(slab + part, ranges) != e) return std::nullopt;
  return part;
}

struct Reader {
  const KernelNode* node;
  Index index;  // on kernel variables
};

}  // namespace

std::vector<Residence> buffer_residence(const ir::Program& p, const scheduler::Schedule& s) {
  std::vector<Residence> where(p.buffers.size(), Residence::Memory);
  for (const Kernel& k : s.kernels) {
    if (k.loop_groups.empty()) continue;
    // The loads of every node, once (kernels hold up to 128 nodes).
    std::vector<std::vector<ir::LoadRef>> loads;
    for (const KernelNode& n : k.nodes) loads.push_back(p[n.buffer].body ? ir::collect_loads(p[n.buffer].body) : std::vector<ir::LoadRef>{});
    for (BufferId id : k.internal) {
      const KernelNode* writer = nullptr;
      for (const KernelNode& n : k.nodes)
        if (n.buffer == id) writer = &n;
      if (writer == nullptr) continue;
      // Every load of it by the other nodes of the kernel (the only readers: it is internal).
      std::vector<Reader> readers;
      bool after_writer = true;
      bool seen_writer = false;
      for (std::size_t ni = 0; ni < k.nodes.size(); ++ni) {
        const KernelNode& n = k.nodes[ni];
        if (&n == writer) {
          seen_writer = true;
          continue;
        }
        for (const ir::LoadRef& l : loads[ni]) {
          if (l.buffer != id) continue;
          after_writer = after_writer && seen_writer;
          readers.push_back({&n, kernel_index(n, l.index)});
        }
      }
      if (!after_writer) continue;
      const LoopGroup& wg = k.loop_groups[static_cast<std::size_t>(writer->loop_group)];
      const bool reduction = p[id].kind == ir::BufferKind::Reduction;
      const Index written = kernel_index(*writer, p[id].write_index());
      // Scalar: pointwise read later in the same group, or a per-outer-iteration reduction read
      // by later groups, always at the element written.
      bool scalar = !(reduction && !wg.inner.empty());
      for (const Reader& r : readers) {
        const bool placed = reduction ? r.node->loop_group > writer->loop_group
                                      : r.node->loop_group == writer->loop_group;
        scalar = scalar && placed && r.index == written;
      }
      if (scalar) {
        where[static_cast<std::size_t>(id)] = Residence::Scalar;
        continue;
      }
      // Row: the outer iteration owns one slab of product(inner) elements, written whole by the
      // writer's inner loops and read only there.
      if (k.outer.empty()) continue;
      const int64_t row = product(wg.inner);
      const ir::Buffer& b = p[id];
      if (row * static_cast<int64_t>(dtype_size(b.dtype)) > kMaxRowBytes || b.numel() != product(k.outer) * row) continue;
      std::vector<Index> xs;
      for (std::size_t i = 0; i < k.outer.size(); ++i) xs.push_back(Index::var(ir::xvar(static_cast<int32_t>(i))));
      const Index slab = ir::simplify(ir::flat_index(xs, k.outer) * row, writer->loops.ranges());
      bool ok = row_part(k, *writer, written, slab).has_value();
      for (const Reader& r : readers) ok = ok && row_part(k, *r.node, r.index, slab).has_value();
      if (ok) where[static_cast<std::size_t>(id)] = Residence::Row;
    }
  }
  return where;
}

KernelCode emit_loop_kernel(const ir::Program& p, const Kernel& k, const std::string& function,
                            const std::vector<std::string>& names, const std::vector<Residence>& where,
                            ParallelMode mode, const std::string& isa_tag, std::set<std::string>& sections) {
  // Vector types name the instruction set through a short alias declared in the kernel.
  const std::string isa = isa_tag.empty() ? std::string() : std::string("ISA");
  sections.insert("core");
  const bool fallible = kernel_may_fail(p, k);
  auto residence = [&](BufferId id) { return where[static_cast<std::size_t>(id)]; };
  auto is_local = [&](BufferId id) { return residence(id) != Residence::Memory; };
  auto name = [&](BufferId id) { return names[static_cast<std::size_t>(id)]; };

  // Parameters: the buffers read from memory (first-read order), then those written to memory.
  KernelCode code;
  code.function = function;
  code.fallible = fallible;
  std::vector<std::string> params;
  std::vector<BufferId> written;
  for (const KernelNode& n : k.nodes)
    if (!is_local(n.buffer)) written.push_back(n.buffer);
  for (const KernelNode& n : k.nodes) {
    for (BufferId id : loaded_buffers(p[n.buffer].body)) {
      const bool own = std::find_if(k.nodes.begin(), k.nodes.end(),
                                    [id](const KernelNode& m) { return m.buffer == id; }) != k.nodes.end();
      if (own || std::find(code.params.begin(), code.params.end(), id) != code.params.end()) continue;
      code.params.push_back(id);
      params.push_back("const " + cxx_type(p[id].dtype) + "* " + name(id));
    }
  }
  for (BufferId id : written) {
    code.params.push_back(id);
    params.push_back(cxx_type(p[id].dtype) + "* " + name(id));
  }

  CodeWriter out;
  out.line("// kernel " + k.name + " (" + std::string(scheduler::kernel_kind_name(k.kind)) + "): computes " +
           join(k.graph_nodes, ", "));
  for (const KernelNode& n : k.nodes)
    out.line("//   " + node_summary(p, n) +
             (residence(n.buffer) == Residence::Scalar ? " (kept in a local)"
              : residence(n.buffer) == Residence::Row  ? " (one row at a time, kept in a local array)"
                                                       : ""));
  out.open(std::string(fallible ? "int " : "void ") + function + "(" + join(params, ", ") + ")");
  if (fallible) out.line("int err = 0;");

  const std::size_t depth = k.outer.size();
  const std::size_t par = mode == ParallelMode::Serial ? 0 : parallel_depth(k);
  // Row-local arrays: one outer iteration's slab, private to the thread running it.
  std::vector<Index> xs;
  for (std::size_t i = 0; i < depth; ++i) xs.push_back(Index::var(ir::xvar(static_cast<int32_t>(i))));
  std::map<BufferId, Index> slabs;
  for (const KernelNode& n : k.nodes) {
    if (residence(n.buffer) != Residence::Row) continue;
    const LoopGroup& g = k.loop_groups[static_cast<std::size_t>(n.loop_group)];
    slabs.emplace(n.buffer, ir::simplify(ir::flat_index(xs, k.outer) * product(g.inner), n.loops.ranges()));
  }
  // The index of an access of node n to a row-local buffer: its part inside the slab.
  auto row_index = [&](const KernelNode& n, BufferId id, const Index& e) {
    const std::optional<Index> part = row_part(k, n, kernel_index(n, e), slabs.at(id));
    STAX_ASSERT(part.has_value(), "row-local access outside its slab: " + p[id].name);
    return bare(index_cxx(*part));
  };
  auto row_access = [&](const KernelNode& n, BufferId id, const Index& e) {
    return name(id) + "[" + row_index(n, id, e) + "]";
  };
  // Where node n stores element `write` (text of the scalar element, or of the vector's address).
  auto store_index = [&](const KernelNode& n) {
    if (residence(n.buffer) == Residence::Row) return row_index(n, n.buffer, p[n.buffer].write_index());
    return bare(index_cxx(kernel_index(n, p[n.buffer].write_index())));
  };
  // Transposed loads staged through an L1 tile (the 2-D tiled form, §8.2): (buffer, index on
  // kernel variables) -> the tile's name and its element at the current point.
  std::map<std::pair<BufferId, Index>, std::string> tiles;
  std::string tile_at;  // the text of the element index into a tile at the current point
  auto tile_of = [&](const KernelNode& n, BufferId id, const Index& e) -> const std::string* {
    if (tiles.empty()) return nullptr;
    auto it = tiles.find({id, kernel_index(n, e)});
    return it == tiles.end() ? nullptr : &it->second;
  };
  // The statement giving node n's scalar value: a local, or a store to memory or its row array.
  auto store_value = [&](CodeWriter& w, const KernelNode& n, const std::string& value) {
    if (residence(n.buffer) == Residence::Scalar)
      w.line("const " + cxx_type(p[n.buffer].dtype) + " " + name(n.buffer) + " = " + value + ";");
    else w.line(name(n.buffer) + "[" + store_index(n) + "] = " + value + ";");
  };
  auto local_text = [&](const KernelNode& n, BufferId id, const Index& e) {
    if (const std::string* tile = tile_of(n, id, e)) return *tile + "[" + tile_at + "]";
    switch (residence(id)) {
      case Residence::Scalar: return name(id);
      case Residence::Row: return row_access(n, id, e);
      case Residence::Memory: break;
    }
    return std::string();
  };

  int temps = 0;
  bool vectorized = false;
  // Scalar code of node n's body; its value's text.
  auto emit_body = [&](const KernelNode& n, CodeWriter& w) {
    auto index_text = [&n](const Index& e) { return index_cxx(kernel_index(n, e)); };
    BodyEmitter body(name, index_text, sections, temps);
    body.set_local_loads([&](BufferId id, const Index& e) { return local_text(n, id, e); });
    return bare(body.emit(p[n.buffer].body, w));
  };
  // A vector emitter for node n's body, lanes along `var` (§8.1).
  auto vec_emitter = [&](const KernelNode& n, Var var) {
    auto index_text = [&n](const Index& e) { return index_cxx(kernel_index(n, e)); };
    // A tiled load reads its tile contiguously along `var`.
    auto rewrite = [&n, &tiles, var](const Index& e) {
      const Index at = kernel_index(n, e);
      for (const auto& [key, tile] : tiles)
        if (key.second == at) return Index::var(var);
      return at;
    };
    VecBodyEmitter body(name, index_text, rewrite, var, isa, sections, temps);
    body.set_local_loads([&](BufferId id, const Index&) {
      return residence(id) == Residence::Scalar ? name(id) : std::string();
    });
    body.set_load_address([&](BufferId id, const Index& e) -> std::optional<std::pair<std::string, std::string>> {
      if (const std::string* tile = tile_of(n, id, e)) return std::pair<std::string, std::string>{*tile, tile_at};
      if (residence(id) != Residence::Row) return std::nullopt;
      return std::pair<std::string, std::string>{name(id), row_index(n, id, e)};
    });
    return body;
  };
  // True when every node of `nodes` has a vector form along `var`, and stores its value
  // contiguously (a local keeps the lanes whatever its index).
  auto vectorizable = [&](const std::vector<int>& nodes, Var var, int64_t trip) {
    if (isa.empty() || trip < kMinVectorTrip) return false;
    for (int idx : nodes) {
      const KernelNode& n = k.nodes[static_cast<std::size_t>(idx)];
      const ir::Buffer& b = p[n.buffer];
      if (!vec_emitter(n, var).why_not(b.body).empty()) return false;
      if (residence(n.buffer) == Residence::Scalar && b.kind == ir::BufferKind::Pointwise) continue;
      if (b.kind == ir::BufferKind::Pointwise &&
          lane_stride(kernel_index(n, b.write_index()), var) != std::optional<int64_t>(1))
        return false;
    }
    return true;
  };
  // Pointwise nodes at one point (scalar) or W points (vector) of their loops; `streaming`:
  // vector stores to memory are non-temporal (their address 64-byte aligned).
  bool streaming = false;
  auto pointwise_nodes = [&](const std::vector<int>& nodes, CodeWriter& w, const Var* vec_var) {
    for (int idx : nodes) {
      const KernelNode& n = k.nodes[static_cast<std::size_t>(idx)];
      const DType dt = p[n.buffer].dtype;
      const std::string ptr = residence(n.buffer) == Residence::Memory || residence(n.buffer) == Residence::Row
                                  ? name(n.buffer) + " + (" + store_index(n) + ")"
                                  : std::string();
      if (vec_var != nullptr) {
        VecBodyEmitter body = vec_emitter(n, *vec_var);
        const std::string v = body.emit(p[n.buffer].body, w);  // parenthesized: `v.storeu` follows
        if (residence(n.buffer) == Residence::Scalar) w.line("const auto " + name(n.buffer) + " = " + v + ";");
        else w.line(streaming ? vec_stream(v, ptr) : vec_store(dt, v, ptr));
        continue;
      }
      const std::string v = emit_body(n, w);
      store_value(w, n, v);
    }
  };
  // The innermost loop `var` over [begin, end): W lanes at a time, then one at a time (§8.3's
  // vectorized form with a scalar remainder).
  auto strip_mined = [&](CodeWriter& w, const std::string& var, const std::string& begin, const std::string& end,
                         const std::function<void(CodeWriter&)>& vector_body,
                         const std::function<void(CodeWriter&)>& scalar_body) {
    vectorized = true;
    // Bounds the C++ compiler can see through (a loop variable carried from the vector loop
    // into the remainder draws false -Waggressive-loop-optimizations warnings at -O3).
    const std::string vend = begin == "0" ? end + " / W * W" : begin + " + (" + end + " - " + begin + ") / W * W";
    w.open("for (int64_t " + var + " = " + begin + "; " + var + " < " + vend + "; " + var + " += W)");
    vector_body(w);
    w.close();
    w.open("for (int64_t " + var + " = " + vend + "; " + var + " < " + end + "; ++" + var + ")");
    scalar_body(w);
    w.close();
  };

  // A large output is written around the cache: plain stores read every line first
  // (write-allocate), non-temporal ones do not (§8.1). For a vector loop whose group stores one
  // buffer to memory, contiguously along the loop, that no later group of the kernel reads: the
  // elements up to its 64-byte boundary plainly, then whole vectors streamed, then the remainder.
  struct StreamPlan {
    const KernelNode* node;
    Index base;  // the stored index minus the vector variable
  };
  auto stream_plan = [&](const std::vector<int>& nodes, Var var) -> std::optional<StreamPlan> {
    const KernelNode* stored = nullptr;
    int stores = 0;
    for (int idx : nodes) {
      const KernelNode& node = k.nodes[static_cast<std::size_t>(idx)];
      if (residence(node.buffer) != Residence::Memory) continue;
      ++stores;
      stored = &node;
    }
    if (stores != 1) return std::nullopt;
    const Buffer& b = p[stored->buffer];
    if (b.dtype == DType::Bool || b.numel() * static_cast<int64_t>(dtype_size(b.dtype)) < kStreamMinBytes) return std::nullopt;
    if (std::find(k.internal.begin(), k.internal.end(), stored->buffer) != k.internal.end()) return std::nullopt;
    for (const KernelNode& n : k.nodes)  // read again later in the kernel: keep it in the cache
      if (n.loop_group > stored->loop_group && p[n.buffer].body)
        for (const ir::LoadRef& l : ir::collect_loads(p[n.buffer].body))
          if (l.buffer == stored->buffer) return std::nullopt;
    const Index written = kernel_index(*stored, b.write_index());
    const Index base = without_vars(written, {var}, stored->loops.ranges());
    if (ir::simplify(base + Index::var(var), stored->loops.ranges()) != written) return std::nullopt;
    return StreamPlan{stored, base};
  };
  // `fence`: the fence follows the loop (otherwise the caller writes it after a group of such
  // loops, as the tiled form does once per tile).
  auto streamed_loop = [&](CodeWriter& w, const StreamPlan& sp, const std::string& vname, const std::string& begin,
                           const std::string& end, const std::function<void(CodeWriter&)>& vector_body,
                           const std::function<void(CodeWriter&)>& scalar_body, bool fence = true) {
    const std::string ptr = name(sp.node->buffer) + (sp.base.is_const(0) ? "" : " + (" + bare(index_cxx(sp.base)) + ")");
    if (begin == "0") w.line("const int64_t s0 = stax_rt::aligned_start(" + ptr + ", " + end + ");");
    else
      w.line("const int64_t s0 = " + begin + " + stax_rt::aligned_start(" + ptr + " + " + begin + ", " + end + " - " +
             begin + ");");
    w.open("for (int64_t " + vname + " = " + begin + "; " + vname + " < s0; ++" + vname + ")");
    scalar_body(w);
    w.close();
    streaming = true;
    strip_mined(w, vname, "s0", end, vector_body, scalar_body);
    streaming = false;
    if (fence) w.line("stax_rt::stream_fence();");
  };

  // The address `count` rows further on of the load of `id` at `at`, rows `stride` elements
  // apart, added to `addresses` once (what a prefetch asks for).
  auto add_prefetch = [&](std::vector<std::string>& addresses, BufferId id, const Index& at, const std::string& count,
                          int64_t stride) {
    const std::string address = name(id) + " + (" + bare(index_cxx(at)) + ") + " + count + " * " +
                                (stride < 0 ? "(" + std::to_string(stride) + ")" : std::to_string(stride));
    if (std::find(addresses.begin(), addresses.end(), address) == addresses.end()) addresses.push_back(address);
  };

  CodeWriter loops;
  auto parallel_pragma_text = [&](std::size_t collapse) {
    std::string pragma = mode == ParallelMode::Shared ? "#pragma omp for" : "#pragma omp parallel for";
    if (collapse > 1) pragma += " collapse(" + std::to_string(collapse) + ")";
    pragma += " schedule(static)";
    if (fallible) pragma += " reduction(|:err)";
    if (mode == ParallelMode::Standalone)
      pragma += " if (" + std::to_string(kernel_work(k)) + " >= " + std::to_string(kMinChunk) +
                " * static_cast<int64_t>(omp_get_max_threads()))";
    return pragma;
  };

  // The position argmax/argmin report for reduction node n: row-major over its buffer's
  // reduction ranges (an index of the body, on the buffer's own variables).
  auto position = [&](const KernelNode& n) {
    const Buffer& b = p[n.buffer];
    std::vector<Index> rs;
    for (Var r : b.reduce_vars()) rs.push_back(Index::var(r));
    return ir::flat_index(rs, b.reduce_ranges);
  };
  // The positions of the W lanes along `var` as a vector of `dt` (iota along the reduction
  // loop, one broadcast position across the columns of a column reduction).
  auto lane_positions = [&](const KernelNode& n, Var var, DType dt, CodeWriter& w) {
    VecBodyEmitter body = vec_emitter(n, var);
    return bare(body.emit(ir::index_value(position(n), dt), w));
  };

  // A reduction group at one point of the outer loops: its inner loops, one accumulator per
  // node (several for a horizontal group, example 7.2), the innermost reduction loop in vector
  // form when it can be, the results stored or kept.
  // The accumulators of a reduction group at one point of the outer loops: one per node
  // (several for a horizontal group, example 7.2), declared where the group begins, and their
  // vector form when the innermost reduction loop can take it: W lane accumulators per node,
  // combined after the loops (Proposition 8.1); float32 sums and products in float64 lanes,
  // argmax/argmin in stax_rt::ArgLanes.
  struct GroupAccumulators {
    const LoopGroup* group;
    Var rvar;
    std::vector<Accumulator> accs;
    std::vector<std::string> names;
    std::vector<VecAccumulator> vaccs;
    bool vec;
  };
  auto declare_accumulators = [&](CodeWriter& w, const LoopGroup& g) {
    GroupAccumulators ga{&g, ir::rvar(static_cast<int32_t>(g.reduce.size() - 1)), {}, {}, {}, false};
    for (int idx : g.nodes) {
      const KernelNode& n = k.nodes[static_cast<std::size_t>(idx)];
      const Buffer& b = p[n.buffer];
      if (b.reduce_op == ir::ReduceOp::ArgMax || b.reduce_op == ir::ReduceOp::ArgMin) sections.insert("reduce");
      ga.accs.push_back(reduction_accumulator(b.reduce_op, b.dtype, b.body.dtype()));
      ga.names.push_back("acc" + std::to_string(idx));
      w.line(ga.accs.back().type + " " + ga.names.back() + " = " + ga.accs.back().init + ";");
    }
    ga.vec = !g.reduce.empty() && vectorizable(g.nodes, ga.rvar, g.reduce.back());
    for (int idx : g.nodes) {
      std::optional<VecAccumulator> va = vec_accumulator(p[k.nodes[static_cast<std::size_t>(idx)].buffer], isa);
      if (!va) ga.vec = false;
      else ga.vaccs.push_back(*va);
    }
    if (ga.vec)
      for (std::size_t j = 0; j < g.nodes.size(); ++j)
        w.line(ga.vaccs[j].type + " v" + ga.names[j] + "(" + ga.vaccs[j].init + ");");
    return ga;
  };
  auto scalar_updates = [&](CodeWriter& w, const GroupAccumulators& ga) {
    for (std::size_t j = 0; j < ga.group->nodes.size(); ++j) {
      const KernelNode& n = k.nodes[static_cast<std::size_t>(ga.group->nodes[j])];
      const std::string v = emit_body(n, w);
      const std::string pos = index_cxx(kernel_index(n, position(n)));
      w.line(fill(rename_acc(ga.accs[j].update, ga.names[j]), v, pos));
    }
  };
  auto vector_updates = [&](CodeWriter& w, const GroupAccumulators& ga) {
    for (std::size_t j = 0; j < ga.group->nodes.size(); ++j) {
      const KernelNode& n = k.nodes[static_cast<std::size_t>(ga.group->nodes[j])];
      VecBodyEmitter body = vec_emitter(n, ga.rvar);
      const std::string v = bare(body.emit(p[n.buffer].body, w));  // an argument
      const std::string pos = ga.vaccs[j].position ? lane_positions(n, ga.rvar, *ga.vaccs[j].position, w) : "";
      w.line(fill(rename_acc(ga.vaccs[j].update, "v" + ga.names[j]), v, pos));
    }
  };
  // After the reduction loops: the lanes combined, the results stored or kept.
  auto finish_accumulators = [&](CodeWriter& w, const GroupAccumulators& ga) {
    if (ga.vec)
      for (std::size_t j = 0; j < ga.group->nodes.size(); ++j)
        w.line(fill(rename_acc(ga.vaccs[j].combine, ga.names[j]), "v" + ga.names[j]));
    for (std::size_t j = 0; j < ga.group->nodes.size(); ++j) {
      const KernelNode& n = k.nodes[static_cast<std::size_t>(ga.group->nodes[j])];
      store_value(w, n, rename_acc(ga.accs[j].result, ga.names[j]));
    }
  };
  // A reduction group at one point of the outer loops: its inner loops, the accumulators, the
  // innermost reduction loop in vector form when it can be, the results stored or kept.
  auto reduction_group = [&](CodeWriter& w, const LoopGroup& g) {
    for (std::size_t i = 0; i < g.inner.size(); ++i) w.open(loop_head("x" + std::to_string(depth + i), g.inner[i]));
    const GroupAccumulators ga = declare_accumulators(w, g);
    const std::size_t plain = ga.vec ? g.reduce.size() - 1 : g.reduce.size();
    for (std::size_t i = 0; i < plain; ++i) w.open(loop_head("r" + std::to_string(i), g.reduce[i]));
    if (ga.vec)
      strip_mined(w, ir::var_name(ga.rvar), "0", std::to_string(g.reduce.back()),
                  [&](CodeWriter& vw) { vector_updates(vw, ga); }, [&](CodeWriter& sw) { scalar_updates(sw, ga); });
    else
      scalar_updates(w, ga);
    close_loops(w, plain);
    finish_accumulators(w, ga);
    close_loops(w, g.inner.size());
  };

  // A pointwise nest whose outer loops are the whole nest: the innermost outer loop is the
  // vector loop; when it is also the parallel one, the threads share it in blocks of kBlock.
  bool whole_nest = is_whole_nest(k);
  const LoopGroup& first = k.loop_groups.front();
  for (const KernelNode& n : k.nodes) whole_nest = whole_nest && residence(n.buffer) != Residence::Row;
  // The 2-D tiled form (§8.2): a pointwise nest reading something transposed (contiguous along
  // the second-to-last loop a, strided along the last b). Tiles of kTile x kTile: each transposed
  // read is first staged into a tile in L1, its rows read contiguously and transposed in
  // registers (stax_rt::transpose_tile), then the tile is read contiguously along b, the vector
  // loop like any other, which also reads the straight operands and stores along b.
  bool tiled = whole_nest && depth >= 2 && k.loop_groups.size() == 1 && !isa.empty() &&
               k.outer[depth - 2] >= kMinVectorTrip && k.outer[depth - 1] >= kMinVectorTrip;
  const Var tile_a = ir::xvar(static_cast<int32_t>(depth >= 2 ? depth - 2 : 0));
  const Var tile_b = ir::xvar(static_cast<int32_t>(depth >= 1 ? depth - 1 : 0));
  std::vector<std::tuple<BufferId, Index, const KernelNode*>> transposed;
  for (int idx : first.nodes) {
    if (!tiled) break;
    const KernelNode& n = k.nodes[static_cast<std::size_t>(idx)];
    const ir::Buffer& b = p[n.buffer];
    for (const Expr& e : ir::topo_order(b.body)) {
      if (e.op() == ir::ExprOp::Masked) tiled = false;  // a masked-off read may be out of bounds
      if (e.op() != ir::ExprOp::Load || residence(e.buffer()) != Residence::Memory) continue;
      const Index at = kernel_index(n, e.index());
      const std::optional<int64_t> sb = lane_stride(at, tile_b), sa = lane_stride(at, tile_a);
      if (sb && (*sb == 0 || *sb == 1)) continue;
      if (sb && sa == std::optional<int64_t>(1)) {
        bool seen = false;
        for (const auto& t : transposed) seen = seen || (std::get<0>(t) == e.buffer() && std::get<1>(t) == at);
        if (!seen) transposed.emplace_back(e.buffer(), at, &n);
      } else {
        tiled = false;
      }
    }
  }
  tiled = tiled && !transposed.empty();
  if (tiled) {
    for (const auto& [id, at, node] : transposed) tiles[{id, at}] = "tile" + std::to_string(tiles.size());
    tiled = vectorizable(first.nodes, tile_b, k.outer[depth - 1]);
    if (!tiled) tiles.clear();
  }
  if (tiled) {
    sections.insert("vec_transpose");
    const std::string T = std::to_string(kTile);
    const std::string va = ir::var_name(tile_a), vb = ir::var_name(tile_b);
    const int64_t na = k.outer[depth - 2], nb = k.outer[depth - 1];
    // A transposed read at element (a, b) is rest + a + stride * b (lane_stride: both appear
    // linearly, a with coefficient 1), rest free of both: its tile's source is `rest + b0 +
    // stride * b1`, rows `stride` apart. `row` is the text of b.
    auto source = [&](BufferId id, const Index& at, const KernelNode& n, const std::string& row) {
      const ir::VarRanges ranges = n.loops.ranges();
      const Index rest = without_vars(at, {tile_a, tile_b}, ranges);
      const int64_t stride = *lane_stride(at, tile_b);
      STAX_ASSERT(ir::simplify(rest + Index::var(tile_a) + Index::var(tile_b) * stride, ranges) == at,
                  "a tiled read that is not affine in the tile's loops: " + p[id].name);
      std::vector<std::string> terms;
      if (!rest.is_const(0)) terms.push_back(bare(index_cxx(rest)));
      terms.push_back("b0");
      terms.push_back(std::to_string(stride) + " * " + row);
      return std::make_pair(name(id) + " + (" + join(terms, " + ") + ")", std::to_string(stride));
    };
    // Shared among the threads: the outer loops and the row tiles.
    if (par > 0) loops.raw(parallel_pragma_text(depth - 1));
    for (std::size_t i = 0; i + 2 < depth; ++i) loops.open(loop_head("x" + std::to_string(i), k.outer[i]));
    loops.open("for (int64_t b0 = 0; b0 < " + std::to_string(na) + "; b0 += " + T + ")");
    loops.open("for (int64_t b1 = 0; b1 < " + std::to_string(nb) + "; b1 += " + T + ")");
    // A tile's end; a side that kTile divides has whole tiles only, and loops of a constant trip
    // count, which the C++ compiler unrolls and schedules better (the 4096 x 4096 transpose-add:
    // 19 -> 17 ms on 2 threads).
    auto tile_end = [&](const std::string& e, const std::string& b, int64_t extent) {
      const std::string n = std::to_string(extent);
      loops.line("const int64_t " + e + " = " + b + " + " + T +
                 (extent % kTile == 0 ? ";" : " < " + n + " ? " + b + " + " + T + " : " + n + ";"));
    };
    tile_end("e0", "b0", na);
    tile_end("e1", "b1", nb);
    tile_at = "(" + va + " - b0) * " + T + " + (" + vb + " - b1)";
    // tile[(a - b0) * T + (b - b1)] = the read at (a, b): source rows b, each e0 - b0 long.
    for (const auto& [id, at, node] : transposed) {
      const std::string& tile = tiles.at({id, at});
      const auto [from, stride] = source(id, at, *node, "b1");
      loops.line("// " + tile + "[" + tile_at + "] = " + name(id) + "[" + bare(index_cxx(at)) + "]");
      loops.line("alignas(64) " + cxx_type(p[id].dtype) + " " + tile + "[" + std::to_string(kTile * kTile) + "];");
      loops.line("stax_rt::transpose_tile<ISA>(" + from + ", " + stride + ", e1 - b1, e0 - b0, " + tile + ", " + T + ");");
    }
    const std::optional<StreamPlan> plan = stream_plan(first.nodes, tile_b);
    loops.open("for (int64_t " + va + " = b0; " + va + " < e0; ++" + va + ")");
    // While row a of this tile is computed, row a - b0 of the next tile along b is asked for: its
    // rows are short runs far apart, which the hardware prefetchers do not guess.
    if (nb > kTile) {
      loops.line("const int64_t next = b1 + " + T + " + (" + va + " - b0);  // a row of the next tile");
      for (const auto& [id, at, node] : transposed)
        loops.line("if (next < " + std::to_string(nb) + ") stax_rt::prefetch_span(" +
                   source(id, at, *node, "next").first + ", e0 - b0);");
    }
    auto vector_body = [&](CodeWriter& w) { pointwise_nodes(first.nodes, w, &tile_b); };
    auto scalar_body = [&](CodeWriter& w) { pointwise_nodes(first.nodes, w, nullptr); };
    if (plan) streamed_loop(loops, *plan, vb, "b1", "e1", vector_body, scalar_body, false);
    else strip_mined(loops, vb, "b1", "e1", vector_body, scalar_body);
    loops.close();
    if (plan) loops.line("stax_rt::stream_fence();  // once per tile");
    loops.close();
    loops.close();
    close_loops(loops, depth - 2);
  } else {
  const Var last_outer = ir::xvar(static_cast<int32_t>(depth > 0 ? depth - 1 : 0));
  const bool vector_outer = whole_nest && depth > 0 && k.loop_groups.size() == 1 &&
                            vectorizable(first.nodes, last_outer, k.outer.back());
  // A reduction over a non-innermost dimension (a column sum): its reduction loop reads with a
  // stride, so the vector runs across the contiguous outer loop instead, one lane accumulator
  // per output element (§8.1's reductions across the contiguous dimension, no gathers).
  std::vector<ColumnAccumulator> column_accs;
  bool vector_columns = !vector_outer && depth > 0 && k.loop_groups.size() == 1 && first.reduction &&
                        first.inner.empty() && !first.reduce.empty() &&
                        !vectorizable(first.nodes, ir::rvar(static_cast<int32_t>(first.reduce.size() - 1)), first.reduce.back()) &&
                        vectorizable(first.nodes, last_outer, k.outer.back());
  for (int idx : first.nodes) {
    if (!vector_columns) break;
    const KernelNode& n = k.nodes[static_cast<std::size_t>(idx)];
    const Buffer& b = p[n.buffer];
    std::optional<ColumnAccumulator> va = column_accumulator(b, isa);
    vector_columns = va.has_value() && residence(n.buffer) == Residence::Memory &&
                     lane_stride(kernel_index(n, b.write_index()), last_outer) == std::optional<int64_t>(1);
    if (va) column_accs.push_back(*va);
  }
  if (vector_outer || vector_columns) {
    const Var var = last_outer;
    const std::string v = ir::var_name(var);
    const int64_t n = k.outer.back();
    auto vector_body = [&](CodeWriter& w) { pointwise_nodes(first.nodes, w, &var); };
    auto scalar_body = [&](CodeWriter& w) { pointwise_nodes(first.nodes, w, nullptr); };
    const std::optional<StreamPlan> plan = vector_outer ? stream_plan(first.nodes, var) : std::nullopt;
    auto vector_loop = [&](CodeWriter& w, const std::string& vname, const std::string& begin, const std::string& end) {
      if (plan) streamed_loop(w, *plan, vname, begin, end, vector_body, scalar_body);
      else strip_mined(w, vname, begin, end, vector_body, scalar_body);
    };
    // Depth 1: the vector loop is the parallel loop, shared in blocks (a long pointwise loop;
    // columns of a column reduction, whose every column is a whole reduction).
    // Columns [begin, end) of a column reduction, at most kColumnBlock: one accumulator per
    // column in an array that stays in L1, each row's piece of the block read contiguously and
    // added W columns at a time (rows stream through in order; no strided reads).
    // The unmasked loads of a column reduction whose rows' pieces are not adjacent (a gap between
    // them), each as the address of the same element kPrefetchAheadBytes of pieces further on
    // ("ahead" rows, 0 near the last row: the address stays inside the operand).
    auto column_prefetches = [&](CodeWriter& w) {
      const Var row = ir::rvar(static_cast<int32_t>(first.reduce.size() - 1));
      const std::string r = ir::var_name(row);
      std::vector<std::string> addresses;
      int64_t ahead = 0;
      for (int idx : first.nodes) {
        const KernelNode& node = k.nodes[static_cast<std::size_t>(idx)];
        for (const ir::LoadRef& l : ir::collect_loads(p[node.buffer].body)) {
          const Index at = kernel_index(node, l.index);
          const std::optional<int64_t> stride = lane_stride(at, row);
          const int64_t size = static_cast<int64_t>(dtype_size(p[l.buffer].dtype));
          const int64_t piece = std::min(n, kColumnBlock);  // columns of a block
          if (l.masked || lane_stride(at, var) != std::optional<int64_t>(1) || !stride || std::abs(*stride) <= piece)
            continue;  // rows read one after the other: the hardware prefetcher follows them
          ahead = std::max<int64_t>(ahead, std::max<int64_t>(1, kPrefetchAheadBytes / (piece * size)));
          add_prefetch(addresses, l.buffer, at, "ahead", *stride);
        }
      }
      if (!addresses.empty()) {
        const std::string rows = std::to_string(first.reduce.back());
        w.line("const int64_t ahead = " + r + " + " + std::to_string(ahead) + " < " + rows + " ? " +
               std::to_string(ahead) + " : 0;  // rows prefetched ahead");
      }
      return addresses;
    };
    auto column_block = [&](CodeWriter& w, const std::string& begin, const std::string& end) {
      const std::string col = v + " - " + begin;
      for (std::size_t j = 0; j < first.nodes.size(); ++j) {
        const std::string acc = "vacc" + std::to_string(first.nodes[j]);
        w.line(rename_acc(column_accs[j].declare, acc));
        w.line("for (int64_t " + v + " = " + begin + "; " + v + " < " + end + "; ++" + v + ") " +
               fill(rename_acc(column_accs[j].init, acc), "", "", col));
      }
      for (std::size_t i = 0; i < first.reduce.size(); ++i) w.open(loop_head("r" + std::to_string(i), first.reduce[i]));
      const std::vector<std::string> prefetches = column_prefetches(w);
      strip_mined(
          w, v, begin, end,
          [&](CodeWriter& vw) {
            for (const std::string& address : prefetches) vw.line("__builtin_prefetch(" + address + ");");
            for (std::size_t j = 0; j < first.nodes.size(); ++j) {
              const KernelNode& node = k.nodes[static_cast<std::size_t>(first.nodes[j])];
              const std::string acc = "vacc" + std::to_string(first.nodes[j]);
              const ColumnAccumulator& ca = column_accs[j];
              const std::string lanes = "t" + std::to_string(temps++);
              vw.line(ca.lanes.type + " " + lanes + " = " + fill(rename_acc(ca.load, acc), "", "", col) + ";");
              VecBodyEmitter body = vec_emitter(node, var);
              const std::string value = bare(body.emit(p[node.buffer].body, vw));
              const std::string pos = ca.lanes.position ? lane_positions(node, var, *ca.lanes.position, vw) : "";
              vw.line(fill(rename_acc(ca.lanes.update, lanes), value, pos));
              vw.line(fill(rename_acc(ca.store, acc), lanes, "", col));
            }
          },
          [&](CodeWriter& sw) {
            for (std::size_t j = 0; j < first.nodes.size(); ++j) {
              const KernelNode& node = k.nodes[static_cast<std::size_t>(first.nodes[j])];
              const std::string acc = "vacc" + std::to_string(first.nodes[j]);
              const std::string value = emit_body(node, sw);
              const std::string pos = index_cxx(kernel_index(node, position(node)));
              sw.line(fill(rename_acc(column_accs[j].update, acc), value, pos, col));
            }
          });
      close_loops(w, first.reduce.size());
      w.open("for (int64_t " + v + " = " + begin + "; " + v + " < " + end + "; ++" + v + ")");
      for (std::size_t j = 0; j < first.nodes.size(); ++j) {
        const KernelNode& node = k.nodes[static_cast<std::size_t>(first.nodes[j])];
        const std::string acc = "vacc" + std::to_string(first.nodes[j]);
        w.line(name(node.buffer) + "[" + store_index(node) + "] = " + fill(rename_acc(column_accs[j].result, acc), "", "", col) + ";");
      }
      w.close();
    };
    const int64_t block = vector_outer ? kBlock : kColumnBlock;
    const int64_t blocks = (n + block - 1) / block;
    const std::string B = std::to_string(block);
    auto block_loop = [&](CodeWriter& w) {
      w.open(loop_head("b0", blocks));
      w.line("const int64_t e0 = b0 * " + B + " + " + B + " < " + std::to_string(n) + " ? b0 * " + B + " + " + B +
             " : " + std::to_string(n) + ";");
      if (vector_columns) column_block(w, "b0 * " + B, "e0");
      else vector_loop(w, v, "b0 * " + B, "e0");
      w.close();
    };
    if (depth == 1 && par == 1 && (n > kBlock || vector_columns)) {
      // Depth 1: the vector loop is the parallel loop, shared in blocks (a long pointwise loop;
      // the columns of a column reduction, each column a whole reduction).
      loops.raw(parallel_pragma_text(1));
      block_loop(loops);
    } else {
      // The outer loops but the last shared among the threads (one block or fewer of a single
      // pointwise loop: serial, its work is below two threads' chunks).
      const std::size_t shared = std::min(par, depth - 1);
      if (shared > 0) loops.raw(parallel_pragma_text(shared));
      for (std::size_t i = 0; i + 1 < depth; ++i) loops.open(loop_head("x" + std::to_string(i), k.outer[i]));
      if (vector_columns) block_loop(loops);
      else vector_loop(loops, v, "0", std::to_string(n));
      close_loops(loops, depth - 1);
    }
  } else {
    // A kernel over rows reads each row from memory in its first loop, then works on it in the
    // cache; while a later loop runs (`host` below), the row the thread takes next is fetched
    // into L2, so that the memory keeps streaming through the passes that compute. The
    // addresses: the first loop's contiguous reads of large operands at the next row ("next" is
    // 0 on the last row of the innermost outer loop: the address stays inside the operand).
    auto next_row_prefetches = [&](CodeWriter& w, Var var, const LoopGroup& g) {
      std::vector<std::string> addresses;
      if (depth == 0 || k.loop_groups.size() < 2 || g.inner.size() != 1) return addresses;
      if (first.inner.size() + first.reduce.size() != 1) return addresses;
      const Var row = ir::xvar(static_cast<int32_t>(depth - 1));
      const Var along = first.reduction ? ir::rvar(0) : ir::xvar(static_cast<int32_t>(depth));
      if ((first.reduction ? first.reduce.back() : first.inner.back()) != g.inner.back()) return addresses;
      for (int idx : first.nodes) {
        const KernelNode& node = k.nodes[static_cast<std::size_t>(idx)];
        for (const ir::LoadRef& l : ir::collect_loads(p[node.buffer].body)) {
          const Buffer& b = p[l.buffer];
          if (l.masked || residence(l.buffer) != Residence::Memory ||
              b.numel() * static_cast<int64_t>(dtype_size(b.dtype)) < kPrefetchMinBytes)
            continue;
          const Index at = kernel_index(node, l.index);
          const std::optional<int64_t> stride = lane_stride(at, row);
          if (lane_stride(at, along) != std::optional<int64_t>(1) || !stride || *stride == 0) continue;
          add_prefetch(addresses, l.buffer, ir::simplify(ir::substitute(at, {{along, Index::var(var)}}), node.loops.ranges()),
                       "next", *stride);
        }
      }
      if (!addresses.empty()) {
        const std::string r = ir::var_name(row), rows = std::to_string(k.outer[depth - 1]);
        w.line("const int64_t next = " + r + " + 1 < " + rows + " ? 1 : 0;  // the row prefetched");
      }
      return addresses;
    };
    if (par > 0) loops.raw(parallel_pragma_text(par));
    for (std::size_t i = 0; i < depth; ++i) loops.open(loop_head("x" + std::to_string(i), k.outer[i]));
    for (const KernelNode& n : k.nodes)
      if (residence(n.buffer) == Residence::Row)
        loops.line("alignas(64) " + cxx_type(p[n.buffer].dtype) + " " + name(n.buffer) + "[" +
                   std::to_string(product(k.loop_groups[static_cast<std::size_t>(n.loop_group)].inner)) + "];");
    // A reduction group right after a vector pointwise group over the same single loop, that
    // reads what the pointwise group computes only at the element being computed (Proposition
    // 7.2 within the row), runs inside the pointwise loop: one pass over the row, not two (a
    // softmax's exp and its sum).
    auto absorbs = [&](const LoopGroup& g, const LoopGroup& next, Var var) {
      if (!next.reduction || !next.inner.empty() || next.reduce.size() != 1 || g.inner.size() != 1 ||
          next.reduce[0] != g.inner[0] || !vectorizable(next.nodes, ir::rvar(0), next.reduce[0]))
        return false;
      std::map<BufferId, Index> written;
      for (int idx : g.nodes) {
        const KernelNode& n = k.nodes[static_cast<std::size_t>(idx)];
        written.emplace(n.buffer, kernel_index(n, p[n.buffer].write_index()));
      }
      const ir::VarRanges ranges = k.nodes[static_cast<std::size_t>(g.nodes.front())].loops.ranges();
      for (int idx : next.nodes) {
        const KernelNode& n = k.nodes[static_cast<std::size_t>(idx)];
        if (!vec_accumulator(p[n.buffer], isa)) return false;
        for (const ir::LoadRef& l : ir::collect_loads(p[n.buffer].body)) {
          const auto w = written.find(l.buffer);
          if (w != written.end() &&
              ir::simplify(ir::substitute(kernel_index(n, l.index), {{ir::rvar(0), Index::var(var)}}), ranges) != w->second)
            return false;
        }
      }
      return true;
    };
    // The loop that asks for the next row: the last, or where loops after the first compute
    // transcendentals, the latest of those computing the most of them, so that the memory
    // streams the next row while the longest pass runs (a softmax's exp pass, not its division).
    std::size_t host = k.loop_groups.size() - 1;
    std::size_t most = 0;
    for (std::size_t gi = 1; gi < k.loop_groups.size(); ++gi) {
      if (k.loop_groups[gi].reduction) continue;
      std::size_t expensive = 0;
      for (int idx : k.loop_groups[gi].nodes)
        for (const ir::Expr& e : ir::topo_order(p[k.nodes[static_cast<std::size_t>(idx)].buffer].body))
          expensive += ir::is_expensive(e.op()) ? 1 : 0;
      if (expensive > 0 && expensive >= most) {
        most = expensive;
        host = gi;
      }
    }
    for (std::size_t gi = 0; gi < k.loop_groups.size(); ++gi) {
      const LoopGroup& g = k.loop_groups[gi];
      if (!g.reduction) {
        const Var var = ir::xvar(static_cast<int32_t>(depth + g.inner.size() - 1));
        const bool vec = !g.inner.empty() && vectorizable(g.nodes, var, g.inner.back());
        const std::size_t plain = vec ? g.inner.size() - 1 : g.inner.size();
        for (std::size_t i = 0; i < plain; ++i) loops.open(loop_head("x" + std::to_string(depth + i), g.inner[i]));
        if (vec) {
          const LoopGroup* next = gi + 1 < k.loop_groups.size() && absorbs(g, k.loop_groups[gi + 1], var)
                                      ? &k.loop_groups[gi + 1]
                                      : nullptr;
          std::optional<GroupAccumulators> ga;
          if (next) ga = declare_accumulators(loops, *next);
          const bool hosts = gi == host || (next != nullptr && gi + 1 == host);
          const std::vector<std::string> prefetches = hosts ? next_row_prefetches(loops, var, g) : std::vector<std::string>{};
          // The absorbed reduction's body is written on its own variable, here the element's.
          const std::string at = "const int64_t " + ir::var_name(ir::rvar(0)) + " = " + ir::var_name(var) + ";";
          auto vector_body = [&](CodeWriter& w) {
            for (const std::string& address : prefetches) w.line("__builtin_prefetch(" + address + ", 0, 2);");
            pointwise_nodes(g.nodes, w, &var);
            if (ga) {
              w.line(at);
              vector_updates(w, *ga);
            }
          };
          auto scalar_body = [&](CodeWriter& w) {
            pointwise_nodes(g.nodes, w, nullptr);
            if (ga) {
              w.line(at);
              scalar_updates(w, *ga);
            }
          };
          const std::optional<StreamPlan> plan = stream_plan(g.nodes, var);
          if (plan) streamed_loop(loops, *plan, ir::var_name(var), "0", std::to_string(g.inner.back()), vector_body, scalar_body);
          else strip_mined(loops, ir::var_name(var), "0", std::to_string(g.inner.back()), vector_body, scalar_body);
          if (ga) {
            finish_accumulators(loops, *ga);
            ++gi;
          }
        } else {
          pointwise_nodes(g.nodes, loops, nullptr);
        }
        close_loops(loops, plain);
        continue;
      }
      reduction_group(loops, g);
    }
    close_loops(loops, depth);
  }
  }
  if (vectorized) {
    out.line("using ISA = " + isa_tag + ";");
    out.line("constexpr int64_t W = ISA::width;  // lanes per vector");
  }
  out.append(loops.str());
  if (fallible) out.line("return err;");
  out.close();
  code.text = out.str();
  return code;
}

}  // namespace stax::codegen
