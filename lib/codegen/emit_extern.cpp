// Externs: a matrix product over whole buffers through the runtime's GEMM (which divides its
// blocks among the threads itself): one call, batched over broadcast batch dims, and with an
// epilogue when the kernel has one (scheduler::KernelKind::Epilogue): a lambda the GEMM runs on
// each tile of the product once it is final, computing the pointwise node in place. A
// convolution: one runtime call (stax_conv.h), with an epilogue the same way on each block of
// output channels x output positions.
#include "emit_forms.h"

#include "body_emitter.h"
#include "stax/codegen/literals.h"
#include "stax/support/isa.h"

namespace stax::codegen {

namespace {

using ir::BufferId;

// "{a, b, c}".
std::string list_text(const std::vector<int64_t>& v) {
  std::vector<std::string> parts;
  for (int64_t x : v) parts.push_back(std::to_string(x));
  return "{" + join(parts, ", ") + "}";
}

std::string operand_base(const ir::MatmulOperand& o, const std::string& name) {
  return o.offset == 0 ? name : name + " + " + std::to_string(o.offset);
}

// The call computing `b` into `c_name`, `epilogue` ("" for none) its last argument. The batch
// dims and the operands' batch strides go in arrays declared before it. A B packed at compile
// time is read from its packed array, on the instruction set it was packed for; a constant B
// under --isa native is packed on the first call into a function-local static.
void matmul_call(const ir::Buffer& b, const kernelplan::KernelPlan& plan, const std::vector<std::string>& names,
                 const std::string& c_name, const std::string& epilogue, CodeWriter& out) {
  const ir::Matmul mm = plan.fold_batch ? ir::fold_batch(b.matmul) : b.matmul;
  auto name = [&](BufferId id) { return names[static_cast<std::size_t>(id)]; };
  const std::string T = cxx_type(b.dtype);
  const std::string a = operand_base(mm.a, name(mm.a.buffer)) + ", ";
  if (plan.pack_b) {
    const std::string isa = find_isa(plan.pack_isa)->tag_type();
    out.line("stax_rt::matmul_prepacked<" + T + ", " + isa + ">(" + a + std::to_string(mm.a.row_stride) + ", " +
             std::to_string(mm.a.col_stride) + ", " + packed_name(names, mm.b.buffer, plan.pack_isa) + ", " + c_name +
             ", " + std::to_string(mm.m) + ", " + std::to_string(mm.n) + ", " + std::to_string(mm.k) +
             (epilogue.empty() ? "" : ", " + epilogue) + ");");
    return;
  }
  const std::string bb = operand_base(mm.b, name(mm.b.buffer)) + ", ";
  const std::string as = std::to_string(mm.a.row_stride) + ", " + std::to_string(mm.a.col_stride) + ", ";
  const std::string bs = std::to_string(mm.b.row_stride) + ", " + std::to_string(mm.b.col_stride) + ", ";
  const std::string mnk = std::to_string(mm.m) + ", " + std::to_string(mm.n) + ", " + std::to_string(mm.k);
  const std::string ep = epilogue.empty() ? "" : ", " + epilogue;
  if (plan.pack_once) {  // a constant B under --isa native: packed on the first call
    out.line("static const " + T + "* const packed = stax_rt::matmul_pack_b_native<" + T + ">(" + bb + bs + std::to_string(mm.k) + ", " +
             std::to_string(mm.n) + ");");
    out.line("stax_rt::matmul_packed_once<" + T + ">(" + a + as + bb + bs + "packed, " + c_name + ", " + mnk + ep + ");");
    return;
  }
  if (mm.batch.empty()) {
    const std::string entry = epilogue.empty() ? "matmul" : "matmul_epilogue";
    out.line("stax_rt::" + entry + "<" + T + ">(" + a + as + bb + bs + c_name + ", " + mnk + ep + ");");
    return;
  }
  out.line("static constexpr int64_t batch[] = " + list_text(mm.batch) + ";");
  out.line("static constexpr int64_t a_batch_strides[] = " + list_text(mm.a.batch_strides) + ";");
  out.line("static constexpr int64_t b_batch_strides[] = " + list_text(mm.b.batch_strides) + ";");
  out.line("stax_rt::matmul_batched<" + T + ">(" + std::to_string(mm.batch.size()) + ", batch, " + a +
           "a_batch_strides, " + as + bb + "b_batch_strides, " + bs + c_name + ", " + mnk + ep + ");");
}

// The runtime sections of an extern entry ("matmul" or "conv"): both run the GEMM on IsaNative,
// which may be any set of the table.
std::vector<std::string> gemm_sections(const std::string& entry) {
  std::vector<std::string> s{entry};
  for (const IsaRecord& r : isa_table()) s.push_back(r.section());
  return s;
}

std::string shape_comment(const ir::Matmul& mm) {
  return "[" + std::to_string(mm.m) + ", " + std::to_string(mm.k) + "] x [" + std::to_string(mm.k) + ", " +
         std::to_string(mm.n) + "]" + (mm.batch.empty() ? "" : " per batch " + shape_str(mm.batch));
}

// The product as the kernel plan runs it: with its batch folded into M where the plan says so.
std::string shape_comment(const ir::Matmul& mm, const kernelplan::KernelPlan& plan) {
  return shape_comment(mm) + (plan.fold_batch ? ", as one " + shape_comment(ir::fold_batch(mm)) + " product" : "");
}

std::string ints_text(std::initializer_list<int64_t> xs) {
  std::string s;
  for (int64_t x : xs) s += (s.empty() ? "" : ", ") + std::to_string(x);
  return s;
}

std::string conv_comment(const ir::Conv& c) {
  return "input [" + ints_text({c.n, c.c, c.h, c.w}) + "], weight [" + ints_text({c.cout, c.c / c.groups, c.kh, c.kw}) +
         "], stride " + ints_text({c.sh, c.sw}) + ", padding " + ints_text({c.ph, c.pw}) + ", dilation " +
         ints_text({c.dh, c.dw}) + ", groups " + std::to_string(c.groups);
}

// A convolution's call into `out_name`, `epilogue` ("" for none) its last argument: its shape as
// a constant of the function, the weights packed once for the process when they are a constant
// (conv_pack_weights), one call of stax_rt::conv.
void conv_call(const ir::Program& p, const ir::Buffer& b, const kernelplan::KernelPlan& plan,
               const std::vector<std::string>& names, const std::string& out_name, const std::string& epilogue,
               CodeWriter& out) {
  const ir::Conv& c = b.conv;
  const std::string T = cxx_type(b.dtype);
  auto name = [&](BufferId id) { return names[static_cast<std::size_t>(id)]; };
  out.line("// n, c, h, w, cout, kh, kw, oh, ow, sh, sw, ph, pw, dh, dw, groups, direct loops (kernel plan)");
  out.line("static constexpr stax_rt::ConvShape shape{" +
           ints_text({c.n, c.c, c.h, c.w, c.cout, c.kh, c.kw, c.oh, c.ow, c.sh, c.sw, c.ph, c.pw, c.dh, c.dw, c.groups,
                      plan.conv_direct ? 1 : 0}) +
           "};");
  std::string packed = "nullptr";
  // Direct loops read the weights as they are; the GEMM packs a constant one once.
  if (p[c.weight].kind == ir::BufferKind::Constant && !plan.conv_direct) {
    out.line("static const " + T + "* const packed = stax_rt::conv_pack_weights_native<" + T + ">(shape, " +
             name(c.weight) + ");");
    packed = "packed";
  }
  out.line("stax_rt::conv<" + T + ">(shape, " + name(c.input) + ", " + name(c.weight) + ", " + packed + ", " +
           (c.bias >= 0 ? name(c.bias) : std::string("nullptr")) + ", " + out_name +
           (epilogue.empty() ? "" : ", " + epilogue) + ");");
}

KernelCode emit_conv(const ir::Program& p, const ir::Buffer& b, const kernelplan::KernelPlan& plan,
                     const std::string& function, const std::vector<std::string>& names) {
  KernelCode k;
  k.function = function;
  k.params = plan.params;
  CodeWriter out;
  out.line(buffer_comment(b) + " (" + conv_comment(b.conv) + ")");
  out.open(signature_text(p, plan, function, names));
  conv_call(p, b, plan, names, names[static_cast<std::size_t>(b.id)], "", out);
  out.close();
  k.text = out.str();
  return k;
}

// The epilogue's loops over one tile row: the vector loop along `var` from `begin` to `end` with a
// scalar remainder, or one scalar loop.
void epilogue_row(KernelEmitter& e, const std::string& var, const std::string& begin, const std::string& end,
                  CodeWriter& loops) {
  const std::vector<int> node{e.plan.epilogue};
  if (e.plan.vector_var) {
    const ir::Var v = *e.plan.vector_var;
    e.strip_mined(
        loops, var, begin, end, [&](CodeWriter& w) { e.pointwise_nodes(node, w, &v); },
        [&](CodeWriter& w) { e.pointwise_nodes(node, w, nullptr); });
    return;
  }
  loops.open("for (int64_t " + var + " = " + begin + "; " + var + " < " + end + "; ++" + var + ")");
  e.pointwise_nodes(node, loops, nullptr);
  loops.close();
}

// A convolution's epilogue: ep(image, i0, i1, j0, j1, c, ldc) on output channels [i0, i1) x output
// positions [j0, j1) of one image; over [n, cout, oh, ow] the positions run along the output rows
// they cross, each row's segment one tile row of the epilogue.
void emit_conv_epilogue(KernelEmitter& e, const ir::Buffer& b, const std::vector<std::string>& names,
                        CodeWriter& loops) {
  const std::string T = cxx_type(b.dtype);
  const std::size_t rank = b.shape.size();
  loops.line("// " + conv_comment(b.conv) + "; the epilogue computes " + e.name(e.k.nodes.back().buffer) +
             " on each block of output channels x positions, in place (" + e.plan.epilogue_reason + ")");
  loops.open("const auto epilogue = [&](int64_t x0, int64_t i0, int64_t i1, int64_t j0, int64_t j1, " + T +
             "*, int64_t)");
  loops.line("(void)x0;");
  loops.open("for (int64_t x1 = i0; x1 < i1; ++x1)");
  if (rank == 3) {
    epilogue_row(e, "x2", "j0", "j1", loops);
  } else if (e.plan.epilogue_flat) {
    // Every index is flat in the output rows: x3 runs over the positions oh * OW + ow themselves.
    loops.line("constexpr int64_t x2 = 0;");
    loops.line("(void)x2;");
    epilogue_row(e, "x3", "j0", "j1", loops);
  } else {
    const std::string ow = std::to_string(b.conv.ow);
    loops.open("for (int64_t x2 = j0 / " + ow + "; x2 * " + ow + " < j1; ++x2)");
    loops.line("const int64_t row = x2 * " + ow + ";");
    loops.line("const int64_t lo = j0 > row ? j0 - row : 0, hi = j1 - row < " + ow + " ? j1 - row : " + ow + ";");
    epilogue_row(e, "x3", "lo", "hi", loops);
    loops.close();
  }
  loops.close();
  loops.close(";");
  conv_call(e.p, b, e.plan, names, e.name(e.k.nodes.back().buffer), "epilogue", loops);
}

}  // namespace

std::string packed_name(const std::vector<std::string>& names, BufferId id, const std::string& isa) {
  return names[static_cast<std::size_t>(id)] + "_packed_" + isa;
}

KernelCode emit_extern(const ir::Program& p, const ir::Buffer& b, const kernelplan::KernelPlan& plan,
                       const std::string& function, const std::vector<std::string>& names,
                       std::set<std::string>& sections) {
  const bool conv = b.extern_op == ir::ExternOp::Conv;
  for (const std::string& section : gemm_sections(conv ? "conv" : "matmul")) sections.insert(section);
  if (conv) return emit_conv(p, b, plan, function, names);
  KernelCode k;
  k.function = function;
  k.params = plan.params;
  CodeWriter out;
  out.line(buffer_comment(b) + " (" + shape_comment(b.matmul, plan) + ")");
  out.open(signature_text(p, plan, function, names));
  matmul_call(b, plan, names, names[static_cast<std::size_t>(b.id)], "", out);
  out.close();
  k.text = out.str();
  return k;
}

namespace {

// The batch position xb's dims x0, x1, ..., row-major over the batch shape.
void batch_position(const ir::Matmul& mm, CodeWriter& loops) {
  int64_t inner = 1;
  for (std::size_t d = mm.batch.size(); d-- > 0;) {
    const std::string x = "x" + std::to_string(d);
    std::string v = inner == 1 ? "xb" : "xb / " + std::to_string(inner);
    if (d > 0) v = "(" + v + ") % " + std::to_string(mm.batch[d]);
    loops.line("const int64_t " + x + " = " + v + ";");
    loops.line("(void)" + x + ";");
    inner *= mm.batch[d];
  }
}

}  // namespace

void emit_epilogue(KernelEmitter& e, const std::vector<std::string>& names, CodeWriter& loops) {
  const kernelplan::KernelPlan& plan = e.plan;
  const ir::Buffer& b = e.p[e.k.nodes.front().buffer];
  if (b.extern_op == ir::ExternOp::Conv) {
    for (const std::string& section : gemm_sections("conv")) e.need(section);
    return emit_conv_epilogue(e, b, names, loops);
  }
  const ir::Matmul& mm = b.matmul;
  const std::size_t batch = mm.batch.size();
  const std::string T = cxx_type(b.dtype);
  const std::string xi = "x" + std::to_string(batch), xj = "x" + std::to_string(batch + 1);
  for (const std::string& section : gemm_sections("matmul")) e.need(section);
  loops.line("// " + shape_comment(mm, plan) + "; the epilogue computes " +
             e.name(e.k.nodes.back().buffer) + " on each tile of the product, in place (" + plan.epilogue_reason + ")");
  std::string head = "const auto epilogue = [&](";
  if (batch > 0 && !plan.fold_batch) head += "int64_t xb, ";  // (plan.fold_batch: batch > 0)
  loops.open(head + "int64_t i0, int64_t i1, int64_t j0, int64_t j1, " + T + "*, int64_t)");
  if (plan.fold_batch) {  // row xr: batch position xr / M, row xr % M
    loops.open("for (int64_t xr = i0; xr < i1; ++xr)");
    loops.line("const int64_t " + xi + " = xr % " + std::to_string(mm.m) + ", xb = xr / " + std::to_string(mm.m) + ";");
    loops.line("(void)" + xi + ", (void)xb;");
    batch_position(mm, loops);
    epilogue_row(e, xj, "j0", "j1", loops);
    loops.close();
  } else {
    batch_position(mm, loops);
    loops.open("for (int64_t " + xi + " = i0; " + xi + " < i1; ++" + xi + ")");
    epilogue_row(e, xj, "j0", "j1", loops);
    loops.close();
  }
  loops.close(";");
  matmul_call(b, plan, names, e.name(e.k.nodes.back().buffer), "epilogue", loops);
}

}  // namespace stax::codegen
