// Delta debugging of a failing graph: the smallest graph that still fails the same way.
#pragma once

#include <functional>
#include <string>

namespace stax::randgraph {

// Shrinks the graph document `json`, for which `fails` is true, keeping every step for which it
// stays true: first one output alone, then named nodes turned into graph inputs of their dtype
// and shape (chunks of halving size, ddmin's granularity), dropping whatever no output needs,
// then each input's dims made 1 or halved. Documents the front end refuses are never passed to
// `fails`. At most `max_tests` calls of `fails`. Returns the smallest failing document.
std::string shrink_graph(const std::string& json, const std::function<bool(const std::string&)>& fails,
                         int max_tests = 200);

}  // namespace stax::randgraph
