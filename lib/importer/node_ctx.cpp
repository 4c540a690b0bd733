// The node being mapped: its inputs, attributes and outputs as its mapper sees them.
#include "importer.h"

#include "stax/graph/promote.h"
#include "stax/support/error.h"
#include "tensors.h"

namespace stax::importer::detail {

NodeCtx::NodeCtx(Importer& im, const onnx::NodeProto& n, int i, int op_set)
    : node(n), index(i), opset(op_set), im_(im) {}

void NodeCtx::fail(const std::string& message) const {
  throw GraphError("graph.node[" + std::to_string(index) + "]", node.name(), node.op_type(), message);
}

// ---- inputs ----

bool NodeCtx::has_input(std::size_t i) const {
  return i < num_inputs() && !node.input(static_cast<int>(i)).empty();
}

const OnnxValue& NodeCtx::in(std::size_t i) const { return *input_ref(i); }

ValueRef NodeCtx::input_ref(std::size_t i) const {
  if (!has_input(i)) fail("input " + std::to_string(i) + " is missing");
  const std::string& name = node.input(static_cast<int>(i));
  ValueRef v = im_.value(name);
  if (!v) fail("input '" + name + "' is not computed before this node");
  return v;
}

bool NodeCtx::all_known() const {
  for (std::size_t i = 0; i < num_inputs(); ++i)
    if (has_input(i) && !in(i).known) return false;
  return true;
}

const Tensor* NodeCtx::known(std::size_t i) const {
  if (!has_input(i)) return nullptr;
  const OnnxValue& v = in(i);
  return v.known ? &*v.known : nullptr;
}

const Tensor& NodeCtx::require_known(std::size_t i, std::string_view what) const {
  const Tensor* t = known(i);
  if (t == nullptr)
    fail("input " + std::to_string(i) + " (" + std::string(what) + ", '" + node.input(static_cast<int>(i)) +
         "') must be known at import: it is computed at run time, and stax shapes and attributes are static");
  return *t;
}

std::vector<int64_t> NodeCtx::known_ints(std::size_t i, std::string_view what) const {
  const Tensor& t = require_known(i, what);
  if (!is_integer(t.dtype())) fail(std::string(what) + " must be integers, got " + std::string(dtype_name(t.dtype())));
  if (t.shape().size() > 1) fail(std::string(what) + " must be 0-d or 1-D, got shape " + shape_str(t.shape()));
  std::vector<int64_t> v(static_cast<std::size_t>(t.numel()));
  for (int64_t k = 0; k < t.numel(); ++k) v[static_cast<std::size_t>(k)] = t.get_int(k);
  return v;
}

double NodeCtx::known_scalar(std::size_t i, std::string_view what) const {
  const Tensor& t = require_known(i, what);
  if (t.numel() != 1) fail(std::string(what) + " must have one element, got shape " + shape_str(t.shape()));
  return t.get_double(0);
}

Json NodeCtx::arg(std::size_t i) {
  ValueRef v = input_ref(i);
  if (v->known && v->known->numel() == 0)
    fail("input '" + v->onnx_name + "' is empty (shape " + shape_str(v->shape) + "): stax has no zero-size values");
  return im_.materialize(*v);
}

// ---- attributes ----

const onnx::AttributeProto* NodeCtx::attr(std::string_view name) const {
  for (const onnx::AttributeProto& a : node.attribute())
    if (a.name() == name) return &a;
  return nullptr;
}

int64_t NodeCtx::attr_int(std::string_view name, int64_t dflt) const {
  const onnx::AttributeProto* a = attr(name);
  if (a == nullptr) return dflt;
  if (a->type() != onnx::AttributeProto_AttributeType_INT) fail("attribute '" + std::string(name) + "' must be an int");
  return a->i();
}

float NodeCtx::attr_float(std::string_view name, float dflt) const {
  const onnx::AttributeProto* a = attr(name);
  if (a == nullptr) return dflt;
  if (a->type() != onnx::AttributeProto_AttributeType_FLOAT) fail("attribute '" + std::string(name) + "' must be a float");
  return a->f();
}

std::string NodeCtx::attr_string(std::string_view name, std::string_view dflt) const {
  const onnx::AttributeProto* a = attr(name);
  if (a == nullptr) return std::string(dflt);
  if (a->type() != onnx::AttributeProto_AttributeType_STRING) fail("attribute '" + std::string(name) + "' must be a string");
  return a->s();
}

std::optional<std::vector<int64_t>> NodeCtx::attr_ints(std::string_view name) const {
  const onnx::AttributeProto* a = attr(name);
  if (a == nullptr) return std::nullopt;
  if (a->type() != onnx::AttributeProto_AttributeType_INTS) fail("attribute '" + std::string(name) + "' must be a list of ints");
  return std::vector<int64_t>(a->ints().begin(), a->ints().end());
}

Tensor NodeCtx::attr_tensor(std::string_view name) const {
  const onnx::AttributeProto* a = attr(name);
  if (a == nullptr || a->type() != onnx::AttributeProto_AttributeType_TENSOR)
    fail("attribute '" + std::string(name) + "' must be a tensor");
  TensorSite site{"graph.node[" + std::to_string(index) + "]", node.name(), node.op_type(),
                  "attribute '" + std::string(name) + "'"};
  return tensor_from_proto(a->t(), im_.model_dir(), site);
}

void NodeCtx::require_attr_int(std::string_view name, int64_t expected, std::string_view why) const {
  int64_t v = attr_int(name, expected);
  if (v != expected) fail(std::string(name) + " = " + std::to_string(v) + " is not supported: " + std::string(why));
}

// ---- outputs ----

bool NodeCtx::output_used(std::size_t k) const {
  if (k >= num_outputs()) return false;
  const std::string& name = node.output(static_cast<int>(k));
  return !name.empty() && im_.uses(name) > 0;
}

void NodeCtx::require_unused_outputs(std::size_t first, std::string_view why) const {
  for (std::size_t k = first; k < num_outputs(); ++k)
    if (output_used(k))
      fail("output " + std::to_string(k) + " ('" + node.output(static_cast<int>(k)) + "') is used, but " + std::string(why));
}

bool NodeCtx::fold(DType dtype, const Shape& shape) const {
  if (!all_known()) return false;
  std::optional<int64_t> n = graph::checked_numel(shape);
  if (!n || *n > kMaxFold) return false;
  return !is_floating(dtype) || *n <= kSmallFold;
}

void NodeCtx::set_known(std::size_t k, Tensor t) {
  if (k >= num_outputs() || node.output(static_cast<int>(k)).empty()) return;
  auto v = std::make_shared<OnnxValue>();
  v->dtype = t.dtype();
  v->shape = t.shape();
  v->known = std::move(t);
  v->onnx_name = node.output(static_cast<int>(k));
  std::string name = v->onnx_name;
  im_.define(name, std::move(v));
}

void NodeCtx::set_node(std::size_t k, Json op, DType dtype, Shape shape) {
  if (k >= num_outputs() || node.output(static_cast<int>(k)).empty()) return;
  for (int64_t d : shape)
    if (d < 1) fail("the result would have shape " + shape_str(shape) + ": stax has no zero-size values");
  auto v = std::make_shared<OnnxValue>();
  v->dtype = dtype;
  v->shape = std::move(shape);
  v->onnx_name = node.output(static_cast<int>(k));
  v->stax = im_.doc.unique_name(v->onnx_name);
  Json named = Json::object();
  named["name"] = v->stax;
  for (auto& [key, value] : op.items()) named[key] = value;
  im_.doc.add_node(std::move(named));
  std::string name = v->onnx_name;
  im_.define(name, std::move(v));
}

void NodeCtx::set_alias(std::size_t k, std::size_t i) {
  if (k >= num_outputs()) return;
  im_.define(node.output(static_cast<int>(k)), im_.value(node.input(static_cast<int>(i))));
}

std::string NodeCtx::helper(std::string_view suffix, Json op) {
  std::string name = im_.doc.unique_name(node.output(0) + "." + std::string(suffix));
  Json named = Json::object();
  named["name"] = name;
  for (auto& [key, value] : op.items()) named[key] = value;
  im_.doc.add_node(std::move(named));
  return name;
}

std::string NodeCtx::constant(std::string_view suffix, const Tensor& t) {
  return im_.doc.add_constant(node.output(0) + "." + std::string(suffix), t);
}

}  // namespace stax::importer::detail
