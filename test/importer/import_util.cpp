#include "import_util.h"

#include <cmath>

#include "stax/graph/frontend.h"
#include "stax/interp/interpreter.h"

namespace stax::testing {

importer::ImportedModel import_model(const OnnxModel& m, const importer::ImportOptions& opts) {
  return importer::import_onnx_bytes(m.bytes(), ".", "test", opts);
}

nlohmann::json document(const importer::ImportedModel& im) { return nlohmann::json::parse(im.json); }

nlohmann::json node_named(const nlohmann::json& doc, const std::string& name) {
  for (const nlohmann::json& n : doc["nodes"])
    if (n["name"] == name) return n;
  ADD_FAILURE() << "no node '" << name << "' in " << doc.dump();
  return nlohmann::json();
}

graph::Graph graph_of(const importer::ImportedModel& im, const importer::ImportOptions& opts) {
  graph::ConstantFiles files;
  files.memory.emplace(opts.weights_file, im.weights);
  return graph::parse_graph(im.json, files);
}

std::vector<Tensor> run_model(const OnnxModel& m, const std::vector<Tensor>& inputs,
                              const importer::ImportOptions& opts) {
  importer::ImportedModel im = import_model(m, opts);
  graph::Graph g = graph_of(im, opts);
  return interp::interpret(g, inputs);
}

GraphError import_error(const OnnxModel& m, const importer::ImportOptions& opts) {
  try {
    import_model(m, opts);
  } catch (const GraphError& e) {
    return e;
  } catch (const std::exception& e) {
    ADD_FAILURE() << "expected a GraphError, got: " << e.what();
    return GraphError("", "", "", "");
  }
  ADD_FAILURE() << "the import succeeded";
  return GraphError("", "", "", "");
}

::testing::AssertionResult same_tensor(const Tensor& got, const Tensor& want, double tol) {
  if (got.dtype() != want.dtype())
    return ::testing::AssertionFailure() << "dtype " << dtype_name(got.dtype()) << " != " << dtype_name(want.dtype());
  if (got.shape() != want.shape())
    return ::testing::AssertionFailure() << "shape " << shape_str(got.shape()) << " != " << shape_str(want.shape());
  for (int64_t i = 0; i < got.numel(); ++i) {
    double a = got.get_double(i), b = want.get_double(i);
    bool ok = is_floating(got.dtype()) ? ((std::isnan(a) && std::isnan(b)) || a == b || std::fabs(a - b) <= tol * (1 + std::fabs(b)))
                                       : got.get_int(i) == want.get_int(i);
    if (!ok) return ::testing::AssertionFailure() << "element " << i << ": " << a << " != " << b;
  }
  return ::testing::AssertionSuccess();
}

}  // namespace stax::testing
