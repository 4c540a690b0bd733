// Constant data: `data` (flat row-major list), `file` (raw little-endian bytes) or `fill`
// (graph-format.md "Constants are typed strictly").
#include "frontend_impl.h"

#include <bit>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>

#include "stax/support/error.h"

namespace stax::graph::detail {

namespace {

// Constants are baked into the generated code; anything larger is surely a mistake and would
// only exhaust memory.
constexpr int64_t kMaxConstantBytes = int64_t{1} << 30;

// One element of `data` or the `fill` value, typed strictly. The path `sub_fn()` is built
// only on error: `data` may hold millions of elements.
template <typename SubFn>
Scalar read_element(const Site& s, const Json& j, DType dt, SubFn sub_fn) {
  if (j.is_array()) s.fail(sub_fn(), "data is a flat row-major list, got a nested list");
  std::string dt_name(dtype_name(dt));
  switch (dt) {
    case DType::Bool:
      if (!j.is_bool()) s.fail(sub_fn(), "a bool constant takes true or false, got " + json_brief(j));
      return Scalar::of_bool(j.b);
    case DType::Int32:
    case DType::Int64: {
      bool integer = j.is_int() || (j.kind == Json::Kind::Float && j.integer_token);
      if (!integer) s.fail(sub_fn(), "an " + dt_name + " constant takes integers, got " + json_brief(j));
      if (!j.is_int() || !scalar_fits(Scalar::of_int(j.i), dt))
        s.fail(sub_fn(), "value " + j.text + " is out of the range of " + dt_name);
      return Scalar::of_int(j.i);
    }
    case DType::Float32:
    case DType::Float64: {
      if (j.is_bool()) s.fail(sub_fn(), "a float constant takes numbers, got " + json_brief(j));
      double v = j.is_number() ? (j.is_int() ? static_cast<double>(j.i) : j.f)
                               : read_number(s, j, sub_fn());
      if (!scalar_fits(Scalar::of_float(v), dt))
        s.fail(sub_fn(), "value " + j.text + " is out of the range of " + dt_name);
      return Scalar::of_float(v);
    }
  }
  return Scalar{};
}

void store(Tensor& t, int64_t i, const Scalar& v) {
  switch (v.kind) {
    case Scalar::Kind::Bool: t.set_bool(i, v.b); return;
    case Scalar::Kind::Int: t.set_int(i, v.i); return;
    case Scalar::Kind::Float: t.set_double(i, v.f); return;
  }
}

// The constant file `name`'s size and a reader of its bytes [offset, offset + n): from memory
// when `files` holds it, else from the file system relative to `files.base_dir`.
struct ConstantFile {
  std::string shown;  // for messages
  std::uintmax_t size = 0;
  const std::string* memory = nullptr;
  std::filesystem::path path;

  bool read(std::uintmax_t offset, unsigned char* out, std::size_t n) const {
    if (memory != nullptr) {
      std::memcpy(out, memory->data() + offset, n);
      return true;
    }
    std::ifstream in(path, std::ios::binary);
    in.seekg(static_cast<std::streamoff>(offset));
    in.read(reinterpret_cast<char*>(out), static_cast<std::streamsize>(n));
    return in && in.gcount() == static_cast<std::streamsize>(n);
  }
};

ConstantFile open_file(const Site& s, const std::string& name, const ConstantFiles& files) {
  if (name.find('\0') != std::string::npos) s.fail(".file", "the file name contains a NUL byte");
  ConstantFile f;
  if (auto it = files.memory.find(name); it != files.memory.end()) {
    f.shown = printable(name);
    f.memory = &it->second;
    f.size = it->second.size();
    return f;
  }
  f.path = files.base_dir / name;
  f.shown = printable(f.path.string());
  std::error_code ec;
  if (!std::filesystem::is_regular_file(f.path, ec))
    s.fail(".file", "constant file '" + f.shown + "' does not exist or is not a file");
  f.size = std::filesystem::file_size(f.path, ec);
  if (ec) s.fail(".file", "cannot read constant file '" + f.shown + "'");
  return f;
}

// Without `offset` the file holds exactly the constant; with one, at least offset + its bytes.
Tensor read_file(const Site& s, const std::string& name, std::optional<int64_t> offset, DType dt,
                 const Shape& shape, const ConstantFiles& files) {
  ConstantFile f = open_file(s, name, files);
  Tensor t(dt, shape);
  auto expected = static_cast<std::uintmax_t>(t.nbytes());
  auto start = static_cast<std::uintmax_t>(offset.value_or(0));
  std::string needs = std::string(dtype_name(dt)) + shape_str(shape) + " needs " + std::to_string(expected);
  if (!offset && f.size != expected)
    s.fail(".file", "constant file '" + f.shown + "' has " + std::to_string(f.size) + " bytes; " +
                        needs + (f.size < expected ? " (file too short)" : ""));
  if (offset && (start > f.size || f.size - start < expected))
    s.fail(".offset", "constant file '" + f.shown + "' has " + std::to_string(f.size) +
                          " bytes; " + needs + " from offset " + std::to_string(start) +
                          " (file too short)");
  if (!f.read(start, t.data(), t.nbytes()))
    s.fail(".file", "cannot read " + std::to_string(expected) + " bytes from '" + f.shown + "'");
  if (dt == DType::Bool) {
    for (std::size_t i = 0; i < t.nbytes(); ++i)
      if (t.data()[i] > 1)
        s.fail(".file", "byte " + std::to_string(start + i) + " of bool constant file '" + f.shown +
                            "' is " + std::to_string(t.data()[i]) + " (expected 0 or 1)");
  }
  // The file is little-endian, as is every machine staxc runs on (x86-64).
  static_assert(std::endian::native == std::endian::little, "big-endian hosts are unsupported");
  return t;
}

}  // namespace

Tensor read_constant_data(const Site& s, const Json& obj, DType dt, const Shape& shape,
                          const ConstantFiles& files) {
  const Json* data = obj.find("data");
  const Json* file = obj.find("file");
  const Json* fill = obj.find("fill");
  const Json* offset = obj.find("offset");
  if (data != nullptr && data->is_null()) data = nullptr;
  if (offset != nullptr && offset->is_null()) offset = nullptr;
  if (file != nullptr && file->is_null()) file = nullptr;
  if (fill != nullptr && fill->is_null()) fill = nullptr;
  int given = (data != nullptr) + (file != nullptr) + (fill != nullptr);
  if (given != 1)
    s.fail("", std::string(given == 0 ? "missing" : "more than one of") +
                   " 'data', 'file' or 'fill' (a constant takes exactly one)");

  int64_t numel = shape_numel(shape);  // checked by the caller
  int64_t bytes = numel * static_cast<int64_t>(dtype_size(dt));
  if (bytes > kMaxConstantBytes)
    s.fail(".shape", "constant of " + std::to_string(bytes) + " bytes is larger than the limit of " +
                         std::to_string(kMaxConstantBytes) + " bytes");

  if (offset != nullptr && file == nullptr) s.fail(".offset", "'offset' stands only beside 'file'");
  if (file != nullptr) {
    std::optional<int64_t> start;
    if (offset != nullptr) start = read_int(s, *offset, ".offset");
    if (start && *start < 0) s.fail(".offset", "expected an offset >= 0, got " + std::to_string(*start));
    return read_file(s, read_string(s, *file, ".file"), start, dt, shape, files);
  }

  Tensor t(dt, shape);
  if (fill != nullptr) {
    Scalar v = read_element(s, *fill, dt, [] { return std::string(".fill"); });
    for (int64_t i = 0; i < numel; ++i) store(t, i, v);
    return t;
  }
  if (!data->is_array())
    s.fail(".data", "expected a flat list of numbers or booleans, got " + json_brief(*data));
  if (static_cast<int64_t>(data->items.size()) != numel)
    s.fail(".data", "has " + std::to_string(data->items.size()) + " elements; " +
                        std::string(dtype_name(dt)) + shape_str(shape) + " needs " +
                        std::to_string(numel));
  for (int64_t i = 0; i < numel; ++i) {
    auto sub = [i] { return ".data[" + std::to_string(i) + "]"; };
    store(t, i, read_element(s, data->items[static_cast<std::size_t>(i)], dt, sub));
  }
  return t;
}

}  // namespace stax::graph::detail
