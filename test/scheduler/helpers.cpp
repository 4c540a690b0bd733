#include "helpers.h"

#include "stax/graph/frontend.h"
#include "stax/lowering/lower.h"

namespace stax::scheduler::testing {

graph::Graph parse(const std::string& inputs, const std::string& nodes, const std::string& outputs,
                   const std::string& constants) {
  const std::string json = R"({"format": "stax-graph", "version": 1, "name": "t", "inputs": )" + inputs +
                           R"(, "constants": )" + constants + R"(, "nodes": )" + nodes + R"(, "outputs": )" +
                           outputs + "}";
  return graph::expand_composites(graph::parse_graph(json));
}

graph::Graph load_sample(const std::string& name) {
  return graph::expand_composites(graph::load_graph(std::string(STAX_SOURCE_DIR) + "/samples/" + name + ".json"));
}

Scheduled run(const graph::Graph& g, FusionOptions opts, bool verbose) {
  Scheduled out;
  out.program = lowering::lower(g);
  LogOptions log;
  log.verbose = verbose;
  log.sink = [&out](const std::string& line) { out.log += line + "\n"; };
  out.schedule = schedule(out.program, opts, log);
  return out;
}

std::vector<std::string> kernel_names(const Schedule& s) {
  std::vector<std::string> names;
  for (const Kernel& k : s.kernels) names.push_back(k.name);
  return names;
}

int refusals(const Schedule& s, Refusal r) { return s.refusals[static_cast<std::size_t>(r)]; }

}  // namespace stax::scheduler::testing
