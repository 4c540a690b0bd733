// Parallel loops of a kernel (§8.4, Algorithm 8.1) and the regions adjacent kernels share (§8.5).
#include "parallel.h"

#include "stax/kernelplan/access.h"

namespace stax::kernelplan {

int64_t kernel_work(const scheduler::Kernel& k) {
  int64_t per_outer = 0;
  for (const scheduler::LoopGroup& g : k.loop_groups) per_outer += product(g.inner) * product(g.reduce);
  return product(k.outer) * per_outer;
}

namespace detail {

// By Algorithm 8.1 with the thread count unknown at compile time: none below 2 * kMinChunk
// iterations (line 4 for P = 2; the `if` clause applies it for the real P at run time); else outer
// loops are added until they give at least 2 * kMaxThreadsPlanned units (line 3) or run out. The
// innermost loop of a pointwise nest is the vector loop and is not collapsed unless it is the
// only one.
std::size_t parallel_depth(const scheduler::Kernel& k) {
  const std::vector<int64_t>& outer = k.outer;
  if (kernel_work(k) < 2 * kMinChunk) return 0;
  const std::size_t limit = is_whole_nest(k) && outer.size() > 1 ? outer.size() - 1 : outer.size();
  std::size_t d = 0;
  int64_t par = 1;
  while (d < limit && par < 2 * kMaxThreadsPlanned) par *= outer[d++];
  return par > 1 ? d : 0;
}

void plan_parallel(const scheduler::Kernel& k, KernelPlan& kp) {
  kp.work = kernel_work(k);
  const std::size_t depth = parallel_depth(k);
  const std::string units = std::to_string(kp.work) + " iterations";
  if (depth == 0) {
    kp.parallel = Parallel::Serial;
    kp.parallel_reason = kp.work < 2 * kMinChunk ? units + ", fewer than two threads' minimum chunks (2 x " +
                                                       std::to_string(kMinChunk) + ")"
                                                 : "no outer loop to share";
    return;
  }
  kp.parallel_depth = depth;
  // A single pointwise loop of one block or less runs serially when vectorized, so it has no
  // worksharing loop to share a region with; a kernel that may fail needs its own region (its
  // error flag is a reduction over the region's threads).
  const bool single_block = is_whole_nest(k) && k.outer.size() == 1 && k.outer[0] <= kBlock;
  const std::string how = "Algorithm 8.1: " + std::to_string(depth) + " outer loop" + (depth > 1 ? "s" : "") +
                          " collapsed, " + units + ", chunk " + std::to_string(kMinChunk);
  if (!kp.fallible && !single_block) {
    kp.parallel = Parallel::Shared;
    kp.parallel_reason = how + "; shares the wrapper's region with adjacent loop kernels";
    return;
  }
  kp.parallel = Parallel::Standalone;
  kp.parallel_reason = how + (kp.fallible ? "; its own region (its error flag is reduced over the threads)"
                                          : "; its own region (one block: runs serially when vectorized)");
}

// A scan's outer loops (every dimension but the carried one; across: but the last too, then its
// blocks) run in parallel when the scan has kParallelMinWork elements, collapsed until they give
// kParallelMinUnits units.
void plan_scan_parallel(const ir::Buffer& b, KernelPlan& kp) {
  kp.work = b.numel();
  std::vector<int64_t> outer;
  const std::size_t last = b.shape.size() - 1;
  for (std::size_t d = 0; d < b.shape.size(); ++d)
    if (static_cast<int>(d) != b.scan_dim && !(kp.scan_across && d == last)) outer.push_back(b.shape[d]);
  if (kp.scan_across) outer.push_back((b.shape[last] + kColumnBlock - 1) / kColumnBlock);
  std::size_t depth = 0;
  int64_t units = 1;
  if (!outer.empty() && kp.work >= kParallelMinWork)
    while (depth < outer.size() && units < kParallelMinUnits) units *= outer[depth++];
  if (depth == 0 || units < 2) {
    kp.parallel_reason = "a scan of " + std::to_string(kp.work) + " elements with " + std::to_string(units) +
                         " independent lines: serial (parallel from " + std::to_string(kParallelMinWork) +
                         " elements in 2 or more lines)";
    return;
  }
  kp.parallel = Parallel::Standalone;
  kp.parallel_depth = depth;
  kp.parallel_reason = "a scan: its " + std::to_string(units) + (kp.scan_across ? " blocks of independent lines" : " independent lines") +
                       " shared among the threads";
}

void plan_regions(ProgramPlan& plan) {
  for (std::size_t i = 0; i < plan.kernels.size();) {
    if (plan.kernels[i].parallel != Parallel::Shared) {
      ++i;
      continue;
    }
    Region r;
    for (; i < plan.kernels.size() && plan.kernels[i].parallel == Parallel::Shared; ++i) {
      plan.kernels[i].region = static_cast<int>(plan.regions.size());
      r.kernels.push_back(static_cast<int>(i));
      r.work += plan.kernels[i].work;
    }
    plan.regions.push_back(r);
  }
}

}  // namespace detail
}  // namespace stax::kernelplan
