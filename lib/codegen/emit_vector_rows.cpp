// The vector-rows form: a pointwise nest whose innermost loop is the vector loop (§8.1, §8.3).
// When that loop is also the parallel one (a single long loop), the threads share it in blocks of
// kBlock; otherwise they share the outer loops. A large output is streamed.
#include "emit_forms.h"

namespace stax::codegen {

std::string open_blocks(CodeWriter& w, int64_t n, int64_t block) {
  const std::string B = std::to_string(block), N = std::to_string(n), first = "b0 * " + B;
  w.open(loop_head("b0", (n + block - 1) / block));
  w.line("const int64_t e0 = " + first + " + " + B + " < " + N + " ? " + first + " + " + B + " : " + N + ";");
  return first;
}

void emit_vector_rows(KernelEmitter& e, CodeWriter& loops) {
  const kernelplan::KernelPlan& plan = e.plan;
  const std::vector<int>& nodes = e.k.loop_groups.front().nodes;
  const ir::Var var = *plan.vector_var;
  const std::string v = ir::var_name(var);
  const int64_t n = plan.vector_trip;
  const std::size_t depth = e.depth();
  auto vector_body = [&](CodeWriter& w) { e.pointwise_nodes(nodes, w, &var); };
  auto scalar_body = [&](CodeWriter& w) { e.pointwise_nodes(nodes, w, nullptr); };
  auto vector_loop = [&](CodeWriter& w, const std::string& begin, const std::string& end) {
    if (plan.stream) e.streamed_loop(w, *plan.stream, v, begin, end, vector_body, scalar_body);
    else e.strip_mined(w, v, begin, end, vector_body, scalar_body);
  };
  if (plan.blocked) {
    e.parallel_loops(loops, 1, [&](CodeWriter& w) {
      vector_loop(w, open_blocks(w, n, kernelplan::kBlock), "e0");
      w.close();
    });
    return;
  }
  // The outer loops but the last shared among the threads (one block or fewer of a single
  // pointwise loop: serial, its work is below two threads' chunks).
  const std::size_t shared = std::min(e.parallel_depth(), depth - 1);
  e.parallel_loops(loops, shared, [&](CodeWriter& w) {
    for (std::size_t i = 0; i + 1 < depth; ++i) w.open(loop_head("x" + std::to_string(i), e.k.outer[i]));
    vector_loop(w, "0", std::to_string(n));
    close_loops(w, depth - 1);
  });
}

}  // namespace stax::codegen
