// The workspace plan the generated code follows (GeneratedCode::memory), made through the whole
// pipeline (load, expand composites, lower, schedule, generate) for every sample and for random
// graphs, and proved sound by the independent checker (check.h) against the problem rebuilt from
// the same schedule: no two buffers whose lifetimes overlap share a byte of the arena, and the
// arena is within 10% of M* of the chosen order (Definition 7.5) and never above the sum of the
// intermediates (design.md, "Memory"), and NAME_workspace_size() is the arena's size.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "random_graph.h"
#include "stax/driver/compile.h"
#include "stax/graph/frontend.h"
#include "stax/memory/check.h"
#include "stax/memory/from_schedule.h"
#include "stax/memory/plan.h"

namespace stax::memory {
namespace {

namespace fs = std::filesystem;

std::vector<fs::path> samples() {
  std::vector<fs::path> paths;
  for (const char* folder : {"samples", "samples/bench"})
    for (const auto& entry : fs::directory_iterator(fs::path(STAX_SOURCE_DIR) / folder))
      if (entry.path().extension() == ".json") paths.push_back(entry.path());
  std::sort(paths.begin(), paths.end());
  return paths;
}

// The problem of the model's own schedule, rebuilt here, restricted to the buffers the plan holds:
// code generation leaves out the intermediates a kernel keeps in local variables, which need no
// memory. Only intermediates may be left out (a violation otherwise).
MemoryProblem planned_problem(const driver::CompiledModel& m, std::vector<std::string>& v) {
  MemoryProblem full = problem_from_schedule(m.program, m.schedule);
  std::vector<bool> planned;
  for (const BufferPlan& b : m.memory.buffers) {
    if (b.id >= static_cast<int>(planned.size())) planned.resize(static_cast<std::size_t>(b.id) + 1, false);
    planned[static_cast<std::size_t>(b.id)] = true;
  }
  auto is_planned = [&planned](const MemBuffer& b) {
    return b.id < static_cast<int>(planned.size()) && planned[static_cast<std::size_t>(b.id)];
  };
  MemoryProblem p;
  std::vector<int> position(full.buffers.size(), -1);
  for (std::size_t i = 0; i < full.buffers.size(); ++i) {
    const MemBuffer& b = full.buffers[i];
    if (is_planned(b)) {
      position[i] = static_cast<int>(p.buffers.size());
      p.buffers.push_back(b);
    } else if (b.role != BufferRole::Intermediate) {
      v.push_back("the " + std::string(buffer_role_name(b.role)) + " " + b.name + " is not in the plan");
    }
  }
  auto kept = [&position](const std::vector<int>& refs) {
    std::vector<int> out;
    for (int r : refs)
      if (position[static_cast<std::size_t>(r)] >= 0) out.push_back(position[static_cast<std::size_t>(r)]);
    return out;
  };
  for (const Step& st : full.steps) {
    Step step{st.name, kept(st.defines), kept(st.reads), st.after, {}};
    for (const InPlaceCandidate& c : st.inplace)
      if (position[static_cast<std::size_t>(c.read)] >= 0 && position[static_cast<std::size_t>(c.write)] >= 0)
        step.inplace.push_back({position[static_cast<std::size_t>(c.read)], position[static_cast<std::size_t>(c.write)]});
    p.steps.push_back(std::move(step));
  }
  return p;
}

// The violations of the generated code's plan, empty when it is sound: check_plan against the
// problem of the model's own schedule, then the bounds the arena must meet, and the workspace the
// generated code asks for must be that arena.
std::vector<std::string> violations(const driver::CompiledModel& m) {
  const MemoryPlan& plan = m.memory;
  std::vector<std::string> v;
  const MemoryProblem p = planned_problem(m, v);
  for (std::string& w : check_plan(p, plan)) v.push_back(std::move(w));
  if (plan.arena_size > plan.sum_intermediates_aligned)
    v.push_back("arena " + std::to_string(plan.arena_size) + " B above the sum of the aligned intermediates " +
                std::to_string(plan.sum_intermediates_aligned) + " B");
  if (m.code.workspace_size != plan.arena_size)
    v.push_back("workspace_size " + std::to_string(m.code.workspace_size) + " B, arena " +
                std::to_string(plan.arena_size) + " B");
  return v;
}

double ratio(std::uint64_t num, std::uint64_t den) {
  return den == 0 ? (num == 0 ? 1.0 : 1e9) : static_cast<double>(num) / static_cast<double>(den);
}

// Definition 7.5 with every intermediate rounded up to the alignment: no arena that gives each
// live intermediate its own aligned bytes can be smaller, except where an in-place pair shares.
std::uint64_t aligned_m_star(const MemoryPlan& plan) {
  const std::uint64_t a = plan.options.alignment;
  std::vector<std::uint64_t> live(plan.order.size() + 1, 0);
  for (const BufferPlan& b : plan.buffers) {
    if (b.role != BufferRole::Intermediate) continue;
    for (int t = b.life.def; t <= b.life.last; ++t) live[static_cast<std::size_t>(t)] += (b.bytes + a - 1) / a * a;
  }
  return *std::max_element(live.begin(), live.end());
}

// Every sample, fused and not: printed per sample for the record (M*, arena, ratio, sum).
TEST(GeneratedPlan, EverySampleSoundAndWithinTenPercentOfMStar) {
  const std::vector<fs::path> paths = samples();
  for (const fs::path& path : paths) {
    for (bool fuse : {true, false}) {
      driver::CompileOptions opts;
      opts.fuse = fuse;
      const driver::CompiledModel m = driver::compile_model(path, opts);
      const MemoryPlan& plan = m.memory;
      const std::string what = path.parent_path().filename().string() + "/" + path.filename().string() +
                               (fuse ? "" : " (no fusion)");
      const std::vector<std::string> v = violations(m);
      EXPECT_TRUE(v.empty()) << what << ": " << v.front();
      EXPECT_LE(static_cast<double>(plan.arena_size), 1.1 * static_cast<double>(plan.m_star)) << what;
      std::printf("%-40s M* %10llu  arena %10llu  arena/M* %.3f  sum %10llu\n", what.c_str(),
                  static_cast<unsigned long long>(plan.m_star), static_cast<unsigned long long>(plan.arena_size),
                  ratio(plan.arena_size, plan.m_star), static_cast<unsigned long long>(plan.sum_intermediates));
    }
  }
  EXPECT_GE(paths.size(), 14u);  // 5 samples and 9 bench graphs at the time of writing
}

// Random graphs (test/randgraph), values up to 4096 elements: sound plans, and the arena within
// 10% of M* counted in aligned bytes (a 12-byte buffer takes 64, which M* itself does not see).
TEST(GeneratedPlan, RandomGraphsSound) {
  randgraph::RandomGraphOptions opt;
  opt.max_nodes = 24;
  opt.max_dim = 16;
  opt.max_numel = 4096;
  double worst = 0;
  int with_intermediates = 0;
  for (std::uint64_t seed = 7000; seed < 7060; ++seed) {
    const randgraph::RandomGraph g = randgraph::random_graph(seed, randgraph::lowerable(opt));
    const driver::CompiledModel m = driver::compile_graph(graph::parse_graph(g.json));
    const MemoryPlan& plan = m.memory;
    const std::vector<std::string> v = violations(m);
    EXPECT_TRUE(v.empty()) << g.name << ": " << v.front() << "\n" << g.json;
    const std::uint64_t bound = aligned_m_star(plan);
    EXPECT_LE(static_cast<double>(plan.arena_size), 1.1 * static_cast<double>(bound)) << g.name << "\n" << g.json;
    if (plan.m_star == 0) continue;
    ++with_intermediates;
    worst = std::max(worst, ratio(plan.arena_size, bound));
  }
  std::printf("random graphs: %d with intermediates, worst arena / aligned M* %.3f\n", with_intermediates, worst);
  EXPECT_GE(with_intermediates, 25);
}

}  // namespace
}  // namespace stax::memory
