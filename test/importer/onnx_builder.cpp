#include "onnx_builder.h"

#include <fstream>

#include "onnx/shape_inference/implementation.h"

namespace stax::testing {

namespace {

onnx::AttributeProto named(const std::string& name, onnx::AttributeProto_AttributeType type) {
  onnx::AttributeProto a;
  a.set_name(name);
  a.set_type(type);
  return a;
}

template <typename T>
Tensor filled(DType dt, Shape shape, const std::vector<T>& values) {
  Tensor t(dt, std::move(shape));
  for (std::size_t i = 0; i < values.size() && static_cast<int64_t>(i) < t.numel(); ++i) {
    if constexpr (std::is_floating_point_v<T>) t.set_double(static_cast<int64_t>(i), values[i]);
    else t.set_int(static_cast<int64_t>(i), static_cast<int64_t>(values[i]));
  }
  return t;
}

}  // namespace

onnx::AttributeProto attr_i(const std::string& name, int64_t v) {
  onnx::AttributeProto a = named(name, onnx::AttributeProto_AttributeType_INT);
  a.set_i(v);
  return a;
}

onnx::AttributeProto attr_f(const std::string& name, float v) {
  onnx::AttributeProto a = named(name, onnx::AttributeProto_AttributeType_FLOAT);
  a.set_f(v);
  return a;
}

onnx::AttributeProto attr_s(const std::string& name, const std::string& v) {
  onnx::AttributeProto a = named(name, onnx::AttributeProto_AttributeType_STRING);
  a.set_s(v);
  return a;
}

onnx::AttributeProto attr_ints(const std::string& name, const std::vector<int64_t>& v) {
  onnx::AttributeProto a = named(name, onnx::AttributeProto_AttributeType_INTS);
  for (int64_t x : v) a.add_ints(x);
  return a;
}

onnx::AttributeProto attr_t(const std::string& name, const Tensor& t) {
  onnx::AttributeProto a = named(name, onnx::AttributeProto_AttributeType_TENSOR);
  *a.mutable_t() = tensor_proto("", t);
  return a;
}

int32_t onnx_elem_type(DType dt) {
  switch (dt) {
    case DType::Float32: return onnx::TensorProto_DataType_FLOAT;
    case DType::Float64: return onnx::TensorProto_DataType_DOUBLE;
    case DType::Int32: return onnx::TensorProto_DataType_INT32;
    case DType::Int64: return onnx::TensorProto_DataType_INT64;
    case DType::Bool: return onnx::TensorProto_DataType_BOOL;
  }
  return 0;
}

onnx::TensorProto tensor_proto(const std::string& name, const Tensor& t, bool raw) {
  onnx::TensorProto p;
  p.set_name(name);
  p.set_data_type(onnx_elem_type(t.dtype()));
  for (int64_t d : t.shape()) p.add_dims(d);
  if (raw) {
    p.set_raw_data(std::string(reinterpret_cast<const char*>(t.data()), t.nbytes()));
    return p;
  }
  for (int64_t i = 0; i < t.numel(); ++i) {
    switch (t.dtype()) {
      case DType::Float32: p.add_float_data(static_cast<float>(t.get_double(i))); break;
      case DType::Float64: p.add_double_data(t.get_double(i)); break;
      case DType::Int64: p.add_int64_data(t.get_int(i)); break;
      case DType::Int32:
      case DType::Bool: p.add_int32_data(static_cast<int32_t>(t.get_int(i))); break;
    }
  }
  return p;
}

Tensor f32(Shape shape, const std::vector<float>& values) { return filled(DType::Float32, std::move(shape), values); }
Tensor f64(Shape shape, const std::vector<double>& values) { return filled(DType::Float64, std::move(shape), values); }
Tensor i64(Shape shape, const std::vector<int64_t>& values) { return filled(DType::Int64, std::move(shape), values); }
Tensor i32(Shape shape, const std::vector<int32_t>& values) { return filled(DType::Int32, std::move(shape), values); }

Tensor boolean(Shape shape, const std::vector<bool>& values) {
  Tensor t(DType::Bool, std::move(shape));
  for (std::size_t i = 0; i < values.size(); ++i) t.set_bool(static_cast<int64_t>(i), values[i]);
  return t;
}

Tensor iota(DType dt, Shape shape, double start, double step) {
  Tensor t(dt, std::move(shape));
  for (int64_t i = 0; i < t.numel(); ++i) t.set_double(i, start + step * static_cast<double>(i));
  return t;
}

OnnxModel::OnnxModel(int opset) {
  proto.set_ir_version(8);
  proto.set_producer_name("stax-test");
  onnx::OperatorSetIdProto* o = proto.add_opset_import();
  o->set_domain("");
  o->set_version(opset);
  proto.mutable_graph()->set_name("test");
}

namespace {

void set_type(onnx::ValueInfoProto* v, const std::string& name, DType dt, const std::vector<Dim>& dims) {
  v->set_name(name);
  onnx::TypeProto_Tensor* tt = v->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(onnx_elem_type(dt));
  onnx::TensorShapeProto* s = tt->mutable_shape();
  for (const Dim& d : dims) {
    if (std::holds_alternative<int64_t>(d)) s->add_dim()->set_dim_value(std::get<int64_t>(d));
    else s->add_dim()->set_dim_param(std::get<std::string>(d));
  }
}

}  // namespace

OnnxModel& OnnxModel::input(const std::string& name, DType dt, const std::vector<Dim>& dims) {
  set_type(proto.mutable_graph()->add_input(), name, dt, dims);
  return *this;
}

OnnxModel& OnnxModel::output(const std::string& name, DType dt, const std::vector<Dim>& dims) {
  set_type(proto.mutable_graph()->add_output(), name, dt, dims);
  return *this;
}

OnnxModel& OnnxModel::output(const std::string& name, DType dt) {
  onnx::ValueInfoProto* v = proto.mutable_graph()->add_output();
  v->set_name(name);
  v->mutable_type()->mutable_tensor_type()->set_elem_type(onnx_elem_type(dt));
  return *this;
}

OnnxModel& OnnxModel::initializer(const std::string& name, const Tensor& t, bool raw) {
  *proto.mutable_graph()->add_initializer() = tensor_proto(name, t, raw);
  return *this;
}

OnnxModel& OnnxModel::node(const std::string& op, const std::vector<std::string>& inputs,
                           const std::vector<std::string>& outputs,
                           const std::vector<onnx::AttributeProto>& attrs, const std::string& name) {
  onnx::NodeProto* n = proto.mutable_graph()->add_node();
  n->set_op_type(op);
  n->set_name(name.empty() ? op + "_" + std::to_string(proto.graph().node_size() - 1) : name);
  for (const std::string& i : inputs) n->add_input(i);
  for (const std::string& o : outputs) n->add_output(o);
  for (const onnx::AttributeProto& a : attrs) *n->add_attribute() = a;
  return *this;
}

// ONNX's checker wants a shape on every graph output; the tests name outputs by their dtype
// only, so the shapes ONNX's shape inference finds are written in (where it finds none, the
// output stays as it is and the checker says so).
std::string OnnxModel::bytes() const {
  if (!infer_output_shapes) return proto.SerializeAsString();
  onnx::ModelProto full = proto;
  try {
    onnx::shape_inference::InferShapes(full);
  } catch (const std::exception&) {
    return proto.SerializeAsString();
  }
  onnx::ModelProto out = proto;
  for (int k = 0; k < out.graph().output_size(); ++k) {
    onnx::ValueInfoProto* o = out.mutable_graph()->mutable_output(k);
    if (!o->type().tensor_type().has_shape() && full.graph().output(k).type().tensor_type().has_shape())
      *o->mutable_type() = full.graph().output(k).type();
  }
  return out.SerializeAsString();
}

void OnnxModel::write(const std::filesystem::path& file) const {
  std::ofstream out(file, std::ios::binary);
  out << bytes();
}

}  // namespace stax::testing
