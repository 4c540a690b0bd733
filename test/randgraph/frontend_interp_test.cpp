// Random graphs through the front end and the reference interpreter. Every generated graph is
// valid, so any rejection or failure is a bug in one of the two (or in the generator): the
// failure message gives the seed and the JSON. The front end's inferred dtypes and shapes are
// compared with the generator's own inference, every value must lie within the bounds the
// generator claims for it, and interpreting the graph with and without expanded composites must
// agree.
//
// STAX_RANDOM_GRAPHS=N sets the number of graphs of the default profile (default 300; the
// other profiles run half as many).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "random_graph.h"
#include "stax/graph/frontend.h"
#include "stax/interp/interpreter.h"
#include "stax/support/error.h"
#include "stax/support/random.h"

namespace stax::randgraph {
namespace {

int graph_count(int fallback) {
  const char* env = std::getenv("STAX_RANDOM_GRAPHS");
  if (env == nullptr) return fallback;
  int n = std::atoi(env);
  return n > 0 ? n : fallback;
}

// Inputs as `staxc interpret/check` draws them (floats standard normal, ints in [-8, 8], bools a
// coin): the distribution the generator's value ranges assume.
std::vector<Tensor> make_inputs(const graph::Graph& g, uint64_t seed) {
  std::vector<Tensor> in;
  for (std::size_t i = 0; i < g.inputs.size(); ++i) {
    const graph::Value& v = g[g.inputs[i]];
    in.push_back(random_tensor(v.dtype, v.shape, seed, i));
  }
  return in;
}

// Differences between two results of the same graph (both in double precision underneath).
std::string compare(const std::vector<Tensor>& a, const std::vector<Tensor>& b) {
  if (a.size() != b.size()) return "output count differs";
  for (std::size_t k = 0; k < a.size(); ++k) {
    if (a[k].dtype() != b[k].dtype() || a[k].shape() != b[k].shape()) return "output " + std::to_string(k) + ": dtype/shape differs";
    for (int64_t i = 0; i < a[k].numel(); ++i) {
      double x = a[k].get_double(i), y = b[k].get_double(i);
      if (std::isnan(x) && std::isnan(y)) continue;
      if (x == y) continue;
      double tol = is_floating(a[k].dtype()) ? 1e-5 * std::fabs(y) + 1e-5 : 0.0;
      if (!(std::fabs(x - y) <= tol)) {
        std::ostringstream os;
        os << "output " << k << " element " << i << ": " << x << " vs " << y;
        return os.str();
      }
    }
  }
  return "";
}

// Every element of every named value lies within the bounds the generator claims (values
// with possible inf/nan excepted): interprets the graph with all named values as outputs.
// Returns the first violation, or "".
std::string check_bounds(const RandomGraph& rg, const std::vector<Tensor>& inputs) {
  nlohmann::ordered_json doc = nlohmann::ordered_json::parse(rg.json);
  nlohmann::ordered_json outs = nlohmann::ordered_json::array();
  for (const ValueSignature& v : rg.values) outs.push_back(v.name);
  doc["outputs"] = outs;
  graph::Graph g = graph::parse_graph(doc.dump());
  std::vector<Tensor> out = interp::interpret(g, inputs);
  for (std::size_t k = 0; k < out.size() && k < rg.values.size(); ++k) {
    const ValueSignature& v = rg.values[k];
    if (!v.finite || v.dtype == DType::Bool) continue;
    double tol = 1e-5 * std::max({1.0, std::fabs(v.lo), std::fabs(v.hi)});
    for (int64_t i = 0; i < out[k].numel(); ++i) {
      double x = out[k].get_double(i);
      if (std::isnan(x) || x < v.lo - tol || x > v.hi + tol) {
        std::ostringstream os;
        os << "value '" << v.name << "' element " << i << " = " << x << " is outside the generator's bounds ["
           << v.lo << ", " << v.hi << "]";
        return os.str();
      }
    }
  }
  return "";
}

// Generator options per profile; each profile runs `graph_count` seeds.
struct Profile {
  const char* name;
  RandomGraphOptions opt;
};

std::vector<Profile> profiles() {
  std::vector<Profile> p;
  p.push_back({"default", {}});
  RandomGraphOptions tame;
  tame.nonfinite = false;
  p.push_back({"finite", tame});
  RandomGraphOptions big;
  big.max_nodes = 30;
  big.max_numel = 400;
  p.push_back({"big", big});
  RandomGraphOptions f32;
  f32.dtypes = {DType::Float32};
  p.push_back({"float32", f32});
  RandomGraphOptions ints;
  ints.dtypes = {DType::Int32, DType::Int64, DType::Bool};
  ints.zero_divisors = true;
  p.push_back({"ints with zero divisors", ints});
  return p;
}

void run_profile(const Profile& prof, int n, uint64_t base) {
  int ran = 0, failed_at_runtime = 0;
  for (uint64_t s = 0; s < static_cast<uint64_t>(n); ++s) {
    uint64_t seed = base + s;
    RandomGraph rg = random_graph(seed, prof.opt);
    std::string stage = "parse_graph";
    try {
      graph::Graph g = graph::parse_graph(rg.json);
      stage = "signatures";
      for (const ValueSignature& v : rg.values) {
        graph::ValueId id = g.find(v.name);
        if (id == graph::kNoValue) {
          ADD_FAILURE() << prof.name << " seed " << seed << ": value '" << v.name << "' missing\n" << rg.json;
          continue;
        }
        const graph::Value& gv = g[id];
        if (gv.dtype != v.dtype || gv.shape != v.shape)
          ADD_FAILURE() << prof.name << " seed " << seed << ": value '" << v.name << "' is " << dtype_name(gv.dtype)
                        << shape_str(gv.shape) << " for the front end, " << dtype_name(v.dtype) << shape_str(v.shape)
                        << " for the generator\n" << rg.json;
      }
      stage = "interpret";
      std::vector<Tensor> inputs = make_inputs(g, seed);
      std::vector<Tensor> out;
      try {
        out = interp::interpret(g, inputs);
      } catch (const RuntimeFailure& e) {
        if (!rg.may_divide_by_zero) throw;
        ++failed_at_runtime;
        continue;
      }
      ++ran;
      if (out.size() != g.outputs.size()) ADD_FAILURE() << prof.name << " seed " << seed << ": output count";
      for (std::size_t k = 0; k < out.size() && k < g.outputs.size(); ++k) {
        const graph::Value& ov = g[g.outputs[k]];
        if (out[k].dtype() != ov.dtype || out[k].shape() != ov.shape)
          ADD_FAILURE() << prof.name << " seed " << seed << ": output " << k << " is " << dtype_name(out[k].dtype())
                        << shape_str(out[k].shape()) << ", declared " << dtype_name(ov.dtype) << shape_str(ov.shape);
      }
      // Tame values: with no inf/nan on purpose, every output is finite and moderate (floats
      // within 1e4, ints within 2^24).
      if (!prof.opt.nonfinite) {
        for (std::size_t k = 0; k < out.size(); ++k)
          for (int64_t i = 0; i < out[k].numel(); ++i) {
            double x = out[k].get_double(i);
            double cap = is_floating(out[k].dtype()) ? 1e4 * 1.01 : 16777216.0;
            if (!std::isfinite(x) || std::fabs(x) > cap) {
              ADD_FAILURE() << prof.name << " seed " << seed << ": output " << k << " element " << i << " = " << x
                            << " is not tame\n" << rg.json;
              break;
            }
          }
      }
      stage = "bounds";
      std::string outside = check_bounds(rg, inputs);
      if (!outside.empty()) ADD_FAILURE() << prof.name << " seed " << seed << ": " << outside << "\n" << rg.json;
      stage = "expand_composites";
      graph::Graph ex = graph::expand_composites(g);
      std::vector<Tensor> out2 = interp::interpret(ex, inputs);
      std::string diff = compare(out2, out);
      if (!diff.empty())
        ADD_FAILURE() << prof.name << " seed " << seed << ": expanded composites differ: " << diff << "\n" << rg.json;
    } catch (const std::exception& e) {
      ADD_FAILURE() << prof.name << " seed " << seed << ": " << stage << " threw: " << e.what() << "\n" << rg.json;
    }
  }
  EXPECT_GT(ran, n / 2) << prof.name;
  if (!prof.opt.zero_divisors) {
    EXPECT_EQ(failed_at_runtime, 0) << prof.name;
  }
}

TEST(RandomGraphs, FrontEndAcceptsAndInterpreterRuns) {
  int n = graph_count(300);
  uint64_t base = 0;
  for (const Profile& p : profiles()) {
    // The default profile gets the full count, the narrower ones half of it.
    run_profile(p, base == 0 ? n : n / 2, base);
    base += 100000;
  }
}

// The same graph with every `from` dtype (inputs, constants, `to`/`full`/`arange` dtypes) made
// `to`: int32 -> int64 must give the same values exactly (the generator keeps ints within
// 2^24, far from any overflow), float32 -> float64 the same values up to float32 rounding.
std::string retype(const std::string& json, DType from, DType to) {
  nlohmann::ordered_json doc = nlohmann::ordered_json::parse(json);
  std::string f(dtype_name(from)), t(dtype_name(to));
  std::function<void(nlohmann::ordered_json&)> walk = [&](nlohmann::ordered_json& j) {
    if (j.is_object()) {
      if (j.contains("dtype") && j["dtype"] == f) j["dtype"] = t;
      // rms_norm's default eps is the machine epsilon of the dtype: keep float32's.
      if (from == DType::Float32 && j.contains("op") && j["op"] == "rms_norm" && (!j.contains("eps") || j["eps"].is_null()))
        j["eps"] = 1.1920928955078125e-07;
      for (auto& [k, v] : j.items()) walk(v);
    } else if (j.is_array()) {
      for (auto& v : j) walk(v);
    }
  };
  walk(doc);
  return doc.dump();
}

Tensor convert(const Tensor& x, DType to) {
  Tensor y(to, x.shape());
  for (int64_t i = 0; i < x.numel(); ++i) {
    if (is_floating(to)) y.set_double(i, x.get_double(i));
    else y.set_int(i, x.get_int(i));
  }
  return y;
}

void check_retyped(DType from, DType to, const RandomGraphOptions& opt, int n, uint64_t base) {
  int compared = 0;
  for (uint64_t s = 0; s < static_cast<uint64_t>(n); ++s) {
    uint64_t seed = base + s;
    RandomGraph rg = random_graph(seed, opt);
    try {
      graph::Graph a = graph::parse_graph(rg.json);
      std::vector<Tensor> in_a = make_inputs(a, seed);
      graph::Graph b;
      try {
        b = graph::parse_graph(retype(rg.json, from, to));
      } catch (const GraphError&) {
        // Retyping can make a graph invalid (a float32 from `int * 1.0` meeting a float64 in
        // matmul, which does not promote): nothing to compare.
        continue;
      }
      std::vector<Tensor> in_b;
      for (const Tensor& t : in_a) in_b.push_back(t.dtype() == from ? convert(t, to) : t);
      std::vector<Tensor> oa = interp::interpret(a, in_a), ob = interp::interpret(b, in_b);
      ++compared;
      for (std::size_t k = 0; k < oa.size(); ++k) {
        const ValueSignature* sig = nullptr;
        for (const ValueSignature& v : rg.values)
          if (v.name == a[a.outputs[k]].name) sig = &v;
        double scale = sig ? std::max({1.0, std::fabs(sig->lo), std::fabs(sig->hi)}) : 1.0;
        // Float32 rounding of every value, relative to the magnitudes the computation reaches.
        double tol = is_floating(from) ? 1e-4 * scale : 0.0;
        for (int64_t i = 0; i < oa[k].numel(); ++i) {
          double x = oa[k].get_double(i), y = ob[k].get_double(i);
          if (x == y || (std::isnan(x) && std::isnan(y)) || std::fabs(x - y) <= tol + 1e-5 * std::fabs(y)) continue;
          ADD_FAILURE() << dtype_name(from) << "->" << dtype_name(to) << " seed " << seed << ": output " << k
                        << " element " << i << ": " << x << " vs " << y << "\n" << rg.json;
          break;
        }
      }
    } catch (const std::exception& e) {
      ADD_FAILURE() << dtype_name(from) << "->" << dtype_name(to) << " seed " << seed << ": threw " << e.what()
                    << "\n" << rg.json;
    }
  }
  EXPECT_GT(compared, n / 2);
}

TEST(RandomGraphs, Int32AndInt64VersionsAgreeExactly) {
  RandomGraphOptions opt;
  opt.dtypes = {DType::Int32, DType::Int64, DType::Bool, DType::Float32};
  check_retyped(DType::Int32, DType::Int64, opt, graph_count(300), 700000);
}

TEST(RandomGraphs, Float32AndFloat64VersionsAgree) {
  RandomGraphOptions opt;
  opt.dtypes = {DType::Float32, DType::Int64, DType::Bool};
  opt.nonfinite = false;
  check_retyped(DType::Float32, DType::Float64, opt, graph_count(300), 800000);
}

}  // namespace
}  // namespace stax::randgraph
