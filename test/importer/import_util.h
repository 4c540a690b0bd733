// Importing a test model and looking at the result: the document as JSON, the graph the front
// end reads from it (weights in memory), the reference interpreter's outputs.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "onnx_builder.h"
#include "stax/graph/graph.h"
#include "stax/importer/onnx.h"
#include "stax/support/error.h"

namespace stax::testing {

importer::ImportedModel import_model(const OnnxModel& m, const importer::ImportOptions& opts = {});
nlohmann::json document(const importer::ImportedModel& im);
// The node of the document named `name` (fails the test when there is none).
nlohmann::json node_named(const nlohmann::json& doc, const std::string& name);
graph::Graph graph_of(const importer::ImportedModel& im, const importer::ImportOptions& opts = {});
// Imports, validates and interprets the model on `inputs` (in graph input order).
std::vector<Tensor> run_model(const OnnxModel& m, const std::vector<Tensor>& inputs,
                              const importer::ImportOptions& opts = {});
// The GraphError of importing `m` (fails the test when the import succeeds or throws another).
GraphError import_error(const OnnxModel& m, const importer::ImportOptions& opts = {});

// Same dtype, shape and elements (NaN matching NaN); floats within `tol` relative + absolute.
::testing::AssertionResult same_tensor(const Tensor& got, const Tensor& want, double tol = 0);

}  // namespace stax::testing

#define EXPECT_IMPORT_ERROR(model, fragment)                                                      \
  do {                                                                                            \
    ::stax::GraphError e_ = ::stax::testing::import_error(model);                                 \
    EXPECT_NE(std::string(e_.what()).find(fragment), std::string::npos) << e_.what();             \
  } while (0)
