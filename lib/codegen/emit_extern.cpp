// Externs: a matrix product over whole buffers, one runtime call per batch position (the
// runtime's GEMM divides its blocks among the threads itself); a convolution, one runtime call.
#include "emit_forms.h"

#include "body_emitter.h"
#include "stax/codegen/literals.h"
#include "stax/support/isa.h"

namespace stax::codegen {

namespace {

using ir::BufferId;
using ir::Index;

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

std::string ints_text(std::initializer_list<int64_t> xs) {
  std::string s;
  for (int64_t x : xs) s += (s.empty() ? "" : ", ") + std::to_string(x);
  return s;
}

// A convolution: its shape as a constant of the function, the weights packed once for the
// process when they are a constant (conv_pack_weights), one call of stax_rt::conv.
KernelCode emit_conv(const ir::Program& p, const ir::Buffer& b, const kernelplan::KernelPlan& plan,
                     const std::string& function, const std::vector<std::string>& names) {
  const ir::Conv& c = b.conv;
  KernelCode k;
  k.function = function;
  k.params = plan.params;
  const std::string T = cxx_type(b.dtype);
  auto name = [&](BufferId id) { return names[static_cast<std::size_t>(id)]; };
  CodeWriter out;
  out.line(buffer_comment(b) + " (input [" + ints_text({c.n, c.c, c.h, c.w}) + "], weight [" +
           ints_text({c.cout, c.c / c.groups, c.kh, c.kw}) + "], stride " + ints_text({c.sh, c.sw}) + ", padding " +
           ints_text({c.ph, c.pw}) + ", dilation " + ints_text({c.dh, c.dw}) + ", groups " + std::to_string(c.groups) +
           ")");
  out.open(signature_text(p, plan, function, names));
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
           (c.bias >= 0 ? name(c.bias) : std::string("nullptr")) + ", " + name(b.id) + ");");
  out.close();
  k.text = out.str();
  return k;
}

}  // namespace

KernelCode emit_extern(const ir::Program& p, const ir::Buffer& b, const kernelplan::KernelPlan& plan,
                       const std::string& function, const std::vector<std::string>& names,
                       std::set<std::string>& sections) {
  // stax_rt::matmul and stax_rt::conv run on IsaNative, which may be any set of the table.
  sections.insert(b.extern_op == ir::ExternOp::Conv ? "conv" : "matmul");
  for (const IsaRecord& r : isa_table()) sections.insert(r.section());
  if (b.extern_op == ir::ExternOp::Conv) return emit_conv(p, b, plan, function, names);
  const ir::Matmul& mm = b.matmul;
  KernelCode k;
  k.function = function;
  k.params = plan.params;
  const std::string T = cxx_type(b.dtype);
  auto name = [&](BufferId id) { return names[static_cast<std::size_t>(id)]; };

  CodeWriter out;
  out.line(buffer_comment(b) + " ([" + std::to_string(mm.m) + ", " + std::to_string(mm.k) + "] x [" +
           std::to_string(mm.k) + ", " + std::to_string(mm.n) + "]" +
           (mm.batch.empty() ? "" : " per batch " + shape_str(mm.batch)) + ")");
  out.open(signature_text(p, plan, function, names));
  for (std::size_t i = 0; i < mm.batch.size(); ++i) out.open(loop_head("x" + std::to_string(i), mm.batch[i]));
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

}  // namespace stax::codegen
