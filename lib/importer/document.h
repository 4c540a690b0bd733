// The stax graph document an import writes (graph-format.md): value names made valid and
// unique, constants inline or in the weights file at an offset, nodes in order. Not a public
// header.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "stax/support/tensor.h"

namespace stax::importer::detail {

// Keeps keys in the order they are written, so documents read as graph-format.md shows them.
using Json = nlohmann::ordered_json;

// {"op": op, "args": [...]}: a node without a name (named when added, or an inline argument).
Json op_node(std::string_view op, std::vector<Json> args);
// A float number as graph-format.md writes it: a JSON number, or "inf", "-inf", "nan".
Json float_json(double v);
// A float32 attribute as the shortest decimal that reads back as the same float32 (1e-5f is
// written 1e-05, not 9.999999747378752e-06): what the model's author most likely wrote.
Json float32_json(float v);
// A float32 attribute of ONNX's used on a tensor of `dtype`: float32_json, except for float64
// tensors, where ONNX computes with the float32's exact value.
Json float_attr_json(float v, DType dtype);
// Element i of `t` as a JSON scalar of its kind (bool, integer or float).
Json element_json(const Tensor& t, int64_t i);

// Offsets of constants in the weights file are multiples of this (any alignment is valid; this
// one suits vector loads and memory mapping).
constexpr std::size_t kWeightsAlignment = 64;

class Document {
 public:
  Document(std::string graph_name, std::string weights_file, int64_t inline_limit);

  // `wanted` made a valid value name ([A-Za-z0-9_.-]+, not inf/nan: other characters become
  // '_') and unique in the document (".1", ".2", ... appended), then reserved.
  std::string unique_name(std::string_view wanted);

  void add_input(const std::string& name, DType dtype, const Shape& shape);
  // A constant named after `wanted`: `fill` when every element is equal, `data` when it has at
  // most the inline limit of elements, else `file` + `offset` into the weights. Small constants
  // with equal contents (the many scalars of an exported model) are written once. Returns its
  // name.
  std::string add_constant(std::string_view wanted, const Tensor& t);
  // `node` has its "name" first.
  void add_node(Json node);
  void add_output(const std::string& name);

  // The document's text (newline-terminated) and the weights file's bytes.
  std::string text() const;
  const std::string& weights() const { return weights_; }
  // Room for `bytes` of weights, so the file is not copied as it grows; the weights, moved out.
  void reserve_weights(std::size_t bytes) { weights_.reserve(bytes); }
  std::string take_weights() { return std::move(weights_); }

 private:
  int64_t weights_offset_for(const Tensor& t);

  std::string graph_name_;
  std::string weights_file_;
  int64_t inline_limit_;
  std::set<std::string, std::less<>> names_;
  std::map<std::string, std::string, std::less<>> small_constants_;  // contents key -> name
  Json inputs_ = Json::array();
  Json constants_ = Json::array();
  Json nodes_ = Json::array();
  Json outputs_ = Json::array();
  std::string weights_;
};

}  // namespace stax::importer::detail
