// The adapter from lowered programs, and plans of every sample checked.
#include "stax/memory/from_program.h"
#include "stax/memory/from_schedule.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "stax/graph/frontend.h"
#include "stax/ir/program.h"
#include "stax/lowering/lower.h"
#include "stax/memory/check.h"
#include "stax/memory/dump.h"
#include "stax/memory/plan.h"

namespace stax::memory {
namespace {

ir::Program lowered(std::string_view json) { return lowering::lower(graph::expand_composites(graph::parse_graph(json))); }

const MemBuffer& named(const MemoryProblem& p, const std::string& name) {
  for (const MemBuffer& b : p.buffers)
    if (b.name == name) return b;
  throw std::runtime_error("no buffer " + name);
}

TEST(FromProgram, RolesSizesStepsAndInPlaceCandidates) {
  // exp is materialized (two users, expensive: design.md's rule 1); the sum reads it along rows,
  // the add reads it at its own index.
  const ir::Program prog = lowered(R"({
    "format": "stax-graph", "version": 1, "name": "t",
    "inputs": [ {"name": "x", "dtype": "float32", "shape": [8, 16]} ],
    "nodes": [
      {"name": "e", "op": "exp", "args": ["x"]},
      {"name": "s", "op": "sum", "args": ["e"], "dim": -1, "keepdim": true},
      {"name": "y", "op": "add", "args": ["e", "s"]}
    ],
    "outputs": ["y"]
  })");
  const MemoryProblem p = problem_from_program(prog);
  ASSERT_EQ(validate_problem(p), "");
  ASSERT_EQ(p.buffers.size(), prog.buffers.size());
  EXPECT_EQ(p.buffers[0].role, BufferRole::Input);
  EXPECT_EQ(p.buffers[0].bytes, 8u * 16u * 4u);
  // x, then exp, sum, add (buf1..buf3).
  ASSERT_EQ(p.steps.size(), 3u);
  const MemBuffer& e = named(p, "buf1");
  const MemBuffer& s = named(p, "buf2");
  const MemBuffer& y = named(p, "buf3");
  EXPECT_EQ(e.role, BufferRole::Intermediate);
  EXPECT_EQ(s.role, BufferRole::Intermediate);
  EXPECT_EQ(s.bytes, 8u * 4u);
  EXPECT_EQ(y.role, BufferRole::Output);
  EXPECT_EQ(p.steps[1].reads, std::vector<int>{e.id});
  EXPECT_TRUE(p.steps[1].inplace.empty());  // a reduction
  // The add reads e at its own index: a candidate (refused by the planner: y is an output).
  ASSERT_EQ(p.steps[2].inplace.size(), 1u);
  EXPECT_EQ(p.steps[2].inplace[0].read, e.id);
  EXPECT_EQ(p.steps[2].inplace[0].write, y.id);
}

TEST(FromProgram, NoCandidateForATransposedRead) {
  const ir::Program prog = lowered(R"({
    "format": "stax-graph", "version": 1, "name": "t",
    "inputs": [ {"name": "x", "dtype": "float32", "shape": [16, 16]} ],
    "nodes": [
      {"name": "e", "op": "exp", "args": ["x"]},
      {"name": "m", "op": "amax", "args": ["e"], "dim": -1, "keepdim": true},
      {"name": "t", "op": "transpose", "args": ["e"], "dim0": 0, "dim1": 1},
      {"name": "u", "op": "mul", "args": ["t", "m"]},
      {"name": "v", "op": "neg", "args": ["u"]}
    ],
    "outputs": ["v", "m"]
  })");
  const MemoryProblem p = problem_from_program(prog);
  ASSERT_EQ(validate_problem(p), "");
  // The last step (v, u inlined) reads exp (buf1, same dtype and size) through the transpose.
  const Step& last = p.steps.back();
  ASSERT_NE(std::find(last.reads.begin(), last.reads.end(), named(p, "buf1").id), last.reads.end());
  EXPECT_EQ(named(p, "buf1").bytes, p.buffers[static_cast<std::size_t>(last.defines[0])].bytes);
  for (const Step& s : p.steps)
    for (const InPlaceCandidate& c : s.inplace) EXPECT_NE(p.buffers[static_cast<std::size_t>(c.read)].name, "buf1") << s.name;
}

// Every sample: a sound plan, and the arena within 10% of M* (printed per sample).
TEST(FromProgram, NoCandidateForAnIndexedRead) {
  // buf3[x0] = buf2[x0 + 0 * checked(i[x0], 4)]: the base is the written index, but an indexed
  // load may read any element of buf2, so buf3 never takes buf2's memory (a plain load would).
  ir::Program p;
  p.name = "t";
  auto add = [&](const std::string& name, ir::BufferKind kind, DType dt, ir::Expr body) {
    ir::Buffer b;
    b.id = static_cast<ir::BufferId>(p.buffers.size());
    b.name = name;
    b.kind = kind;
    b.dtype = dt;
    b.shape = {4};
    b.input_index = kind == ir::BufferKind::Input ? b.id : -1;
    b.body = std::move(body);
    p.buffers.push_back(std::move(b));
  };
  const ir::Index x0 = ir::Index::var(ir::xvar(0));
  add("x", ir::BufferKind::Input, DType::Float32, {});
  add("i", ir::BufferKind::Input, DType::Int64, {});
  add("buf2", ir::BufferKind::Pointwise, DType::Float32, ir::unary(ir::ExprOp::Exp, ir::load(0, DType::Float32, x0)));
  add("buf3", ir::BufferKind::Pointwise, DType::Float32,
      ir::indirect_load(2, DType::Float32, x0, ir::load(1, DType::Int64, x0), 0, 4));
  p.outputs = {ir::ProgramOutput{3, 0}};
  ir::verify(p);
  EXPECT_TRUE(problem_from_program(p).steps.at(1).inplace.empty());
  p.buffers[3].body = ir::load(2, DType::Float32, x0);
  ASSERT_EQ(problem_from_program(p).steps.at(1).inplace.size(), 1u);
}

TEST(FromProgram, EverySample) {
  std::vector<std::filesystem::path> samples;
  for (const auto& entry : std::filesystem::directory_iterator(std::filesystem::path(STAX_SOURCE_DIR) / "samples"))
    if (entry.path().extension() == ".json") samples.push_back(entry.path());
  std::sort(samples.begin(), samples.end());
  for (const std::filesystem::path& path : samples) {
    const ir::Program prog = lowering::lower(graph::expand_composites(graph::load_graph(path)));
    const MemoryProblem p = problem_from_program(prog);
    ASSERT_EQ(validate_problem(p), "") << path;
    for (bool reuse : {true, false}) {
      PlannerOptions o;
      o.reuse = reuse;
      const MemoryPlan plan = plan_memory(p, o);
      const std::vector<std::string> v = check_plan(p, plan);
      ASSERT_TRUE(v.empty()) << path << ": " << v.front();
      EXPECT_LE(plan.arena_size, plan.sum_intermediates_aligned);
      EXPECT_LE(static_cast<double>(plan.arena_size), 1.1 * static_cast<double>(plan.m_star)) << path;
      if (reuse)
        std::printf("%s: M* %llu, arena %llu, sum %llu\n", path.filename().c_str(),
                    static_cast<unsigned long long>(plan.m_star), static_cast<unsigned long long>(plan.arena_size),
                    static_cast<unsigned long long>(plan.sum_intermediates));
    }
  }
  EXPECT_GE(samples.size(), 5u);
}

}  // namespace
}  // namespace stax::memory

namespace stax::memory {
namespace {

TEST(FromSchedule, KernelsAsStepsWithInPlaceAfterAMatmul) {
  const ir::Program prog = lowered(R"({
    "format": "stax-graph", "version": 1, "name": "t",
    "inputs": [ {"name": "x", "dtype": "float32", "shape": [8, 16]} ],
    "constants": [ {"name": "w1", "dtype": "float32", "shape": [16, 16], "fill": 0.5},
                   {"name": "w2", "dtype": "float32", "shape": [16, 4], "fill": 0.25} ],
    "nodes": [
      {"name": "h", "op": "matmul", "args": ["x", "w1"]},
      {"name": "a", "op": "relu", "args": ["h"]},
      {"name": "y", "op": "matmul", "args": ["a", "w2"]}
    ],
    "outputs": ["y"]
  })");
  scheduler::FusionOptions alone;
  alone.epilogues = false;  // the relu would be the first product's epilogue
  const scheduler::Schedule s = scheduler::schedule(prog, alone);
  const MemoryProblem p = problem_from_schedule(prog, s);
  ASSERT_EQ(p.steps.size(), 3u);  // matmul, relu, matmul: externs run on their own
  ASSERT_EQ(p.steps[1].defines.size(), 1u);
  const int a = p.steps[1].defines[0];
  const int h = p.steps[0].defines[0];
  EXPECT_EQ(p.buffers[static_cast<std::size_t>(h)].role, BufferRole::Intermediate);
  EXPECT_EQ(p.steps[1].reads, std::vector<int>{h});
  ASSERT_EQ(p.steps[1].inplace.size(), 1u);
  EXPECT_EQ(p.steps[1].inplace[0].read, h);
  EXPECT_EQ(p.steps[1].inplace[0].write, a);
  EXPECT_TRUE(p.steps[0].inplace.empty());
  EXPECT_TRUE(p.steps[2].inplace.empty());
  const MemoryPlan plan = plan_memory(p);
  EXPECT_TRUE(check_plan(p, plan).empty());
  EXPECT_EQ(plan.buffers[static_cast<std::size_t>(a)].placement, Placement::InPlace);
  EXPECT_EQ(plan.arena_size, 8u * 16u * 4u);  // h, then a in its place
}

// An indexed load may read any element of what it indexes: never written over in place (seed 592
// of scripts/randgraph.sh: an index_select of a softmax's rows read rows already overwritten).
TEST(FromSchedule, NoInPlaceOverWhatAnIndexedLoadReads) {
  const ir::Program prog = lowered(R"({
    "format": "stax-graph", "version": 1, "name": "t",
    "inputs": [ {"name": "x", "dtype": "float32", "shape": [5, 3]}, {"name": "q", "dtype": "int64", "shape": [5]} ],
    "nodes": [
      {"name": "e", "op": "cumsum", "args": ["x"], "dim": 1},
      {"name": "y", "op": "index_select", "args": ["e", "q"], "dim": 0}
    ],
    "outputs": ["y"]
  })");
  const scheduler::Schedule s = scheduler::schedule(prog);
  const MemoryProblem p = problem_from_schedule(prog, s);
  ASSERT_EQ(p.steps.size(), 2u);
  for (const Step& st : p.steps) EXPECT_TRUE(st.inplace.empty()) << st.name;
}

TEST(FromSchedule, EverySample) {
  std::vector<std::filesystem::path> samples;
  for (const auto& entry : std::filesystem::directory_iterator(std::filesystem::path(STAX_SOURCE_DIR) / "samples"))
    if (entry.path().extension() == ".json") samples.push_back(entry.path());
  std::sort(samples.begin(), samples.end());
  for (const std::filesystem::path& path : samples) {
    const ir::Program prog = lowering::lower(graph::expand_composites(graph::load_graph(path)));
    for (bool fuse : {true, false}) {
      scheduler::FusionOptions fo;
      fo.fuse = fuse;
      const scheduler::Schedule s = scheduler::schedule(prog, fo);
      const MemoryProblem p = problem_from_schedule(prog, s);
      ASSERT_EQ(p.steps.size(), s.kernels.size());
      const MemoryPlan plan = plan_memory(p);
      const std::vector<std::string> v = check_plan(p, plan);
      ASSERT_TRUE(v.empty()) << path << ": " << v.front();
      EXPECT_LE(static_cast<double>(plan.arena_size), 1.1 * static_cast<double>(plan.m_star)) << path;
      EXPECT_LE(plan.arena_size, plan.sum_intermediates_aligned);
    }
  }
}

}  // namespace
}  // namespace stax::memory
