// plan_kernels: every kernel of the schedule, in the memory plan's order, with its form, the
// residence of each buffer it touches, its parallel loops and regions, its streams and prefetches.
#include "stax/kernelplan/plan.h"

#include <algorithm>
#include <string>

#include "analysis.h"
#include "forms.h"
#include "parallel.h"
#include "stax/support/error.h"

namespace stax::kernelplan {

namespace {

using detail::KernelContext;
using scheduler::Kernel;
using scheduler::KernelNode;

void add_unique(std::vector<BufferId>& ids, BufferId id) {
  if (std::find(ids.begin(), ids.end(), id) == ids.end()) ids.push_back(id);
}

// Where the buffers of the program live outside kernels: inputs, constants, the caller's
// outputs a kernel writes straight into (the first output a computed buffer serves), the
// workspace.
struct Places {
  std::vector<Residence> where;
  std::vector<std::string> reason;
};

Places memory_places(const ir::Program& p, const Locals& locals, const memory::MemoryPlan& memory) {
  Places pl;
  pl.where.assign(p.buffers.size(), Residence::Workspace);
  pl.reason.assign(p.buffers.size(), "");
  for (const ir::Buffer& b : p.buffers) {
    const std::size_t i = static_cast<std::size_t>(b.id);
    if (b.kind == ir::BufferKind::Input) {
      pl.where[i] = Residence::Input;
      pl.reason[i] = "the caller's input " + std::to_string(b.input_index);
    } else if (b.kind == ir::BufferKind::Constant) {
      pl.where[i] = Residence::Constant;
      pl.reason[i] = "a static array of the generated file";
    } else if (locals.local(b.id)) {
      pl.where[i] = locals.where[i] == Locality::Row       ? Residence::Row
                    : locals.where[i] == Locality::Product ? Residence::Product
                                                           : Residence::Register;
      pl.reason[i] = locals.reason[i];
    }
  }
  for (const ir::ProgramOutput& o : p.outputs) {
    const std::size_t i = static_cast<std::size_t>(o.buffer);
    if (!p[o.buffer].is_computed() || !pl.reason[i].empty()) continue;
    pl.where[i] = Residence::Caller;
    pl.reason[i] = "written straight into the caller's output " + std::to_string(o.index);
  }
  for (const memory::BufferPlan& b : memory.buffers)
    if (b.role == memory::BufferRole::Intermediate) {
      const std::string& why = locals.reason[static_cast<std::size_t>(b.id)];
      pl.reason[static_cast<std::size_t>(b.id)] = (why.empty() ? std::string("read by another kernel") : why) + ": " +
                                                  std::to_string(b.bytes) + " bytes at offset " + std::to_string(b.offset) +
                                                  " of the workspace (memory plan)";
    }
  return pl;
}

void record_uses(const Places& places, const std::vector<BufferId>& ids, KernelPlan& kp) {
  for (BufferId id : ids) {
    if (kp.use(id) != nullptr) continue;
    const std::size_t i = static_cast<std::size_t>(id);
    kp.buffers.push_back({id, places.where[i], places.reason[i]});
  }
}

// A matmul's constant B packed at compile time: when the instruction set, and with it the panel
// width of the GEMM's tiles, is known now (one set pinned, or each set of --isa dispatch).
void plan_packing(const ir::Program& p, const ir::Buffer& mm, const IsaTarget& isa, KernelPlan& kp) {
  if (mm.extern_op != ir::ExternOp::Matmul) return;
  const ir::Buffer& b = p[mm.matmul.b.buffer];
  if (b.kind != ir::BufferKind::Constant) return;
  if (!is_floating(mm.dtype)) {
    kp.pack_reason = "B is a constant, but the " + std::string(dtype_name(mm.dtype)) + " product runs on plain loops";
  } else if (!kp.fold_batch && !mm.matmul.batch.empty()) {
    kp.pack_reason = "B is a constant, but batched products pack at run time";
  } else if (isa.kind != IsaTarget::Kind::Fixed) {
    kp.pack_once = true;
    kp.pack_reason = "B is the constant " + b.name +
                     ", but --isa native leaves the instruction set, and with it the panel width, to the C++ "
                     "compiler: packed on the first call, once for the process (pin --isa to pack it now)";
  } else {
    kp.pack_b = true;
    kp.pack_isa = isa_record(isa.fixed).name;
    kp.pack_reason = "B is the constant " + b.name + ": packed at compile time into the GEMM's panels for " +
                     std::string(isa_record(isa.fixed).name);
  }
}

// A batched product folded into one of batch x M rows (ir::fold_batch), or why not. One product
// per batch position gives each GEMM call M rows: a Linear on channels-last [1, 14, 14, 384] was
// 14 products of 14 x 384 x 1536 with B packed per call, at 159 GFLOP/s on 2 threads; folded it
// is one 196 x 384 x 1536 product on B packed once (ConvNeXt's MLP blocks).
void plan_batch_fold(const ir::Matmul& mm, KernelPlan& kp) {
  if (mm.batch.empty()) return;
  std::string batch;
  for (int64_t d : mm.batch) batch += (batch.empty() ? "" : ", ") + std::to_string(d);
  const ir::Matmul folded = ir::fold_batch(mm);
  kp.fold_batch = folded.batch.empty();
  kp.fold_reason = kp.fold_batch ? "batch [" + batch + "] folded into M: B is the same matrix for every batch position "
                                   "and A's rows continue across them, so one product of " +
                                       std::to_string(folded.m) + " rows"
                                 : "batch [" + batch + "] kept: B differs between batch positions, or A's rows do not "
                                   "continue across them";
}

// An extern: a matrix product, or a convolution by the GEMM or by direct loops.
void plan_extern(const ir::Buffer& b, KernelPlan& kp) {
  kp.form = Form::Extern;
  if (b.extern_op == ir::ExternOp::Conv) {
    // A group of at most kConvDirectChannels input channels is a product too small to pack:
    // K = C/g * KH * KW and M = O/g rows fill few of the GEMM's tiles.
    constexpr int64_t kConvDirectChannels = 4;
    kp.conv_direct = b.conv.groups > 1 && b.conv.c / b.conv.groups <= kConvDirectChannels;
    kp.form_reason = kp.conv_direct ? "a convolution of " + std::to_string(b.conv.c / b.conv.groups) +
                                          " input channel(s) per group (at most 4): the runtime's direct vector "
                                          "loops over output rows (a depthwise one with output rows under 32 "
                                          "wide: its channels in the lanes)"
                                    : "a convolution: the runtime's GEMM, its patches packed from the input block by block";
    kp.parallel_reason = kp.conv_direct
                             ? "the runtime divides the (image, channel) planes, or blocks of channels, among the threads"
                             : "the runtime divides images and groups, or one product's tiles, among the threads";
  } else {
    kp.form_reason = "a matrix product: the runtime's GEMM over whole buffers";
    kp.parallel_reason = "the GEMM divides its blocks among the threads itself";
    plan_batch_fold(b.matmul, kp);
  }
  for (ir::BufferId r : ir::extern_operands(b)) add_unique(kp.params, r);
}

KernelPlan plan_extern_or_scan(const ir::Program& p, const Kernel& k, const Places& places) {
  KernelPlan kp;
  const ir::Buffer& b = p[k.nodes.front().buffer];
  if (b.kind == ir::BufferKind::Scan) {
    kp.form = Form::Scan;
    // Over a dim that is not the last, the carried loop innermost would step through memory by
    // the last dims' size: cumsum over dim 1 of [64, 1024, 256] took 18x ONNX Runtime's time.
    kp.scan_across = b.scan_dim + 1 < static_cast<int>(b.shape.size());
    kp.form_reason = kp.scan_across ? "a scan over dim " + std::to_string(b.scan_dim) +
                                          ", not the last: the carried loop runs outside the last dim's, whose elements "
                                          "(each another line) take one accumulator each, in blocks of " +
                                          std::to_string(kColumnBlock) + "; each line still summed in order"
                                    : "a scan: the carried dimension runs innermost, one accumulator per line";
    kp.fallible = ir::may_fail(b.body);
    for (const ir::LoadRef& l : ir::collect_loads(b.body)) add_unique(kp.params, l.buffer);
    detail::plan_scan_parallel(b, kp);
  } else {
    STAX_ASSERT(b.kind == ir::BufferKind::Extern, "a kernel without loops that is no scan or extern: " + b.name);
    plan_extern(b, kp);
  }
  kp.params.push_back(b.id);
  record_uses(places, kp.params, kp);
  return kp;
}

// Parameters: the buffers read from memory (first-read order), then those written to memory.
void loop_params(const KernelContext& c, const Places& places, KernelPlan& kp) {
  std::vector<BufferId> own;
  for (const KernelNode& n : c.k.nodes) own.push_back(n.buffer);
  for (const KernelNode& n : c.k.nodes)
    for (const ir::LoadRef& l : ir::collect_loads(c.p[n.buffer].body))
      if (std::find(own.begin(), own.end(), l.buffer) == own.end()) add_unique(kp.params, l.buffer);
  for (const KernelNode& n : c.k.nodes)
    if (c.in_memory(n.buffer)) kp.params.push_back(n.buffer);
  record_uses(places, kp.params, kp);
  record_uses(places, own, kp);
}

// A matmul or a convolution with its epilogue: parameters the operands, the epilogue's other
// reads, its buffer; the epilogue's loop over a tile row in lanes when it reads and stores
// contiguously along the last dim (a convolution's tile rows run along output rows).
KernelPlan plan_epilogue(const KernelContext& c, const Places& places) {
  const ir::Buffer& ext = c.p[c.k.nodes.front().buffer];
  KernelPlan kp;
  plan_extern(ext, kp);
  kp.form_reason += ", with an epilogue on each tile";
  kp.parallel_reason += "; the epilogue runs on its tiles";
  kp.epilogue = static_cast<int>(c.k.nodes.size()) - 1;
  const BufferId out = c.k.nodes.back().buffer;
  for (const ir::LoadRef& l : ir::collect_loads(c.p[out].body))
    if (l.buffer != ext.id) add_unique(kp.params, l.buffer);
  kp.params.push_back(out);
  record_uses(places, kp.params, kp);
  record_uses(places, {ext.id}, kp);
  const ir::Var v = ir::xvar(static_cast<int32_t>(ext.shape.size() - 1));
  // A 2-D convolution's epilogue flat in its output rows runs over whole blocks of positions.
  const bool flat = ext.extern_op == ir::ExternOp::Conv && ext.shape.size() == 4 && detail::flat_positions(c, kp.epilogue);
  const int64_t trip = flat ? ext.conv.oh * ext.conv.ow : ext.shape.back();
  const std::string why = detail::why_not_vector(c, {kp.epilogue}, v, trip);
  if (!why.empty()) {  // element by element within each output row
    kp.epilogue_reason =
        "each tile element by element: " + (flat ? detail::why_not_vector(c, {kp.epilogue}, v, ext.shape.back()) : why);
    return kp;
  }
  kp.vector_var = v;
  kp.vector_trip = trip;
  kp.epilogue_flat = flat;
  kp.epilogue_reason = flat ? "each block's positions in lanes along " + ir::var_name(v) +
                                  " over whole output rows (flat in oh * " + std::to_string(ext.conv.ow) +
                                  " + ow), a scalar remainder"
                            : "each tile row in lanes along " + ir::var_name(v) + ", a scalar remainder";
  return kp;
}

KernelPlan plan_loop_kernel(const KernelContext& c, const Places& places) {
  KernelPlan kp;
  for (const KernelNode& n : c.k.nodes) kp.fallible = kp.fallible || (c.p[n.buffer].body && ir::may_fail(c.p[n.buffer].body));
  loop_params(c, places, kp);
  detail::plan_parallel(c.k, kp);
  if (detail::plan_tiled(c, kp) || detail::plan_vector_rows(c, kp) || detail::plan_columns(c, kp)) return kp;
  detail::plan_row_groups(c, kp);
  return kp;
}

}  // namespace

std::string_view form_name(Form f) {
  switch (f) {
    case Form::Extern: return "extern";
    case Form::Scan: return "scan";
    case Form::Tiled: return "2-D tiled";
    case Form::VectorRows: return "vector rows";
    case Form::Columns: return "column reduction";
    case Form::RowGroups: return "row groups";
    case Form::Scalar: return "scalar";
  }
  return "?";
}

std::string_view residence_name(Residence r) {
  switch (r) {
    case Residence::Register: return "register";
    case Residence::Row: return "row-local array";
    case Residence::Workspace: return "workspace";
    case Residence::Caller: return "caller";
    case Residence::Input: return "input";
    case Residence::Constant: return "constant";
    case Residence::Product: return "product";
  }
  return "?";
}

std::string_view parallel_name(Parallel m) {
  switch (m) {
    case Parallel::Serial: return "serial";
    case Parallel::Standalone: return "own region";
    case Parallel::Shared: return "shared region";
  }
  return "?";
}

bool KernelPlan::vectorized() const {
  if (form == Form::Extern) return vector_var.has_value();  // an epilogue in lanes
  if (form == Form::Tiled || form == Form::VectorRows || form == Form::Columns) return true;
  return std::any_of(groups.begin(), groups.end(), [](const GroupPlan& g) { return g.vector; });
}

const BufferUse* KernelPlan::use(BufferId id) const {
  for (const BufferUse& u : buffers)
    if (u.buffer == id) return &u;
  return nullptr;
}

ProgramPlan plan_kernels(const ir::Program& p, const scheduler::Schedule& s, const Locals& locals,
                         const memory::MemoryPlan& memory, const IsaTarget& isa) {
  ProgramPlan plan;
  plan.isa = isa;
  plan.vector = !(isa.kind == IsaTarget::Kind::Fixed && isa.fixed == Isa::Scalar);
  const Places places = memory_places(p, locals, memory);
  for (int step : memory.order) {
    const Kernel& k = s.kernels[static_cast<std::size_t>(step)];
    const KernelContext c{p, k, locals, plan.vector};
    KernelPlan kp = k.kind == scheduler::KernelKind::Epilogue ? plan_epilogue(c, places)
                    : k.loop_groups.empty()                      ? plan_extern_or_scan(p, k, places)
                                                                 : plan_loop_kernel(c, places);
    if (kp.form == Form::Extern) plan_packing(p, p[k.nodes.front().buffer], isa, kp);
    if (kp.pack_b) {
      const BufferId b = p[k.nodes.front().buffer].matmul.b.buffer;
      kp.params.erase(std::find(kp.params.begin(), kp.params.end(), b));
    }
    kp.kernel = step;
    kp.name = k.name;
    plan.kernels.push_back(std::move(kp));
  }
  detail::plan_regions(plan);
  return plan;
}

}  // namespace stax::kernelplan
