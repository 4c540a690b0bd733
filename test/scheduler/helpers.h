// Helpers of the scheduler tests: graphs from JSON fragments, lowered and scheduled with the log
// collected.
#pragma once

#include <string>
#include <vector>

#include "stax/graph/graph.h"
#include "stax/ir/program.h"
#include "stax/scheduler/schedule.h"

namespace stax::scheduler::testing {

// A graph document from its parts (JSON fragments), composites expanded.
graph::Graph parse(const std::string& inputs, const std::string& nodes, const std::string& outputs,
                   const std::string& constants = "[]");
graph::Graph load_sample(const std::string& name);  // samples/NAME.json

struct Scheduled {
  ir::Program program;
  Schedule schedule;
  std::string log;  // every line, each ending in '\n'
};
Scheduled run(const graph::Graph& g, FusionOptions opts = {}, bool verbose = true);

// Kernel names in execution order.
std::vector<std::string> kernel_names(const Schedule& s);
int refusals(const Schedule& s, Refusal r);

}  // namespace stax::scheduler::testing
