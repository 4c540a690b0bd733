#include "stax/memory/problem.h"

#include <algorithm>

#include "stax/support/error.h"

namespace stax::memory {

std::string_view buffer_role_name(BufferRole r) {
  switch (r) {
    case BufferRole::Input: return "input";
    case BufferRole::Constant: return "constant";
    case BufferRole::Intermediate: return "intermediate";
    case BufferRole::Output: return "output";
  }
  return "?";
}

namespace {

bool is_computed(BufferRole r) { return r == BufferRole::Intermediate || r == BufferRole::Output; }

bool contains(const std::vector<int>& v, int x) { return std::find(v.begin(), v.end(), x) != v.end(); }

std::string step_label(const MemoryProblem& p, std::size_t s) {
  return "step " + std::to_string(s) + " (" + p.steps[s].name + ")";
}

}  // namespace

std::string validate_problem(const MemoryProblem& p) {
  const int nb = static_cast<int>(p.buffers.size());
  const int ns = static_cast<int>(p.steps.size());
  auto in_range = [nb](int b) { return b >= 0 && b < nb; };
  std::vector<int> def(p.buffers.size(), -1);
  for (std::size_t s = 0; s < p.steps.size(); ++s) {
    const Step& st = p.steps[s];
    for (int b : st.defines) {
      if (!in_range(b)) return step_label(p, s) + " defines buffer " + std::to_string(b) + ", out of range";
      const MemBuffer& buf = p.buffers[static_cast<std::size_t>(b)];
      if (!is_computed(buf.role)) return step_label(p, s) + " defines " + buf.name + ", an " + std::string(buffer_role_name(buf.role));
      if (def[static_cast<std::size_t>(b)] >= 0) return buf.name + " is defined twice";
      def[static_cast<std::size_t>(b)] = static_cast<int>(s);
    }
    for (int b : st.reads) {
      if (!in_range(b)) return step_label(p, s) + " reads buffer " + std::to_string(b) + ", out of range";
      const MemBuffer& buf = p.buffers[static_cast<std::size_t>(b)];
      if (is_computed(buf.role) && def[static_cast<std::size_t>(b)] < 0)
        return step_label(p, s) + " reads " + buf.name + " before it is defined";
    }
    for (int a : st.after) {
      if (a < 0 || a >= ns) return step_label(p, s) + " follows step " + std::to_string(a) + ", out of range";
      if (a >= static_cast<int>(s)) return step_label(p, s) + " must follow the later step " + std::to_string(a);
    }
    for (const InPlaceCandidate& c : st.inplace) {
      if (!contains(st.reads, c.read)) return step_label(p, s) + " has an in-place candidate it does not read";
      if (!contains(st.defines, c.write)) return step_label(p, s) + " has an in-place candidate it does not define";
    }
  }
  for (std::size_t b = 0; b < p.buffers.size(); ++b)
    if (is_computed(p.buffers[b].role) && def[b] < 0) return p.buffers[b].name + " is defined by no step";
  return "";
}

std::vector<int> defining_steps(const MemoryProblem& p) {
  std::vector<int> def(p.buffers.size(), -1);
  for (std::size_t s = 0; s < p.steps.size(); ++s)
    for (int b : p.steps[s].defines) def[static_cast<std::size_t>(b)] = static_cast<int>(s);
  return def;
}

std::vector<std::vector<int>> step_predecessors(const MemoryProblem& p) {
  const std::vector<int> def = defining_steps(p);
  std::vector<std::vector<int>> preds(p.steps.size());
  for (std::size_t s = 0; s < p.steps.size(); ++s) {
    std::vector<int>& v = preds[s];
    for (int b : p.steps[s].reads) {
      const int d = def[static_cast<std::size_t>(b)];
      if (d >= 0 && d != static_cast<int>(s)) v.push_back(d);
    }
    for (int a : p.steps[s].after) v.push_back(a);
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
    STAX_ASSERT(v.empty() || v.back() < static_cast<int>(s), "the given order is not topological");
  }
  return preds;
}

}  // namespace stax::memory
