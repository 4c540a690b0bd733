// Random graphs at scale (scripts/randgraph.sh): seeds FIRST .. FIRST + COUNT - 1 of the
// generator (lowerable options), compiled BATCH at a time into one program per instruction set
// and checked against the interpreter on the inputs `staxc check --seed SEED` generates. A graph
// that fails (does not compile, does not build, crashes, or differs) is shrunk by delta debugging
// (shrink.h) and written to OUT/rg_SEED.ISA.json with the original beside it and the command
// that reproduces it.
//
//   randgraph_check --count N [--first S] [--isa all|native,scalar,...] [--batch B] [--out DIR]
//                   [--max-nodes N] [--max-numel N] [--zero-divisors] [--no-shrink] [--conv]
// --conv adds the convolutions (and their batch norms) to the generated families; the seeds
// then make other graphs than without it.
// Exit status 0 when every graph passed, 1 when one failed, 2 on a usage error.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "random_graph.h"
#include "shrink.h"
#include "stax/driver/check.h"
#include "stax/driver/compile.h"
#include "stax/driver/process.h"
#include "stax/graph/frontend.h"
#include "stax/support/error.h"
#include "stax/support/random.h"

namespace stax::randgraph {
namespace {

namespace fs = std::filesystem;

struct Options {
  uint64_t first = 0;
  int64_t count = 0;
  std::vector<std::string> isas = {"all"};
  int batch = 100;
  fs::path out = "randgraph-failures";
  bool shrink = true;
  bool conv = false;  // --conv: convolutions too (the family lowerable() leaves out)
  randgraph::RandomGraphOptions gen;
};

// The flags a build for `isa` needs (as the e2e suites use them: -O1, warnings are errors).
std::vector<std::string> cxxflags(const IsaTarget& isa) {
  std::vector<std::string> f = {"-std=c++17", "-O1", "-fopenmp", "-Wall", "-Wextra", "-Werror"};
  if (isa.kind == IsaTarget::Kind::Native) f.push_back("-march=native");
  if (isa.kind == IsaTarget::Kind::Fixed)
    for (const std::string& x : driver::split_flags(std::string(isa_record(isa.fixed).flags))) f.push_back(x);
  return f;
}

std::string join(const std::vector<std::string>& v, const char* sep = " ") {
  std::string s;
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? sep : "") + v[i];
  return s;
}

struct Graph1 {
  uint64_t seed;
  std::string json;
  bool may_divide_by_zero;
};

// "" when the graph passed; else what went wrong ("compile: ...", "build", "run: ...", "differs").
struct Verdict {
  std::string kind;  // "", "compile", "build", "run", "differs"
  std::string detail;
};

std::vector<Tensor> inputs_for(const graph::Graph& g, uint64_t seed) {
  std::vector<Tensor> in;
  for (std::size_t k = 0; k < g.inputs.size(); ++k) {
    const graph::Value& v = g[g.inputs[k]];
    in.push_back(random_tensor(v.dtype, v.shape, seed, k));
  }
  return in;
}

Verdict judge(const driver::CompiledModel& m, const driver::Harness& h, std::size_t k, const Graph1& g) {
  driver::CheckReport r;
  try {
    r = driver::check_outputs(m, h, k, inputs_for(m.graph, g.seed), driver::Tolerance{1e-5, 1e-6}, k % 2 == 0);
  } catch (const std::exception& e) {
    return {"run", e.what()};
  }
  if (!r.passed) return {"differs", join(r.lines, "; ")};
  if (r.runtime_error && !g.may_divide_by_zero) return {"run", "unexpected run-time error: " + join(r.lines, "; ")};
  return {};
}

// Compiles, builds and checks `graphs` for `isa`; one verdict per graph. A batch that does not
// build is split in halves until the graphs that break the build are alone.
std::vector<Verdict> check_batch(const std::vector<Graph1>& graphs, const IsaTarget& isa) {
  std::vector<Verdict> out(graphs.size());
  std::vector<driver::CompiledModel> models;
  std::vector<std::size_t> index;
  for (std::size_t k = 0; k < graphs.size(); ++k) {
    try {
      driver::CompileOptions o;
      o.name = "m" + std::to_string(k);
      o.isa = isa;
      models.push_back(driver::compile_graph(graph::parse_graph(graphs[k].json), o));
      index.push_back(k);
    } catch (const std::exception& e) {
      out[k] = {"compile", e.what()};
    }
  }
  if (models.empty()) return out;
  std::vector<const codegen::GeneratedCode*> codes;
  for (const auto& m : models) codes.push_back(&m.code);
  driver::BuildOptions b;
  b.cxxflags = cxxflags(isa);
  std::optional<driver::Harness> h;
  try {
    h.emplace(driver::Harness::build(codes, b));
  } catch (const std::exception& e) {
    if (index.size() == 1) {
      out[index[0]] = {"build", e.what()};
      return out;
    }
    std::vector<Graph1> lo, hi;
    for (std::size_t j = 0; j < index.size(); ++j) (j < index.size() / 2 ? lo : hi).push_back(graphs[index[j]]);
    std::vector<Verdict> vl = check_batch(lo, isa), vh = check_batch(hi, isa);
    for (std::size_t j = 0; j < index.size(); ++j) out[index[j]] = j < lo.size() ? vl[j] : vh[j - lo.size()];
    return out;
  }
  for (std::size_t j = 0; j < models.size(); ++j) out[index[j]] = judge(models[j], *h, j, graphs[index[j]]);
  return out;
}

// Shrinks a failure and writes it with the command that reproduces it.
void report_failure(const Options& opt, const Graph1& g, const IsaTarget& isa, const Verdict& v) {
  fs::create_directories(opt.out);
  std::string base = "rg_" + std::to_string(g.seed) + "." + isa.name();
  std::string smallest = g.json;
  if (opt.shrink) {
    int tests = 0;
    smallest = shrink_graph(g.json, [&](const std::string& json) {
      ++tests;
      Graph1 c{g.seed, json, g.may_divide_by_zero};
      return check_batch({c}, isa)[0].kind == v.kind;
    });
    std::cerr << "  shrunk in " << tests << " tests: " << g.json.size() << " -> " << smallest.size() << " bytes\n";
  }
  driver::write_file_atomic(opt.out / (base + ".original.json"), g.json);
  driver::write_file_atomic(opt.out / (base + ".json"), smallest + "\n");
  std::string cmd = "staxc check " + (opt.out / (base + ".json")).string() + " --seed " + std::to_string(g.seed) +
                    " --isa " + isa.name() + " --cxxflags '" + join(cxxflags(isa)) + "'";
  driver::write_file_atomic(opt.out / (base + ".repro.sh"), "#!/bin/sh\n# " + v.kind + ": " + v.detail.substr(0, 2000) + "\n" + cmd + "\n");
  std::cerr << "FAIL seed " << g.seed << " --isa " << isa.name() << ": " << v.kind << ": " << v.detail.substr(0, 500)
            << "\n  smallest failing graph: " << (opt.out / (base + ".json")).string() << "\n  repro: " << cmd << "\n";
}

int usage(const std::string& why) {
  std::cerr << "randgraph_check: " << why << "\nusage: randgraph_check --count N [--first S] [--isa LIST] [--batch B] "
               "[--out DIR] [--max-nodes N] [--max-numel N] [--zero-divisors] [--no-shrink] [--conv]\n";
  return 2;
}

std::optional<Options> parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> std::string { return i + 1 < argc ? argv[++i] : throw UserError(a + " needs a value"); };
    if (a == "--count") o.count = std::stoll(value());
    else if (a == "--first") o.first = std::stoull(value());
    else if (a == "--batch") o.batch = std::max(1, std::stoi(value()));
    else if (a == "--out") o.out = value();
    else if (a == "--max-nodes") o.gen.max_nodes = std::stoi(value());
    else if (a == "--max-numel") o.gen.max_numel = std::stoll(value());
    else if (a == "--zero-divisors") o.gen.zero_divisors = true;
    else if (a == "--no-shrink") o.shrink = false;
    else if (a == "--conv") o.conv = true;
    else if (a == "--isa") {
      o.isas.clear();
      std::string list = value();
      for (std::size_t p = 0; p <= list.size();) {
        std::size_t e = std::min(list.find(',', p), list.size());
        o.isas.push_back(list.substr(p, e - p));
        p = e + 1;
      }
    } else throw UserError("unknown option '" + a + "'");
  }
  if (o.count <= 0) throw UserError("--count N (N >= 1) is required");
  return o;
}

}  // namespace

int run(int argc, char** argv) {
  Options opt;
  std::vector<IsaTarget> isas;
  try {
    opt = *parse(argc, argv);
    for (const std::string& name : opt.isas) {
      if (name == "all") {  // every set this machine runs, then dispatch where it is x86-64
        for (const IsaRecord& r : isa_table())
          if (host_supports(r)) isas.push_back(IsaTarget::of(r.id));
        if (host_supports(isa_record(Isa::Avx2)) || host_supports(isa_record(Isa::Avx512))) isas.push_back(IsaTarget::dispatch());
        continue;
      }
      std::optional<IsaTarget> t = IsaTarget::parse(name);
      if (!t) throw UserError("unknown --isa '" + name + "'");
      isas.push_back(*t);
    }
  } catch (const std::exception& e) {
    return usage(e.what());
  }
  const auto start = std::chrono::steady_clock::now();
  int64_t failed = 0, checked = 0;
  for (int64_t b = 0; b < opt.count; b += opt.batch) {
    std::vector<Graph1> graphs;
    for (int64_t k = b; k < std::min(opt.count, b + opt.batch); ++k) {
      uint64_t seed = opt.first + static_cast<uint64_t>(k);
      RandomGraphOptions go = lowerable(opt.gen);
      go.conv = opt.conv;
      RandomGraph g = random_graph(seed, go);
      graphs.push_back({seed, g.json, g.may_divide_by_zero});
    }
    for (const IsaTarget& isa : isas) {
      std::vector<Verdict> v = check_batch(graphs, isa);
      for (std::size_t k = 0; k < graphs.size(); ++k) {
        ++checked;
        if (v[k].kind.empty()) continue;
        ++failed;
        report_failure(opt, graphs[k], isa, v[k]);
      }
    }
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("randgraph: seeds %llu..%llu, %lld checks, %lld failed, %.0f s\n", static_cast<unsigned long long>(opt.first),
                static_cast<unsigned long long>(graphs.back().seed), static_cast<long long>(checked),
                static_cast<long long>(failed), s);
    std::fflush(stdout);
  }
  std::printf("%lld passed, %lld failed\n", static_cast<long long>(checked - failed), static_cast<long long>(failed));
  return failed == 0 ? 0 : 1;
}

}  // namespace stax::randgraph

int main(int argc, char** argv) { return stax::randgraph::run(argc, argv); }
