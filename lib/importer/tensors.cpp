#include "tensors.h"

#include <bit>
#include <charconv>
#include <cstring>
#include <fstream>

#include "stax/graph/promote.h"
#include "stax/support/error.h"

namespace stax::importer::detail {

namespace {

namespace fs = std::filesystem;

// A tensor larger than this is refused before anything is allocated: a corrupt dims field must
// not exhaust memory (the graph format's own limit for a constant is 1 GiB).
constexpr uint64_t kMaxTensorBytes = uint64_t{1} << 32;

struct ExternalData {
  std::string location;
  uint64_t offset = 0;
  std::optional<uint64_t> length;
};

uint64_t parse_count(const TensorSite& site, const std::string& key, const std::string& text) {
  uint64_t v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size())
    site.fail("external data '" + key + "' is '" + text + "', not a byte count");
  return v;
}

ExternalData external_data(const onnx::TensorProto& t, const TensorSite& site) {
  ExternalData d;
  for (const onnx::StringStringEntryProto& e : t.external_data()) {
    if (e.key() == "location") d.location = e.value();
    if (e.key() == "offset") d.offset = parse_count(site, e.key(), e.value());
    if (e.key() == "length") d.length = parse_count(site, e.key(), e.value());
  }
  if (d.location.empty()) site.fail("is stored externally but names no location");
  fs::path rel(d.location);
  bool escapes = rel.is_absolute() || rel.has_root_name();
  for (const fs::path& part : rel) escapes = escapes || part == "..";
  if (escapes)
    site.fail("external data location '" + d.location +
              "' is not a path inside the model's folder");
  return d;
}

void read_external(const onnx::TensorProto& t, const fs::path& model_dir, const TensorSite& site,
                   Tensor& out) {
  ExternalData d = external_data(t, site);
  fs::path path = model_dir / d.location;
  std::error_code ec;
  if (!fs::is_regular_file(path, ec))
    throw UserError(path.string() + ": no such file (the external data of " + site.what + ")");
  uint64_t size = fs::file_size(path, ec);
  if (ec) throw UserError(path.string() + ": cannot read (the external data of " + site.what + ")");
  uint64_t need = out.nbytes();
  if (d.length && *d.length != need)
    site.fail("external data length " + std::to_string(*d.length) + " does not match its " +
              std::string(dtype_name(out.dtype())) + shape_str(out.shape()) + " (" +
              std::to_string(need) + " bytes)");
  if (d.offset > size || size - d.offset < need)
    site.fail("external data '" + d.location + "' has " + std::to_string(size) + " bytes; " +
              std::to_string(need) + " are needed from offset " + std::to_string(d.offset));
  std::ifstream in(path, std::ios::binary);
  in.seekg(static_cast<std::streamoff>(d.offset));
  in.read(reinterpret_cast<char*>(out.data()), static_cast<std::streamsize>(need));
  if (!in || in.gcount() != static_cast<std::streamsize>(need))
    throw UserError(path.string() + ": cannot read (the external data of " + site.what + ")");
}

template <typename Field>
void copy_typed(const Field& field, const TensorSite& site, const char* name, Tensor& out) {
  if (static_cast<int64_t>(field.size()) != out.numel())
    site.fail(std::string(name) + " has " + std::to_string(field.size()) + " elements; " +
              std::string(dtype_name(out.dtype())) + shape_str(out.shape()) + " needs " +
              std::to_string(out.numel()));
  for (int64_t i = 0; i < out.numel(); ++i) {
    auto v = field[static_cast<int>(i)];
    if constexpr (std::is_floating_point_v<decltype(v)>) out.set_double(i, v);
    else out.set_int(i, v);
  }
}

void read_typed(const onnx::TensorProto& t, const TensorSite& site, Tensor& out) {
  if (out.numel() == 0) return;
  switch (out.dtype()) {
    case DType::Float32: return copy_typed(t.float_data(), site, "float_data", out);
    case DType::Float64: return copy_typed(t.double_data(), site, "double_data", out);
    case DType::Int64: return copy_typed(t.int64_data(), site, "int64_data", out);
    case DType::Int32:
    case DType::Bool: return copy_typed(t.int32_data(), site, "int32_data", out);
  }
}

}  // namespace

void TensorSite::fail(const std::string& message) const {
  throw GraphError(path, node, op, what + ": " + message);
}

std::optional<DType> dtype_from_onnx(int32_t elem_type) {
  switch (elem_type) {
    case onnx::TensorProto_DataType_FLOAT: return DType::Float32;
    case onnx::TensorProto_DataType_DOUBLE: return DType::Float64;
    case onnx::TensorProto_DataType_INT32: return DType::Int32;
    case onnx::TensorProto_DataType_INT64: return DType::Int64;
    case onnx::TensorProto_DataType_BOOL: return DType::Bool;
    default: return std::nullopt;
  }
}

std::string onnx_type_name(int32_t elem_type) {
  if (auto dt = dtype_from_onnx(elem_type)) return std::string(dtype_name(*dt));
  if (!onnx::TensorProto_DataType_IsValid(elem_type)) return "element type " + std::to_string(elem_type);
  std::string name = onnx::TensorProto_DataType_Name(static_cast<onnx::TensorProto_DataType>(elem_type));
  for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return name;
}

Tensor tensor_from_proto(const onnx::TensorProto& t, const fs::path& model_dir, const TensorSite& site) {
  if (t.has_segment()) site.fail("segmented tensors are not supported");
  std::optional<DType> dt = dtype_from_onnx(t.data_type());
  if (!dt)
    site.fail("element type " + onnx_type_name(t.data_type()) +
              " is not supported (float32, float64, int32, int64 and bool are)");
  Shape shape(t.dims().begin(), t.dims().end());
  for (int64_t d : shape)
    if (d < 0) site.fail("negative dim in shape " + shape_str(shape));
  std::optional<int64_t> numel = graph::checked_numel(shape);
  if (!numel || static_cast<uint64_t>(*numel) > kMaxTensorBytes / dtype_size(*dt))
    site.fail("shape " + shape_str(shape) + " is too large");
  Tensor out(*dt, shape);
  if (t.has_data_location() && t.data_location() == onnx::TensorProto_DataLocation_EXTERNAL) {
    read_external(t, model_dir, site, out);
  } else if (t.has_raw_data()) {
    if (t.raw_data().size() != out.nbytes())
      site.fail("raw_data has " + std::to_string(t.raw_data().size()) + " bytes; " +
                std::string(dtype_name(*dt)) + shape_str(shape) + " needs " + std::to_string(out.nbytes()));
    // raw_data is little-endian, as is every machine staxc runs on.
    static_assert(std::endian::native == std::endian::little, "big-endian hosts are unsupported");
    // An empty tensor (a zero dim) has no storage: memcpy must not see its null pointer.
    if (out.nbytes() > 0) std::memcpy(out.data(), t.raw_data().data(), out.nbytes());
  } else {
    read_typed(t, site, out);
  }
  if (*dt == DType::Bool)
    for (std::size_t i = 0; i < out.nbytes(); ++i) out.data()[i] = out.data()[i] != 0;
  return out;
}

}  // namespace stax::importer::detail
