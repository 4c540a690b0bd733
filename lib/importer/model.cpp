// The model before mapping: parsed by protobuf, its opset and ops checked, validated by ONNX's
// checker, its input shapes fixed and ONNX's shape inference run over it (type constraints
// included), so that the mappers see a well-formed model with static input shapes.
#include <algorithm>
#include <climits>
#include <map>
#include <set>
#include <vector>

#include "importer.h"
#include "onnx/checker.h"
#include "onnx/shape_inference/implementation.h"
#include "stax/support/error.h"
#include "tensors.h"

namespace stax::importer::detail {

namespace {

namespace fs = std::filesystem;

constexpr int kMinOpset = 11;
constexpr int kMaxOpset = 17;

[[noreturn]] void model_error(const std::string& message) { throw GraphError("model", "", "", message); }

// The first line of a message of ONNX's (they append a context block after a blank line).
std::string first_line(const std::string& s) { return s.substr(0, s.find('\n')); }

bool is_default_domain(const std::string& domain) { return domain.empty() || domain == "ai.onnx"; }

int default_opset(const onnx::ModelProto& m) {
  int opset = 0;
  for (const onnx::OperatorSetIdProto& o : m.opset_import())
    if (is_default_domain(o.domain())) opset = static_cast<int>(o.version());
  if (opset == 0) model_error("the model imports no opset of the default ONNX domain");
  if (opset < kMinOpset || opset > kMaxOpset)
    model_error("opset " + std::to_string(opset) + " is not supported (opsets " +
                std::to_string(kMinOpset) + " to " + std::to_string(kMaxOpset) +
                " are; convert the model, e.g. with onnx.version_converter)");
  return opset;
}

void check_ops_supported(const onnx::GraphProto& g) {
  const MapperTable& table = mapper_table();
  for (int i = 0; i < g.node_size(); ++i) {
    const onnx::NodeProto& n = g.node(i);
    std::string path = "graph.node[" + std::to_string(i) + "]";
    if (!is_default_domain(n.domain()))
      throw GraphError(path, n.name(), n.op_type(),
                       "op of domain '" + n.domain() + "' is not supported (only the default ONNX domain is)");
    if (table.count(n.op_type()) == 0)
      throw GraphError(path, n.name(), n.op_type(),
                       "op '" + n.op_type() + "' is not supported by the importer (docs/onnx.md lists those that are)");
  }
}

// Windows whose ONNX shape inference divides by a stride (convPoolShapeInference: a stride of 0
// is an integer division by zero, a crash, not an error it reports): strides checked first.
void check_strides(const onnx::GraphProto& g) {
  for (int i = 0; i < g.node_size(); ++i) {
    const onnx::NodeProto& n = g.node(i);
    for (const onnx::AttributeProto& a : n.attribute()) {
      if (a.name() != "strides") continue;
      for (int64_t v : a.ints())
        if (v <= 0)
          throw GraphError("graph.node[" + std::to_string(i) + "]", n.name(), n.op_type(),
                           "strides must be positive, got " + std::to_string(v));
    }
  }
}

// A Conv without kernel_shape has ONNX's shape inference take the kernel from the weight's dims
// and index the strides, pads and dilations (sized by the input's rank) by them: a weight of
// another rank than the input reads past those (a crash the ONNX fuzzer found). Where the
// weight's shape is known (an initializer, or an input of fixed shape), kernel_shape is written
// from it, as the ONNX spec defines its default, and inference then checks its size.
void pin_kernel_shapes(onnx::GraphProto& g) {
  std::map<std::string, std::vector<int64_t>> known;
  for (const onnx::TensorProto& t : g.initializer()) known[t.name()] = {t.dims().begin(), t.dims().end()};
  for (const onnx::ValueInfoProto& in : g.input()) {
    if (known.count(in.name()) != 0 || !in.type().tensor_type().has_shape()) continue;
    std::vector<int64_t> dims;
    for (const onnx::TensorShapeProto_Dimension& d : in.type().tensor_type().shape().dim()) {
      if (!d.has_dim_value()) break;
      dims.push_back(d.dim_value());
    }
    if (static_cast<int>(dims.size()) == in.type().tensor_type().shape().dim_size()) known[in.name()] = dims;
  }
  for (int i = 0; i < g.node_size(); ++i) {
    onnx::NodeProto& n = *g.mutable_node(i);
    if (n.op_type() != "Conv" || n.input_size() < 2) continue;
    const bool has_kernel = std::any_of(n.attribute().begin(), n.attribute().end(),
                                        [](const onnx::AttributeProto& a) { return a.name() == "kernel_shape"; });
    auto w = known.find(n.input(1));
    if (has_kernel || w == known.end()) continue;
    if (w->second.size() < 2)
      throw GraphError("graph.node[" + std::to_string(i) + "]", n.name(), n.op_type(),
                       "the weight '" + n.input(1) + "' has rank " + std::to_string(w->second.size()) +
                           "; a convolution's weight has at least 2 dims");
    onnx::AttributeProto& a = *n.add_attribute();
    a.set_name("kernel_shape");
    a.set_type(onnx::AttributeProto::INTS);
    for (std::size_t d = 2; d < w->second.size(); ++d) a.add_ints(w->second[d]);
  }
}

// A missing external data file is an I/O error, told before the checker reports it as invalid.
void check_external_files(const onnx::GraphProto& g, const fs::path& dir) {
  for (const onnx::TensorProto& t : g.initializer()) {
    if (!t.has_data_location() || t.data_location() != onnx::TensorProto_DataLocation_EXTERNAL) continue;
    for (const onnx::StringStringEntryProto& e : t.external_data()) {
      std::error_code ec;
      if (e.key() == "location" && !fs::is_regular_file(dir / e.value(), ec))
        throw UserError((dir / e.value()).string() + ": no such file (the external data of initializer '" +
                        t.name() + "')");
    }
  }
}

void run_checker(const onnx::ModelProto& m, const fs::path& dir) {
  if (m.ir_version() <= 0) model_error("not an ONNX model: it has no ir_version");
  if (m.ir_version() > onnx::IR_VERSION)
    model_error("IR version " + std::to_string(m.ir_version()) + " is newer than the " +
                std::to_string(onnx::IR_VERSION) + " this ONNX library reads");
  if (!m.has_graph()) model_error("not an ONNX model: it has no graph");
  onnx::checker::CheckerContext ctx;
  ctx.set_ir_version(static_cast<int>(m.ir_version()));
  std::unordered_map<std::string, int> opsets;
  for (const onnx::OperatorSetIdProto& o : m.opset_import())
    opsets[o.domain()] = static_cast<int>(o.version());
  ctx.set_opset_imports(opsets);
  ctx.set_model_dir((dir / "").string());
  onnx::checker::LexicalScopeContext lex;
  try {
    onnx::checker::check_graph(m.graph(), ctx, lex);
  } catch (const onnx::checker::ValidationError& e) {
    model_error("invalid ONNX model: " + first_line(e.what()));
  }
}

std::set<std::string> initializer_names(const onnx::GraphProto& g) {
  std::set<std::string> names;
  for (const onnx::TensorProto& t : g.initializer()) names.insert(t.name());
  return names;
}

std::string dim_text(const onnx::TensorShapeProto_Dimension& d) {
  if (d.has_dim_param()) return "'" + d.dim_param() + "'";
  if (d.has_dim_value()) return std::to_string(d.dim_value());
  return "unknown";
}

// Writes the shape of graph input `k` into the model: from --input-shape when given (which must
// agree with the model's fixed dims), else from the model, whose dims must then all be fixed.
void fix_input_shape(onnx::ValueInfoProto& in, int k, const ImportOptions& opts) {
  std::string path = "graph.input[" + std::to_string(k) + "]";
  if (!in.type().has_tensor_type())
    throw GraphError(path, in.name(), "", "only tensor inputs are supported");
  onnx::TypeProto_Tensor& tt = *in.mutable_type()->mutable_tensor_type();
  if (!dtype_from_onnx(tt.elem_type()))
    throw GraphError(path, in.name(), "", "input of element type " + onnx_type_name(tt.elem_type()) +
                                              " is not supported (float32, float64, int32, int64 and bool are)");
  auto given = opts.input_shapes.find(in.name());
  bool has_shape = tt.has_shape();
  const std::string flag = "--input-shape " + in.name() + "=DIMS";
  if (given == opts.input_shapes.end()) {
    if (!has_shape) throw GraphError(path, in.name(), "", "the input's shape is unknown: give it with " + flag);
    for (int d = 0; d < tt.shape().dim_size(); ++d) {
      const auto& dim = tt.shape().dim(d);
      if (!dim.has_dim_value() || dim.dim_value() < 0)
        throw GraphError(path, in.name(), "", "dim " + std::to_string(d) + " (" + dim_text(dim) +
                                                  ") is symbolic: fix it with " + flag);
      if (dim.dim_value() == 0)
        throw GraphError(path, in.name(), "", "dim " + std::to_string(d) + " is 0: stax has no zero-size values");
    }
    return;
  }
  const Shape& shape = given->second;
  if (has_shape && tt.shape().dim_size() != static_cast<int>(shape.size()))
    throw UserError("--input-shape " + in.name() + " has " + std::to_string(shape.size()) +
                    " dims; the model's input has " + std::to_string(tt.shape().dim_size()));
  for (int d = 0; has_shape && d < tt.shape().dim_size(); ++d) {
    const auto& dim = tt.shape().dim(d);
    if (dim.has_dim_value() && dim.dim_value() != shape[static_cast<std::size_t>(d)])
      throw UserError("--input-shape " + in.name() + " gives dim " + std::to_string(d) + " as " +
                      std::to_string(shape[static_cast<std::size_t>(d)]) + "; the model fixes it to " +
                      std::to_string(dim.dim_value()));
  }
  onnx::TensorShapeProto* s = tt.mutable_shape();
  s->clear_dim();
  for (int64_t d : shape) s->add_dim()->set_dim_value(d);
}

void fix_input_shapes(onnx::GraphProto& g, const ImportOptions& opts) {
  std::set<std::string> inits = initializer_names(g);
  std::set<std::string> inputs;
  for (const onnx::ValueInfoProto& in : g.input())
    if (inits.count(in.name()) == 0) inputs.insert(in.name());  // else an initializer listed as an input
  for (const auto& [name, shape] : opts.input_shapes) {
    if (inputs.count(name) != 0) continue;
    std::string list;
    for (const std::string& n : inputs) list += (list.empty() ? "" : ", ") + n;
    throw UserError("--input-shape names '" + name + "', which is not an input of the model (inputs: " +
                    (list.empty() ? "none" : list) + ")");
  }
  for (int k = 0; k < g.input_size(); ++k)
    if (inputs.count(g.input(k).name()) != 0) fix_input_shape(*g.mutable_input(k), k, opts);
}

void infer_shapes(onnx::ModelProto& m) {
  // Type constraints checked, every node's inference error thrown; shapes of the importer's
  // own computing, so no data propagation.
  onnx::ShapeInferenceOptions options(/*check_type=*/true, /*error_mode=*/1, /*data_prop=*/false);
  try {
    onnx::shape_inference::InferShapes(m, onnx::OpSchemaRegistry::Instance(), options);
  } catch (const std::exception& e) {
    model_error("ONNX shape inference: " + first_line(e.what()));
  }
}

}  // namespace

LoadedModel load_model(std::string_view bytes, const fs::path& dir, const ImportOptions& opts) {
  LoadedModel lm;
  lm.dir = dir;
  if (bytes.size() > static_cast<std::size_t>(INT_MAX))
    model_error("the file is larger than 2 GiB, the limit of a protobuf message (keep the weights as external data)");
  if (!lm.proto.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())))
    model_error("not a valid ONNX model: the file is truncated or corrupt (protobuf cannot parse it)");
  if (lm.proto.ir_version() <= 0 || !lm.proto.has_graph())
    model_error(std::string("not an ONNX model: it has no ") + (lm.proto.ir_version() <= 0 ? "ir_version" : "graph"));
  lm.opset = default_opset(lm.proto);
  check_ops_supported(lm.proto.graph());
  check_strides(lm.proto.graph());
  check_external_files(lm.proto.graph(), dir);
  run_checker(lm.proto, dir);
  fix_input_shapes(*lm.proto.mutable_graph(), opts);
  pin_kernel_shapes(*lm.proto.mutable_graph());
  infer_shapes(lm.proto);
  return lm;
}

}  // namespace stax::importer::detail
