#include "kernels.h"

#include <algorithm>
#include <map>

#include "body_emitter.h"
#include "code_writer.h"
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

// The loops a kernel runs after merging contiguous dimensions (stax/ir/simplify.h merge_loops):
// output loops x0.. and reduction loops r0.., with every index of the body rewritten onto them.
struct LoopPlan {
  std::vector<int64_t> x_sizes;
  std::vector<int64_t> r_sizes;
  std::map<Var, Index> subst;  // original loop variable -> expression of the new ones
  ir::VarRanges ranges;        // of the new variables

  Index rewrite(const Index& e) const {
    if (subst.empty()) return e;
    return ir::simplify(ir::substitute(e, subst), ranges);
  }
};

// Every index the body uses (loads and index values), in a deterministic order.
std::vector<Index> body_indices(const Expr& body) {
  std::vector<Index> out;
  for (const Expr& e : ir::topo_order(body))
    if (e.op() == ir::ExprOp::Load || e.op() == ir::ExprOp::IndexValue) out.push_back(e.index());
  return out;
}

// Merges `vars` (a contiguous part of the nest) and renames the merged c-variables to `kind`.
// Returns the new extents; adds the substitution of each old variable to `subst`.
std::vector<int64_t> merge_part(const std::vector<Var>& vars, ir::VarKind kind,
                                const ir::VarRanges& ranges, const std::vector<Index>& indices,
                                std::map<Var, Index>& subst) {
  if (vars.empty()) return {};
  ir::MergedLoops m = ir::merge_loops(vars, ranges, indices);
  std::map<Var, Index> rename;
  for (std::size_t i = 0; i < m.sizes.size(); ++i)
    rename[ir::cvar(static_cast<int32_t>(i))] = Index::var(kind, static_cast<int32_t>(i));
  for (std::size_t k = 0; k < vars.size(); ++k) subst[vars[k]] = ir::substitute(m.reindex[k], rename);
  return m.sizes;
}

LoopPlan plan_loops(const Buffer& b, const std::vector<Index>& indices) {
  LoopPlan plan;
  const ir::VarRanges original = b.ranges();
  // Output loops first (the reduction variables stay free), then the reduction loops.
  std::map<Var, Index> sx;
  plan.x_sizes = merge_part(b.output_vars(), ir::VarKind::X, original, indices, sx);
  ir::VarRanges mid;
  for (std::size_t i = 0; i < plan.x_sizes.size(); ++i) mid[ir::xvar(static_cast<int32_t>(i))] = plan.x_sizes[i];
  for (Var r : b.reduce_vars()) mid[r] = original.at(r);
  std::vector<Index> mid_indices;
  for (const Index& e : indices) mid_indices.push_back(ir::simplify(ir::substitute(e, sx), mid));
  std::map<Var, Index> sr;
  plan.r_sizes = merge_part(b.reduce_vars(), ir::VarKind::R, mid, mid_indices, sr);
  for (std::size_t i = 0; i < plan.x_sizes.size(); ++i) plan.ranges[ir::xvar(static_cast<int32_t>(i))] = plan.x_sizes[i];
  for (std::size_t i = 0; i < plan.r_sizes.size(); ++i) plan.ranges[ir::rvar(static_cast<int32_t>(i))] = plan.r_sizes[i];
  // Compose: x_old -> f(x_new) (no r), r_old -> g(x_new, r_new) (sr applied to what sx left).
  for (const auto& [v, e] : sx) plan.subst[v] = e;
  for (const auto& [v, e] : sr) plan.subst[v] = e;
  return plan;
}

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

// Fills the placeholders of an Accumulator::update: {v} the value, {p} the flat position.
std::string fill(const std::string& pattern, const std::string& v, const std::string& pos = "") {
  std::string s;
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    if (pattern.compare(i, 3, "{v}") == 0) {
      s += v;
      i += 2;
    } else if (pattern.compare(i, 3, "{p}") == 0) {
      s += pos;
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

KernelCode pointwise_or_reduction(const ir::Program& p, const Buffer& b, const std::string& function,
                                  const std::vector<std::string>& names,
                                  std::set<std::string>& sections) {
  const bool reduction = b.kind == ir::BufferKind::Reduction;
  std::vector<Index> indices = body_indices(b.body);
  indices.push_back(b.write_index());
  const LoopPlan plan = plan_loops(b, indices);
  const bool fallible = BodyEmitter::has_checked_division(b.body);

  KernelCode k;
  k.function = function;
  k.fallible = fallible;
  const Signature sig = signature(p, b, loaded_buffers(b.body), function, names, fallible);
  k.params = sig.params;

  CodeWriter out;
  out.line(kernel_comment(b));
  out.open(sig.text);
  if (fallible) out.line("int err = 0;");
  const int64_t work = product(plan.x_sizes) * product(plan.r_sizes);
  parallel_pragma(out, plan.x_sizes, work, fallible);
  open_x_loops(out, plan.x_sizes);

  int temps = 0;
  auto buffer_name = [&](BufferId id) { return names[static_cast<std::size_t>(id)]; };
  auto index_text = [&](const Index& e) { return index_cxx(plan.rewrite(e)); };
  BodyEmitter body(buffer_name, index_text, sections, temps);
  const std::string store = buffer_name(b.id) + "[" + index_text(b.write_index()) + "]";

  if (!reduction) {
    const std::string v = body.emit(b.body, out);
    out.line(store + " = " + bare(v) + ";");
    close_loops(out, plan.x_sizes.size());
  } else {
    if (b.reduce_op == ir::ReduceOp::ArgMax || b.reduce_op == ir::ReduceOp::ArgMin) sections.insert("reduce");
    const Accumulator acc = reduction_accumulator(b.reduce_op, b.dtype, b.body.dtype());
    out.line(acc.type + " acc = " + acc.init + ";");
    for (std::size_t i = 0; i < plan.r_sizes.size(); ++i) out.open(loop_head("r" + std::to_string(i), plan.r_sizes[i]));
    const std::string v = body.emit(b.body, out);
    // The position argmax/argmin report: row-major over the original reduction ranges.
    std::vector<Index> rs;
    for (Var r : b.reduce_vars()) rs.push_back(Index::var(r));
    const std::string pos = index_text(ir::flat_index(rs, b.reduce_ranges));
    out.line(fill(acc.update, bare(v), pos));
    close_loops(out, plan.r_sizes.size());
    out.line(store + " = " + acc.result + ";");
    close_loops(out, plan.x_sizes.size());
  }
  if (fallible) out.line("return err;");
  out.close();
  k.text = out.str();
  return k;
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
  sections.insert("matmul");
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
    case ir::BufferKind::Pointwise:
    case ir::BufferKind::Reduction: return pointwise_or_reduction(p, b, function, names, sections);
    case ir::BufferKind::Scan: return scan(p, b, function, names, sections);
    case ir::BufferKind::Extern: return matmul(p, b, function, names, sections);
    case ir::BufferKind::Input:
    case ir::BufferKind::Constant: break;
  }
  internal_error(__FILE__, __LINE__, "emit_kernel of a buffer that is not computed: " + b.name);
}

}  // namespace stax::codegen
