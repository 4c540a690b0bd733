#include "document.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace stax::importer::detail {

namespace {

bool is_name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '.' || c == '-';
}

// One line of JSON with a space after ',' and ':', as graph-format.md writes its examples.
void write_line(const Json& j, std::string& out) {
  if (j.is_object()) {
    out += '{';
    bool first = true;
    for (const auto& [key, value] : j.items()) {
      if (!first) out += ", ";
      first = false;
      out += Json(key).dump();
      out += ": ";
      write_line(value, out);
    }
    out += '}';
    return;
  }
  if (j.is_array()) {
    out += '[';
    for (std::size_t i = 0; i < j.size(); ++i) {
      if (i > 0) out += ", ";
      write_line(j[i], out);
    }
    out += ']';
    return;
  }
  out += j.dump();
}

void write_list(std::string_view key, const Json& list, bool last, std::string& out) {
  out += "  \"" + std::string(key) + "\": [";
  for (std::size_t i = 0; i < list.size(); ++i) {
    out += i == 0 ? "\n    " : ",\n    ";
    write_line(list[i], out);
  }
  out += list.empty() ? "]" : "\n  ]";
  out += last ? "\n" : ",\n";
}

bool all_equal(const Tensor& t) {
  std::size_t size = dtype_size(t.dtype());
  for (std::size_t b = size; b < t.nbytes(); b += size)
    if (std::memcmp(t.data(), t.data() + b, size) != 0) return false;
  return true;
}

double shortest_float32(float f) {
  char buf[32];
  for (int precision = 6; precision <= 9; ++precision) {
    std::snprintf(buf, sizeof buf, "%.*g", precision, static_cast<double>(f));
    if (std::strtof(buf, nullptr) == f) return std::strtod(buf, nullptr);
  }
  return f;
}

}  // namespace

Json op_node(std::string_view op, std::vector<Json> args) {
  Json node = Json::object();
  node["op"] = op;
  node["args"] = Json::array();
  for (Json& a : args) node["args"].push_back(std::move(a));
  return node;
}

Json float_json(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  // Integral values keep a ".0" (nlohmann writes 2.0 as 2.0), so they read back as floats.
  return v;
}

Json float32_json(float v) { return std::isfinite(v) ? Json(shortest_float32(v)) : float_json(v); }

Json float_attr_json(float v, DType dtype) {
  return dtype == DType::Float64 ? float_json(static_cast<double>(v)) : float32_json(v);
}

Json element_json(const Tensor& t, int64_t i) {
  switch (t.dtype()) {
    case DType::Bool: return t.get_bool(i);
    case DType::Int32:
    case DType::Int64: return t.get_int(i);
    case DType::Float32: return float32_json(static_cast<float>(t.get_double(i)));
    case DType::Float64: return float_json(t.get_double(i));
  }
  return nullptr;
}

Document::Document(std::string graph_name, std::string weights_file, int64_t inline_limit)
    : graph_name_(std::move(graph_name)), weights_file_(std::move(weights_file)),
      inline_limit_(inline_limit) {}

std::string Document::unique_name(std::string_view wanted) {
  std::string base;
  for (char c : wanted) base += is_name_char(c) ? c : '_';
  if (base.empty() || base == "inf" || base == "-inf" || base == "nan") base = "v_" + base;
  std::string name = base;
  for (int k = 1; names_.count(name) != 0; ++k) name = base + "." + std::to_string(k);
  names_.insert(name);
  return name;
}

void Document::add_input(const std::string& name, DType dtype, const Shape& shape) {
  Json in = Json::object();
  in["name"] = name;
  in["dtype"] = dtype_name(dtype);
  in["shape"] = shape;
  inputs_.push_back(std::move(in));
}

std::string Document::add_constant(std::string_view wanted, const Tensor& t) {
  bool uniform = t.numel() > 1 && all_equal(t);
  bool small = t.numel() <= inline_limit_;
  std::string key;
  if (small) {
    key = std::string(dtype_name(t.dtype())) + shape_str(t.shape()) +
          std::string(reinterpret_cast<const char*>(t.data()), t.nbytes());
    if (auto it = small_constants_.find(key); it != small_constants_.end()) return it->second;
  }
  Json c = Json::object();
  std::string name = unique_name(wanted);
  c["name"] = name;
  c["dtype"] = dtype_name(t.dtype());
  c["shape"] = t.shape();
  if (uniform) {
    c["fill"] = element_json(t, 0);
  } else if (small) {
    Json data = Json::array();
    for (int64_t i = 0; i < t.numel(); ++i) data.push_back(element_json(t, i));
    c["data"] = std::move(data);
  } else {
    c["file"] = weights_file_;
    c["offset"] = weights_offset_for(t);
  }
  if (!key.empty()) small_constants_.emplace(std::move(key), name);
  constants_.push_back(std::move(c));
  return name;
}

// Appends the tensor's bytes (little-endian, row-major, as Tensor holds them) at the next
// aligned offset.
int64_t Document::weights_offset_for(const Tensor& t) {
  std::size_t offset = (weights_.size() + kWeightsAlignment - 1) / kWeightsAlignment * kWeightsAlignment;
  weights_.resize(offset, '\0');
  weights_.append(reinterpret_cast<const char*>(t.data()), t.nbytes());
  return static_cast<int64_t>(offset);
}

void Document::add_node(Json node) { nodes_.push_back(std::move(node)); }

void Document::add_output(const std::string& name) { outputs_.push_back(name); }

std::string Document::text() const {
  std::string out = "{\n  \"format\": \"stax-graph\",\n  \"version\": 1,\n";
  out += "  \"name\": " + Json(graph_name_).dump() + ",\n";
  write_list("inputs", inputs_, false, out);
  write_list("constants", constants_, false, out);
  write_list("nodes", nodes_, false, out);
  out += "  \"outputs\": ";
  write_line(outputs_, out);
  out += "\n}\n";
  return out;
}

}  // namespace stax::importer::detail
