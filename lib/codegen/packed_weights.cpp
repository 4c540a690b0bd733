// Constant B operands packed at compile time into the GEMM's panels (kernelplan::KernelPlan::
// pack_b), with the runtime's own packing function (runtime/stax_gemm_pack.h, plain C++), so that
// the generated code packs nothing at run time. One array per constant and instruction set.
#include "packed_weights.h"

#include <set>
#include <utility>

#include "emit_forms.h"
#include "stax/support/isa.h"
#include "stax_gemm_pack.h"

namespace stax::codegen {

namespace {

template <typename T>
Tensor pack_b(const ir::Buffer& c, const ir::MatmulOperand& o, int64_t K, int64_t N, int64_t lanes) {
  const int64_t P = stax_rt::gemm_panel_width<T>(lanes);
  Tensor out(c.dtype, {stax_rt::gemm_packed_b_size(K, N, P)});
  stax_rt::gemm_pack_b<T>(c.data.data_as<T>() + o.offset, o.row_stride, o.col_stride, K, N, P, out.data_as<T>());
  return out;
}

}  // namespace

std::vector<bool> constants_in_use(const ir::Program& p, const std::vector<kernelplan::ProgramPlan>& plans) {
  std::vector<bool> used(p.buffers.size(), false);
  for (const kernelplan::ProgramPlan& plan : plans)
    for (const kernelplan::KernelPlan& kp : plan.kernels)
      for (ir::BufferId id : kp.params) used[static_cast<std::size_t>(id)] = true;
  for (const ir::ProgramOutput& o : p.outputs) used[static_cast<std::size_t>(o.buffer)] = true;
  return used;
}

std::vector<PackedConstant> pack_constants(const ir::Program& p, const scheduler::Schedule& s,
                                           const std::vector<kernelplan::ProgramPlan>& plans,
                                           const std::vector<std::string>& names) {
  std::vector<PackedConstant> out;
  std::set<std::pair<ir::BufferId, std::string>> done;
  for (const kernelplan::ProgramPlan& plan : plans)
    for (const kernelplan::KernelPlan& kp : plan.kernels) {
      if (!kp.pack_b) continue;
      const ir::Buffer& mm = p[s.kernels[static_cast<std::size_t>(kp.kernel)].nodes.front().buffer];
      const ir::MatmulOperand& o = mm.matmul.b;
      if (!done.insert({o.buffer, kp.pack_isa}).second) continue;
      const ir::Buffer& c = p[o.buffer];
      const int64_t lanes = find_isa(kp.pack_isa)->lanes;
      const bool f32 = c.dtype == DType::Float32;
      const int64_t P = f32 ? stax_rt::gemm_panel_width<float>(lanes) : stax_rt::gemm_panel_width<double>(lanes);
      PackedConstant pc;
      pc.name = packed_name(names, o.buffer, kp.pack_isa);
      pc.comment = "constant " + c.name + " as B of " + mm.name + " [" + std::to_string(mm.matmul.k) + ", " +
                   std::to_string(mm.matmul.n) + "], packed for the GEMM of " + kp.pack_isa + ": panels of " +
                   std::to_string(P) + " columns, each K rows of contiguous elements, zeros past N";
      pc.data = f32 ? pack_b<float>(c, o, mm.matmul.k, mm.matmul.n, lanes)
                    : pack_b<double>(c, o, mm.matmul.k, mm.matmul.n, lanes);
      out.push_back(std::move(pc));
    }
  return out;
}

}  // namespace stax::codegen
