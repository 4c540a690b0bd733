// The import itself: initializers and inputs become values, each node is mapped in order by its
// op's mapper, the outputs are named; then the public entry points.
#include "importer.h"

#include <algorithm>
#include <cctype>
#include <fstream>

#include "fold.h"
#include "stax/graph/frontend.h"
#include "stax/support/error.h"
#include "tensors.h"

namespace stax::importer::detail {

namespace {

// ONNX's inferred dtype and shape of `name` when fully static (value_info or graph outputs).
using InferredTypes = std::map<std::string, const onnx::TypeProto*, std::less<>>;

InferredTypes inferred_types(const onnx::GraphProto& g) {
  InferredTypes types;
  for (const onnx::ValueInfoProto& v : g.value_info()) types[v.name()] = &v.type();
  for (const onnx::ValueInfoProto& v : g.output()) types[v.name()] = &v.type();
  return types;
}

std::optional<Shape> static_shape(const onnx::TypeProto& t) {
  if (!t.has_tensor_type() || !t.tensor_type().has_shape()) return std::nullopt;
  Shape s;
  for (const auto& d : t.tensor_type().shape().dim()) {
    if (!d.has_dim_value()) return std::nullopt;
    s.push_back(d.dim_value());
  }
  return s;
}

// The importer computes every shape itself; where ONNX's shape inference knows one too, the
// two must agree (a disagreement is a model ONNX reads otherwise, or a bug: never silent).
void check_inferred(const NodeCtx& c, const InferredTypes& types, const std::string& name, const OnnxValue& v) {
  auto it = types.find(name);
  if (it == types.end()) return;
  const onnx::TypeProto& t = *it->second;
  if (t.has_tensor_type() && t.tensor_type().elem_type() != 0) {
    std::optional<DType> dt = dtype_from_onnx(t.tensor_type().elem_type());
    if (dt && *dt != v.dtype)
      c.fail("output '" + name + "' is " + std::string(dtype_name(v.dtype)) + " here but " +
             std::string(dtype_name(*dt)) + " to ONNX's type inference");
  }
  std::optional<Shape> s = static_shape(t);
  if (s && *s != v.shape)
    c.fail("output '" + name + "' has shape " + shape_str(v.shape) + " here but " + shape_str(*s) +
           " to ONNX's shape inference");
}

}  // namespace

Importer::Importer(const LoadedModel& model, const ImportOptions& opts, std::string graph_name)
    : doc(std::move(graph_name), opts.weights_file, opts.inline_limit), model_(model) {}

ValueRef Importer::value(const std::string& onnx_name) const {
  auto it = values_.find(onnx_name);
  return it == values_.end() ? nullptr : it->second;
}

void Importer::define(const std::string& onnx_name, ValueRef v) {
  if (onnx_name.empty()) return;
  values_[onnx_name] = std::move(v);
}

int Importer::uses(const std::string& onnx_name) const {
  auto it = uses_.find(onnx_name);
  return it == uses_.end() ? 0 : it->second;
}

std::string Importer::materialize(OnnxValue& v) {
  if (!v.stax.empty()) return v.stax;
  STAX_ASSERT(v.known.has_value(), "value '" + v.onnx_name + "' has neither a name nor contents");
  v.stax = doc.add_constant(v.onnx_name, *v.known);
  return v.stax;
}

void Importer::add_initializers() {
  const onnx::GraphProto& g = model_.proto.graph();
  std::size_t bytes = 0;
  for (int k = 0; k < g.initializer_size(); ++k) {
    const onnx::TensorProto& t = g.initializer(k);
    if (uses(t.name()) == 0) continue;
    TensorSite site{"graph.initializer[" + std::to_string(k) + "]", "", "", "initializer '" + t.name() + "'"};
    auto v = std::make_shared<OnnxValue>();
    v->known = tensor_from_proto(t, model_.dir, site);
    v->dtype = v->known->dtype();
    v->shape = v->known->shape();
    v->onnx_name = t.name();
    bytes += v->known->nbytes() + 64;  // at most the weights file's share, with its alignment
    define(t.name(), std::move(v));
  }
  doc.reserve_weights(bytes);
}

void Importer::add_inputs() {
  const onnx::GraphProto& g = model_.proto.graph();
  for (const onnx::ValueInfoProto& in : g.input()) {
    if (value(in.name())) continue;  // an initializer listed among the inputs: a constant
    auto v = std::make_shared<OnnxValue>();
    const onnx::TypeProto_Tensor& tt = in.type().tensor_type();
    v->dtype = *dtype_from_onnx(tt.elem_type());  // checked when the shapes were fixed
    for (const auto& d : tt.shape().dim()) v->shape.push_back(d.dim_value());
    v->onnx_name = in.name();
    v->stax = doc.unique_name(in.name());
    doc.add_input(v->stax, v->dtype, v->shape);
    define(in.name(), std::move(v));
  }
}

void Importer::map_nodes() {
  const onnx::GraphProto& g = model_.proto.graph();
  const MapperTable& table = mapper_table();
  InferredTypes types = inferred_types(g);
  for (int i = 0; i < g.node_size(); ++i) {
    const onnx::NodeProto& node = g.node(i);
    NodeCtx ctx(*this, node, i, model_.opset);
    try {
      table.at(node.op_type())(ctx);
    } catch (const fold::FoldError& e) {
      ctx.fail(std::string("cannot compute at import: ") + e.what());
    }
    for (const std::string& out : node.output())
      if (ValueRef v = value(out); v && !out.empty()) check_inferred(ctx, types, out, *v);
  }
}

// Graph outputs keep their ONNX names: a value already named otherwise in the document (an
// input passed through an Identity, a constant) is given its output name by a reshape to its
// own shape, a view that copies nothing.
void Importer::add_outputs() {
  const onnx::GraphProto& g = model_.proto.graph();
  for (int k = 0; k < g.output_size(); ++k) {
    const std::string& name = g.output(k).name();
    ValueRef v = value(name);
    if (!v) throw GraphError("graph.output[" + std::to_string(k) + "]", name, "", "the output is not computed by the graph");
    if (v->known && v->known->numel() == 0)
      throw GraphError("graph.output[" + std::to_string(k) + "]", name, "", "the output is empty (shape " +
                       shape_str(v->shape) + "); stax has no zero-size values");
    std::string stax = materialize(*v);
    if (stax != name && v->onnx_name != name) {
      Json node = Json::object();
      node["name"] = doc.unique_name(name);
      node["op"] = "reshape";
      node["args"] = Json::array({stax});
      node["shape"] = v->shape;
      stax = node["name"].get<std::string>();
      doc.add_node(std::move(node));
    }
    doc.add_output(stax);
  }
}

ImportedModel Importer::run() {
  const onnx::GraphProto& g = model_.proto.graph();
  for (const onnx::NodeProto& n : g.node())
    for (const std::string& in : n.input())
      if (!in.empty()) ++uses_[in];
  for (const onnx::ValueInfoProto& out : g.output()) ++uses_[out.name()];
  add_initializers();
  add_inputs();
  map_nodes();
  add_outputs();
  return ImportedModel{doc.text(), doc.take_weights(), {}};
}

}  // namespace stax::importer::detail

namespace stax::importer {

namespace {

// The file's stem made a graph name (a C identifier that is no keyword).
std::string graph_name_for(std::string_view stem) {
  std::string name;
  for (char c : stem) name += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  std::size_t first = name.find_first_not_of('_');
  name = first == std::string::npos ? "" : name.substr(first);
  if (name.empty()) return "model";
  if (graph::graph_name_problem(name).empty()) return name;
  return "model_" + name;
}

// The external data files of the initializers, once each, in the order first named.
std::vector<std::filesystem::path> external_files(const detail::LoadedModel& model) {
  std::vector<std::filesystem::path> files;
  for (const onnx::TensorProto& t : model.proto.graph().initializer()) {
    if (!t.has_data_location() || t.data_location() != onnx::TensorProto_DataLocation_EXTERNAL) continue;
    for (const onnx::StringStringEntryProto& e : t.external_data()) {
      std::filesystem::path file = model.dir / e.value();
      if (e.key() == "location" && std::find(files.begin(), files.end(), file) == files.end()) files.push_back(file);
    }
  }
  return files;
}

}  // namespace

ImportedModel import_onnx_bytes(std::string_view bytes, const std::filesystem::path& model_dir,
                                std::string_view name, const ImportOptions& opts) {
  detail::LoadedModel model = detail::load_model(bytes, model_dir, opts);
  detail::Importer importer(model, opts, graph_name_for(name));
  ImportedModel imported = importer.run();
  imported.external_files = external_files(model);
  return imported;
}

ImportedModel import_onnx(const std::filesystem::path& model, const ImportOptions& opts) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(model, ec))
    throw UserError(model.string() + (std::filesystem::exists(model, ec) ? ": not a regular file" : ": no such file"));
  // Read straight into one string: a model may be a good part of 2 GiB.
  std::uintmax_t size = std::filesystem::file_size(model, ec);
  std::ifstream in(model, std::ios::binary);
  std::string bytes(ec ? 0 : static_cast<std::size_t>(size), '\0');
  in.read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (ec || !in || in.gcount() != static_cast<std::streamsize>(bytes.size()))
    throw UserError(model.string() + ": cannot read");
  std::filesystem::path dir = model.parent_path();
  if (dir.empty()) dir = ".";
  return import_onnx_bytes(bytes, dir, model.stem().string(), opts);
}

std::pair<std::string, Shape> parse_input_shape(std::string_view spec) {
  std::size_t eq = spec.rfind('=');
  std::string text(spec);
  if (eq == std::string_view::npos || eq == 0)
    throw UserError("--input-shape expects NAME=DIMS (as x=1,3,224,224), got '" + text + "'");
  std::pair<std::string, Shape> result{std::string(spec.substr(0, eq)), {}};
  std::string_view dims = spec.substr(eq + 1);
  while (!dims.empty()) {
    std::size_t comma = dims.find(',');
    std::string_view part = dims.substr(0, comma);
    bool digits = !part.empty() && part.size() <= 18 && part.find_first_not_of("0123456789") == std::string_view::npos;
    int64_t d = digits ? std::stoll(std::string(part)) : 0;
    if (d < 1) throw UserError("--input-shape " + text + ": dims are integers >= 1, got '" + std::string(part) + "'");
    result.second.push_back(d);
    if (comma == std::string_view::npos) break;
    dims = dims.substr(comma + 1);
    if (dims.empty()) throw UserError("--input-shape " + text + ": a dim is missing after the last ','");
  }
  return result;
}

bool is_onnx_path(const std::filesystem::path& file) {
  std::string ext = file.extension().string();
  for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return ext == ".onnx";
}

}  // namespace stax::importer
