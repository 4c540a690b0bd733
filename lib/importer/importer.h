// The importer's core: what it knows of each ONNX value, the node being mapped as its mapper
// sees it, and the table of mappers (one per ONNX op type, in map_*.cpp). Not a public header.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "document.h"
#include "onnx/onnx_pb.h"
#include "stax/importer/onnx.h"
#include "stax/support/tensor.h"

namespace stax::importer::detail {

// What the importer knows of one ONNX value: its dtype and static shape, its contents when they
// are known at import (an initializer, a Constant, a folded shape computation), and its name in
// the document once it is there. Aliases (Identity, Dropout) share one record.
struct OnnxValue {
  DType dtype = DType::Float32;
  Shape shape;
  std::optional<Tensor> known;
  std::string stax;  // "" until the document has it
  std::string onnx_name;
};
using ValueRef = std::shared_ptr<OnnxValue>;

// Folding: a node whose inputs are all known at import is computed at import when its result is
// integer or bool (shapes, indices, masks) or has at most kSmallFold elements (the scalars of a
// shape computation), up to kMaxFold elements. Other results, and weights, stay as they are.
constexpr int64_t kSmallFold = 16;
constexpr int64_t kMaxFold = int64_t{1} << 24;

class Importer;

// The ONNX node being imported, as its mapper sees it. Errors name the node, its op type and
// its place in the graph ("graph.node[12] (node 'conv1', op 'Conv'): ...").
class NodeCtx {
 public:
  NodeCtx(Importer& im, const onnx::NodeProto& node, int index, int opset);

  const onnx::NodeProto& node;
  const int index;
  const int opset;  // the model's default-domain opset, 11 to 17

  [[noreturn]] void fail(const std::string& message) const;
  const std::string& op_type() const { return node.op_type(); }

  // ---- inputs (position i of the node; an empty name is an absent optional input)
  std::size_t num_inputs() const { return static_cast<std::size_t>(node.input_size()); }
  bool has_input(std::size_t i) const;
  const OnnxValue& in(std::size_t i) const;  // fails when absent
  DType dtype(std::size_t i) const { return in(i).dtype; }
  const Shape& shape(std::size_t i) const { return in(i).shape; }
  int64_t rank(std::size_t i) const { return static_cast<int64_t>(in(i).shape.size()); }
  bool all_known() const;  // every present input known at import
  const Tensor* known(std::size_t i) const;  // nullptr when absent or not known
  // Input i's contents, which must be known at import; `what` names the input in the error.
  const Tensor& require_known(std::size_t i, std::string_view what) const;
  // A known integer input: its elements (0-d or 1-D; `what` names it in errors).
  std::vector<int64_t> known_ints(std::size_t i, std::string_view what) const;
  // A known one-element input as a double.
  double known_scalar(std::size_t i, std::string_view what) const;
  // Input i as a node argument: its name in the document (writing its constant when it is a
  // known value not yet there).
  Json arg(std::size_t i);

  // ---- attributes
  const onnx::AttributeProto* attr(std::string_view name) const;
  int64_t attr_int(std::string_view name, int64_t dflt) const;
  float attr_float(std::string_view name, float dflt) const;
  std::string attr_string(std::string_view name, std::string_view dflt) const;
  std::optional<std::vector<int64_t>> attr_ints(std::string_view name) const;
  // A tensor attribute's contents (fails when absent or not a tensor).
  Tensor attr_tensor(std::string_view name) const;
  // Fails unless the attribute is absent or equal to `expected` (an unsupported form).
  void require_attr_int(std::string_view name, int64_t expected, std::string_view why) const;

  // ---- outputs
  std::size_t num_outputs() const { return static_cast<std::size_t>(node.output_size()); }
  // Output k exists and a node or the graph's outputs read it.
  bool output_used(std::size_t k) const;
  // Fails when an output from `first` on is used: what the mapping cannot produce.
  void require_unused_outputs(std::size_t first, std::string_view why) const;
  // Whether to compute the result at import (see kSmallFold).
  bool fold(DType dtype, const Shape& shape) const;
  void set_known(std::size_t k, Tensor t);
  // Output k is computed by `node` ({"op", "args", attributes}), named after the ONNX output.
  void set_node(std::size_t k, Json node, DType dtype, Shape shape);
  // Output k is input i.
  void set_alias(std::size_t k, std::size_t i);
  // A node computing a helper value read more than once (inline nodes are read once): named
  // "<first output>.<suffix>"; returns its name.
  std::string helper(std::string_view suffix, Json node);
  // A constant made by the mapping (an index list): returns its name.
  std::string constant(std::string_view suffix, const Tensor& t);

 private:
  ValueRef input_ref(std::size_t i) const;  // fails when absent

  Importer& im_;
};

using Mapper = void (*)(NodeCtx&);
using MapperTable = std::map<std::string, Mapper, std::less<>>;

// The mappers of each group, added to the table (map_*.cpp).
void add_elementwise_mappers(MapperTable& table);
void add_math_mappers(MapperTable& table);
void add_shape_mappers(MapperTable& table);
void add_index_mappers(MapperTable& table);
void add_nn_mappers(MapperTable& table);
void add_reduce_mappers(MapperTable& table);
void add_einsum_mapper(MapperTable& table);
// Every supported op type of the default domain -> its mapper.
const MapperTable& mapper_table();

// ---- the model before mapping (model.cpp) ----

struct LoadedModel {
  onnx::ModelProto proto;
  int opset = 0;
  std::filesystem::path dir;  // resolves external data
};

// Parses, checks (ONNX's checker, the opset, every op supported), fixes the input shapes and
// runs ONNX's shape inference. GraphError for any problem of the model.
LoadedModel load_model(std::string_view bytes, const std::filesystem::path& dir,
                       const ImportOptions& opts);

class Importer {
 public:
  Importer(const LoadedModel& model, const ImportOptions& opts, std::string graph_name);
  ImportedModel run();

  ValueRef value(const std::string& onnx_name) const;  // nullptr when unknown
  void define(const std::string& onnx_name, ValueRef v);
  // The document name of `v`, writing its constant first if it is known and not there yet.
  std::string materialize(OnnxValue& v);
  int uses(const std::string& onnx_name) const;
  const std::filesystem::path& model_dir() const { return model_.dir; }

  Document doc;

 private:
  void add_initializers();
  void add_inputs();
  void map_nodes();
  void add_outputs();

  const LoadedModel& model_;
  std::map<std::string, ValueRef, std::less<>> values_;
  std::map<std::string, int, std::less<>> uses_;
};

}  // namespace stax::importer::detail
