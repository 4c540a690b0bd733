#include "stax/kernelplan/dump.h"

#include <nlohmann/json.hpp>

namespace stax::kernelplan {

namespace {

using Json = nlohmann::ordered_json;

constexpr DType kDtypes[] = {DType::Float32, DType::Float64, DType::Int32, DType::Int64, DType::Bool};

// Lanes and registers per dtype of the set a plan was made for (native: decided by the compiler
// of the generated file).
Json lanes_json(const IsaTarget& isa) {
  if (isa.kind != IsaTarget::Kind::Fixed) return "ISA::width: the widest set the compiler of the generated file targets";
  const IsaRecord& r = isa_record(isa.fixed);
  Json j;
  for (DType dt : kDtypes) {
    Json d;
    d["lanes"] = r.lanes;
    const int bits = r.lanes * static_cast<int>(dt == DType::Bool ? 4 : dtype_size(dt)) * 8;
    d["registers"] = r.vector_bits == 0 ? 1 : (bits + r.vector_bits - 1) / r.vector_bits;
    j[std::string(dtype_name(dt))] = d;
  }
  return j;
}

Json prefetches_json(const std::vector<Prefetch>& list, const ir::Program& p) {
  Json a = Json::array();
  for (const Prefetch& f : list) {
    Json j;
    j["buffer"] = p[f.buffer].name;
    j["at"] = ir::to_string(f.at);
    j["stride"] = f.stride;
    a.push_back(j);
  }
  return a;
}

Json stream_json(const Stream& st, const scheduler::Kernel& k, const ir::Program& p, const std::string& reason) {
  Json j;
  j["buffer"] = p[k.nodes[static_cast<std::size_t>(st.node)].buffer].name;
  j["base"] = ir::to_string(st.base);
  if (!reason.empty()) j["reason"] = reason;
  return j;
}

Json group_json(const GroupPlan& g, const scheduler::Kernel& k, const ir::Program& p) {
  Json j;
  j["group"] = g.group;
  std::vector<std::string> nodes;
  for (int idx : k.loop_groups[static_cast<std::size_t>(g.group)].nodes) nodes.push_back(k.nodes[static_cast<std::size_t>(idx)].name);
  j["nodes"] = nodes;
  j["reduction"] = k.loop_groups[static_cast<std::size_t>(g.group)].reduction;
  if (g.trip > 0) {
    j["loop"] = ir::var_name(g.var);
    j["trip"] = g.trip;
  }
  j["vector"] = g.vector;
  if (g.chains > 1) j["chains"] = g.chains;
  if (g.absorbs_next) j["absorbs_next"] = true;
  if (g.stream) j["stream"] = stream_json(*g.stream, k, p, "");
  if (!g.prefetches.empty()) j["next_row_prefetches"] = prefetches_json(g.prefetches, p);
  j["reason"] = g.reason;
  return j;
}

Json parallel_json(const KernelPlan& kp, const std::vector<Region>& regions) {
  Json j;
  j["mode"] = parallel_name(kp.parallel);
  j["depth"] = kp.parallel_depth;
  j["chunk"] = kMinChunk;
  j["work"] = kp.work;
  if (kp.region >= 0) {
    j["region"] = kp.region;
    j["region_work"] = regions[static_cast<std::size_t>(kp.region)].work;
  }
  j["reason"] = kp.parallel_reason;
  return j;
}

Json kernel_json(const KernelPlan& kp, const ProgramPlan& plan, const ir::Program& p, const scheduler::Schedule& s) {
  const scheduler::Kernel& k = s.kernels[static_cast<std::size_t>(kp.kernel)];
  Json j;
  j["kernel"] = kp.name;
  j["form"] = form_name(kp.form);
  j["reason"] = kp.form_reason;
  if (kp.fallible) j["fallible"] = true;
  Json buffers = Json::array();
  for (const BufferUse& u : kp.buffers) {
    Json b;
    b["buffer"] = p[u.buffer].name;
    b["residence"] = residence_name(u.where);
    b["reason"] = u.reason;
    buffers.push_back(b);
  }
  j["buffers"] = buffers;
  j["parallel"] = parallel_json(kp, plan.regions);
  if (kp.vector_var) {
    Json v;
    v["loop"] = ir::var_name(*kp.vector_var);
    v["trip"] = kp.vector_trip;
    v["blocked"] = kp.blocked;
    if (kp.column_window) v["window"] = true;
    j["vector"] = v;
  }
  if (kp.epilogue >= 0) {
    const scheduler::KernelNode& n = k.nodes[static_cast<std::size_t>(kp.epilogue)];
    j["epilogue"] = Json{{"node", n.name}, {"buffer", p[n.buffer].name}, {"reason", kp.epilogue_reason}};
  }
  if (kp.scan_across) j["scan_across"] = true;
  if (!kp.fold_reason.empty()) j["fold_batch"] = Json{{"folded", kp.fold_batch}, {"reason", kp.fold_reason}};
  if (!kp.pack_reason.empty()) {
    j["pack_b"] = Json{{"packed", kp.pack_b}, {"reason", kp.pack_reason}};
    if (kp.pack_once) j["pack_b"]["once"] = true;
  }
  if (kp.stream) j["stream"] = stream_json(*kp.stream, k, p, kp.stream_reason);
  else if (!kp.stream_reason.empty()) j["stream"] = kp.stream_reason;
  if (!kp.tiles.empty()) {
    Json tiles = Json::array();
    for (const Tile& t : kp.tiles) tiles.push_back(p[t.buffer].name + "[" + ir::to_string(t.at) + "]");
    j["tiles"] = tiles;
    j["prefetch_next_tile"] = kp.prefetch_next_tile;
  }
  if (!kp.column_prefetches.empty()) {
    j["prefetches"] = prefetches_json(kp.column_prefetches, p);
    j["prefetch_rows_ahead"] = kp.prefetch_ahead;
  }
  if (!kp.groups.empty()) {
    Json groups = Json::array();
    for (const GroupPlan& g : kp.groups) groups.push_back(group_json(g, k, p));
    j["groups"] = groups;
  }
  return j;
}

Json plan_json(const ProgramPlan& plan, const ir::Program& p, const scheduler::Schedule& s) {
  Json j;
  j["isa"] = plan.isa.name();
  j["lanes"] = lanes_json(plan.isa);
  Json regions = Json::array();
  for (const Region& r : plan.regions) {
    Json rj;
    std::vector<std::string> names;
    for (int i : r.kernels) names.push_back(plan.kernels[static_cast<std::size_t>(i)].name);
    rj["kernels"] = names;
    rj["work"] = r.work;
    regions.push_back(rj);
  }
  j["regions"] = regions;
  Json kernels = Json::array();
  for (const KernelPlan& kp : plan.kernels) kernels.push_back(kernel_json(kp, plan, p, s));
  j["kernels"] = kernels;
  return j;
}

}  // namespace

std::string dump_kernel_plan_json(const std::vector<ProgramPlan>& plans, const ir::Program& p,
                                  const scheduler::Schedule& s) {
  Json j;
  j["format"] = "stax-kernel-plan";
  j["version"] = 1;
  j["program"] = s.program;
  Json all = Json::array();
  for (const ProgramPlan& plan : plans) all.push_back(plan_json(plan, p, s));
  j["plans"] = all;
  return j.dump(2) + "\n";
}

std::string kernel_plan_log(const ProgramPlan& plan, const ir::Program& p) {
  std::string out = "kernel plan (--isa " + plan.isa.name() + "), " + std::to_string(plan.kernels.size()) + " kernels, " +
                    std::to_string(plan.regions.size()) + " shared parallel regions\n";
  for (const KernelPlan& kp : plan.kernels) {
    out += "kernel " + kp.name + ": " + std::string(form_name(kp.form)) + "\n";
    out += "  form: " + kp.form_reason + "\n";
    out += "  parallel: " + std::string(parallel_name(kp.parallel)) + "; " + kp.parallel_reason + "\n";
    if (kp.vector_var)
      out += "  vector loop " + ir::var_name(*kp.vector_var) + " of " + std::to_string(kp.vector_trip) +
             (kp.blocked ? ", shared among the threads in blocks" : "") + "\n";
    if (!kp.stream_reason.empty()) out += "  " + kp.stream_reason + "\n";
    if (kp.epilogue >= 0) out += "  epilogue: " + kp.epilogue_reason + "\n";
    if (!kp.pack_reason.empty()) out += "  packing: " + kp.pack_reason + "\n";
    for (const GroupPlan& g : kp.groups) out += "  group " + std::to_string(g.group) + ": " + g.reason + "\n";
    for (const BufferUse& u : kp.buffers)
      out += "  " + p[u.buffer].name + ": " + std::string(residence_name(u.where)) + "; " + u.reason + "\n";
  }
  return out;
}

}  // namespace stax::kernelplan
