// Small ONNX models built in a test with ONNX's protobuf classes: inputs, initializers, nodes
// with attributes, outputs, the opset. Shared by the importer's and the CLI's tests.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "onnx/onnx_pb.h"
#include "stax/support/tensor.h"

namespace stax::testing {

// Attributes of a node.
onnx::AttributeProto attr_i(const std::string& name, int64_t v);
onnx::AttributeProto attr_f(const std::string& name, float v);
onnx::AttributeProto attr_s(const std::string& name, const std::string& v);
onnx::AttributeProto attr_ints(const std::string& name, const std::vector<int64_t>& v);
onnx::AttributeProto attr_t(const std::string& name, const Tensor& t);

// A TensorProto of `t` named `name`, in raw_data (or in the typed field when `raw` is false).
onnx::TensorProto tensor_proto(const std::string& name, const Tensor& t, bool raw = true);
int32_t onnx_elem_type(DType dt);

Tensor f32(Shape shape, const std::vector<float>& values);
Tensor f64(Shape shape, const std::vector<double>& values);
Tensor i64(Shape shape, const std::vector<int64_t>& values);
Tensor i32(Shape shape, const std::vector<int32_t>& values);
Tensor boolean(Shape shape, const std::vector<bool>& values);
// 0, 1, 2, ... (as floats for float dtypes), shaped.
Tensor iota(DType dt, Shape shape, double start = 0, double step = 1);

using Dim = std::variant<int64_t, std::string>;  // a fixed dim or a symbolic one

class OnnxModel {
 public:
  explicit OnnxModel(int opset = 13);
  OnnxModel& input(const std::string& name, DType dt, const std::vector<Dim>& dims);
  // An output's shape, when not given, is what ONNX's shape inference finds (bytes()).
  OnnxModel& output(const std::string& name, DType dt);
  OnnxModel& output(const std::string& name, DType dt, const std::vector<Dim>& dims);
  OnnxModel& initializer(const std::string& name, const Tensor& t, bool raw = true);
  OnnxModel& node(const std::string& op, const std::vector<std::string>& inputs,
                  const std::vector<std::string>& outputs, const std::vector<onnx::AttributeProto>& attrs = {},
                  const std::string& name = "");
  std::string bytes() const;
  void write(const std::filesystem::path& file) const;

  onnx::ModelProto proto;
  // False for a model ONNX's own shape inference would crash on (which the importer must refuse
  // before running it): bytes() then writes the model as it is.
  bool infer_output_shapes = true;
};

}  // namespace stax::testing
