#include "stax/memory/from_schedule.h"

#include <algorithm>
#include <map>

#include "stax/scheduler/fusion.h"
#include "stax/support/error.h"

namespace stax::memory {

namespace {

bool contains(const std::vector<int>& v, int x) { return std::find(v.begin(), v.end(), x) != v.end(); }

void add_once(std::vector<int>& v, int x) {
  if (!contains(v, x)) v.push_back(x);
}

BufferRole computed_role(const ir::Program& p, ir::BufferId id) {
  const bool output = std::any_of(p.outputs.begin(), p.outputs.end(),
                                  [id](const ir::ProgramOutput& o) { return o.buffer == id; });
  return output ? BufferRole::Output : BufferRole::Intermediate;
}

class Builder {
 public:
  Builder(const ir::Program& p, const scheduler::Schedule& s) : p_(p), s_(s) {}

  MemoryProblem build() {
    index_nodes();
    add_buffers();
    for (std::size_t k = 0; k < s_.kernels.size(); ++k) out_.steps.push_back(step_of(static_cast<int>(k)));
    return std::move(out_);
  }

 private:
  void index_nodes() {
    for (std::size_t n = 0; n < s_.nodes.size(); ++n) node_of_buffer_[s_.nodes[n].buffer] = static_cast<int>(n);
    kernel_of_node_.assign(s_.nodes.size(), -1);
    computed_.assign(p_.buffers.size(), false);
    for (std::size_t k = 0; k < s_.kernels.size(); ++k)
      for (const scheduler::KernelNode& kn : s_.kernels[k].nodes) {
        computed_[static_cast<std::size_t>(kn.buffer)] = true;
        kernel_of_node_[static_cast<std::size_t>(node_of_buffer_.at(kn.buffer))] = static_cast<int>(k);
      }
  }

  void add_buffers() {
    for (const ir::Buffer& b : p_.buffers) {
      BufferRole role = BufferRole::Input;
      switch (b.kind) {
        case ir::BufferKind::Input: role = BufferRole::Input; break;
        case ir::BufferKind::Constant: role = BufferRole::Constant; break;
        case ir::BufferKind::Pointwise:
        case ir::BufferKind::Reduction:
        case ir::BufferKind::Scan:
        case ir::BufferKind::Extern:
          if (!computed_[static_cast<std::size_t>(b.id)]) continue;  // a dead node's
          role = computed_role(p_, b.id);
          break;
      }
      position_[b.id] = static_cast<int>(out_.buffers.size());
      const std::uint64_t bytes = static_cast<std::uint64_t>(b.numel()) * dtype_size(b.dtype);
      out_.buffers.push_back({b.id, b.name, b.dtype, bytes, role});
    }
  }

  int pos(ir::BufferId id) const { return position_.at(id); }
  const scheduler::SchedulerNode& node(ir::BufferId id) const {
    return s_.nodes[static_cast<std::size_t>(node_of_buffer_.at(id))];
  }

  Step step_of(int k) {
    const scheduler::Kernel& kernel = s_.kernels[static_cast<std::size_t>(k)];
    Step st;
    st.name = kernel.name;
    for (const scheduler::KernelNode& kn : kernel.nodes) st.defines.push_back(pos(kn.buffer));
    for (const scheduler::KernelNode& kn : kernel.nodes) {
      const scheduler::SchedulerNode& n = node(kn.buffer);
      for (const scheduler::Dep& d : n.reads) {
        if (d.kind == scheduler::DepKind::Weak || !position_.count(d.buffer)) continue;
        const int b = pos(d.buffer);
        if (!contains(st.defines, b)) add_once(st.reads, b);
      }
      for (int pred : n.preds) {
        const int pk = kernel_of_node_[static_cast<std::size_t>(pred)];
        if (pk >= 0 && pk != k) add_once(st.after, pk);
      }
    }
    std::sort(st.after.begin(), st.after.end());
    for (std::size_t w = 0; w < kernel.nodes.size(); ++w)
      for (int r : st.reads)
        if (inplace_ok(kernel, w, out_.buffers[static_cast<std::size_t>(r)].id)) st.inplace.push_back({r, st.defines[w]});
    return st;
  }

  // See the header: node w of the kernel may write into R.
  bool inplace_ok(const scheduler::Kernel& kernel, std::size_t w, ir::BufferId r) const {
    const scheduler::KernelNode& writer = kernel.nodes[w];
    if (writer.kind != scheduler::NodeKind::Pointwise) return false;
    // A GEMM writes partial sums into its epilogue's buffer before the epilogue reads anything.
    if (kernel.kind == scheduler::KernelKind::Epilogue) return false;
    const ir::Buffer& wb = p_[writer.buffer];
    const ir::Buffer& rb = p_[r];
    if (rb.dtype != wb.dtype || rb.numel() != wb.numel()) return false;
    const std::size_t depth = kernel.outer.size();
    const ir::CanonicalAccess written = scheduler::access_at_depth(wb.write_index(), writer.loops, depth);
    for (std::size_t x = 0; x < kernel.nodes.size(); ++x) {
      const scheduler::KernelNode& kn = kernel.nodes[x];
      const scheduler::SchedulerNode& n = node(kn.buffer);
      const bool reads_r = std::any_of(n.reads.begin(), n.reads.end(), [r](const scheduler::Dep& d) {
        return d.buffer == r && d.kind != scheduler::DepKind::Weak;
      });
      if (!reads_r) continue;
      // An indexed load (a StarDep) may read any element of R, after W wrote over it.
      const bool whole = std::any_of(n.reads.begin(), n.reads.end(), [r](const scheduler::Dep& d) {
        return d.buffer == r && d.kind == scheduler::DepKind::Star;
      });
      if (whole) return false;
      if (x > w) return false;  // would read R after W overwrote it
      if (kn.kind != scheduler::NodeKind::Pointwise && kn.kind != scheduler::NodeKind::Reduction) return false;
      for (const scheduler::Access& a : n.loads)
        if (a.buffer == r && !(scheduler::access_at_depth(a.index, kn.loops, depth) == written)) return false;
    }
    return true;
  }

  const ir::Program& p_;
  const scheduler::Schedule& s_;
  MemoryProblem out_;
  std::map<ir::BufferId, int> node_of_buffer_;
  std::map<ir::BufferId, int> position_;
  std::vector<int> kernel_of_node_;
  std::vector<bool> computed_;  // per buffer id: some kernel computes it
};

}  // namespace

MemoryProblem problem_from_schedule(const ir::Program& p, const scheduler::Schedule& s) {
  MemoryProblem out = Builder(p, s).build();
  const std::string invalid = validate_problem(out);
  STAX_ASSERT(invalid.empty(), "the schedule gives an invalid memory problem: " + invalid);
  return out;
}

MemoryProblem without_buffers(MemoryProblem problem, const std::vector<bool>& leave_out) {
  std::vector<int> remap(problem.buffers.size(), -1);
  std::vector<MemBuffer> kept;
  for (std::size_t i = 0; i < problem.buffers.size(); ++i) {
    const int id = problem.buffers[i].id;
    if (id >= 0 && static_cast<std::size_t>(id) < leave_out.size() && leave_out[static_cast<std::size_t>(id)]) continue;
    remap[i] = static_cast<int>(kept.size());
    kept.push_back(problem.buffers[i]);
  }
  auto keep = [&](std::vector<int>& refs) {
    std::vector<int> out;
    for (int r : refs)
      if (remap[static_cast<std::size_t>(r)] >= 0) out.push_back(remap[static_cast<std::size_t>(r)]);
    refs = std::move(out);
  };
  for (Step& st : problem.steps) {
    keep(st.defines);
    keep(st.reads);
    std::vector<InPlaceCandidate> inplace;
    for (const InPlaceCandidate& c : st.inplace) {
      const int r = remap[static_cast<std::size_t>(c.read)], w = remap[static_cast<std::size_t>(c.write)];
      if (r >= 0 && w >= 0) inplace.push_back({r, w});
    }
    st.inplace = std::move(inplace);
  }
  problem.buffers = std::move(kept);
  return problem;
}

}  // namespace stax::memory
