#include "compare.h"

#include <cmath>
#include <sstream>

#include "ir_eval.h"
#include "stax/graph/frontend.h"
#include "stax/interp/interpreter.h"
#include "stax/ir/printer.h"
#include "stax/lowering/lower.h"
#include "stax/support/error.h"
#include "stax/support/random.h"

namespace stax::testing {

std::string compare_with_interpreter(const graph::Graph& g, uint64_t seed, Tolerance tol) {
  std::vector<Tensor> inputs;
  for (std::size_t k = 0; k < g.inputs.size(); ++k) {
    const graph::Value& v = g[g.inputs[k]];
    inputs.push_back(random_tensor(v.dtype, v.shape, seed, k));
  }
  graph::Graph expanded = graph::expand_composites(g);
  ir::Program p = lowering::lower(expanded);
  std::vector<Shape> shapes;
  for (graph::ValueId o : g.outputs) shapes.push_back(g[o].shape);
  std::vector<Tensor> want, got;
  std::string want_error, got_error;
  try {
    want = interp::interpret(g, inputs);
  } catch (const RuntimeFailure& e) {
    want_error = e.what();
  }
  try {
    got = run_ir(p, inputs, shapes);
  } catch (const RuntimeFailure& e) {
    got_error = e.what();
  }
  if (want_error.empty() != got_error.empty())
    return "interpreter error '" + want_error + "' vs lowered error '" + got_error + "'\n" + ir::dump_ir(p);
  // A float64 output computed from float32 values carries float32 error.
  bool any_f32 = false;
  for (const graph::Value& v : g.values) any_f32 = any_f32 || v.dtype == DType::Float32;
  for (std::size_t k = 0; k < want.size(); ++k) {
    const Tensor& w = want[k];
    const Tensor& h = got.at(k);
    std::ostringstream err;
    err << "output " << k << " (" << g[g.outputs[k]].name << ")";
    if (w.dtype() != h.dtype() || w.shape() != h.shape()) {
      err << ": dtype/shape " << dtype_name(h.dtype()) << shape_str(h.shape()) << " vs "
          << dtype_name(w.dtype()) << shape_str(w.shape());
      return err.str() + "\n" + ir::dump_ir(p);
    }
    for (int64_t i = 0; i < w.numel(); ++i) {
      bool ok;
      if (is_floating(w.dtype())) {
        double a = h.get_double(i), b = w.get_double(i);
        const bool f64 = w.dtype() == DType::Float64 && !any_f32;
        double rtol = f64 ? std::max(1e-9, tol.rtol * 1e-4) : tol.rtol;
        double atol = f64 ? std::max(1e-12, tol.atol * 1e-4) : tol.atol;
        if (std::isnan(a) || std::isnan(b)) ok = std::isnan(a) && std::isnan(b);
        else if (std::isinf(a) || std::isinf(b)) ok = a == b;
        else ok = std::fabs(a - b) <= atol + rtol * std::fabs(b);
        if (!ok) err << " element " << i << ": got " << a << ", want " << b;
      } else {
        ok = h.get_int(i) == w.get_int(i);
        if (!ok) err << " element " << i << ": got " << h.get_int(i) << ", want " << w.get_int(i);
      }
      if (!ok) return err.str() + "\n" + ir::dump_ir(p);
    }
  }
  return "";
}

}  // namespace stax::testing
