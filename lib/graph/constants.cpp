// Constant data: `data` (flat row-major list), `file` (raw little-endian bytes, from an optional
// `offset`) or `fill` (graph-format.md "Constants are typed strictly", "offset").
#include "frontend_impl.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>

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

// True when `path`, symbolic links followed, lies inside the folder `dir`.
bool inside_folder(const std::filesystem::path& dir, const std::filesystem::path& path) {
  std::error_code ec;
  std::filesystem::path d = std::filesystem::weakly_canonical(dir, ec);
  if (ec) return false;
  std::filesystem::path p = std::filesystem::weakly_canonical(path, ec);
  if (ec) return false;
  auto [end_d, end_p] = std::mismatch(d.begin(), d.end(), p.begin(), p.end());
  (void)end_p;
  // Only the trailing empty element of "dir/" may be left over on the folder's side.
  return end_d == d.end() || (std::next(end_d) == d.end() && end_d->empty());
}

// ConstantFiles: a name read from disk is relative and stays inside the model's folder.
void check_file_place(const Site& s, const std::string& name, const ConstantFiles& files) {
  if (files.allow_outside) return;
  std::filesystem::path rel(name);
  std::string why;
  if (rel.is_absolute() || rel.has_root_name() || rel.has_root_directory())
    why = "is an absolute path";
  else if (!inside_folder(files.base_dir, files.base_dir / rel))
    why = "leads outside the model's folder";
  if (!why.empty())
    s.fail(".file", "constant file '" + printable(name) + "' " + why +
                        "; a model may only read files inside its own folder "
                        "(--allow-outside-files allows it for a trusted model)");
}

// The bytes of a `file` constant: the constant's size from byte `offset` on (the file may hold
// more, as a weights file shared by many constants does). A file `files` holds in memory is read
// from there, any other from `files.base_dir`.
Tensor read_file(const Site& s, const std::string& name, int64_t offset, DType dt,
                 const Shape& shape, const ConstantFiles& files) {
  if (name.find('\0') != std::string::npos) s.fail(".file", "the file name contains a NUL byte");
  auto held = files.memory.find(name);
  bool in_memory = held != files.memory.end();
  if (!in_memory) check_file_place(s, name, files);
  std::filesystem::path path = files.base_dir / name;
  std::string shown = printable(in_memory ? name : path.string());
  std::error_code ec;
  if (!in_memory && !std::filesystem::is_regular_file(path, ec))
    s.fail(".file", "constant file '" + shown + "' does not exist or is not a file");
  Tensor t(dt, shape);
  auto needed = static_cast<std::uintmax_t>(t.nbytes());
  std::uintmax_t actual = in_memory ? held->second.size() : std::filesystem::file_size(path, ec);
  if (ec) s.fail(".file", "cannot read constant file '" + shown + "'");
  const auto start = static_cast<std::uintmax_t>(offset);
  if (start > actual || actual - start < needed) {
    std::string at = offset == 0 ? "" : " from offset " + std::to_string(offset);
    s.fail(offset == 0 ? ".file" : ".offset",
           "constant file '" + shown + "' has " + std::to_string(actual) + " bytes; " +
               std::string(dtype_name(dt)) + shape_str(shape) + " needs " +
               std::to_string(needed) + at + " (file too short)");
  }
  if (in_memory) {
    if (needed > 0) std::memcpy(t.data(), held->second.data() + start, t.nbytes());
  } else {
    if (files.read && std::find(files.read->begin(), files.read->end(), path) == files.read->end())
      files.read->push_back(path);
    std::ifstream in(path, std::ios::binary);
    in.seekg(static_cast<std::streamoff>(offset));
    in.read(reinterpret_cast<char*>(t.data()), static_cast<std::streamsize>(t.nbytes()));
    if (!in || in.gcount() != static_cast<std::streamsize>(t.nbytes()))
      s.fail(".file", "cannot read " + std::to_string(needed) + " bytes from '" + shown + "'");
  }
  if (dt == DType::Bool) {
    for (std::size_t i = 0; i < t.nbytes(); ++i)
      if (t.data()[i] > 1)
        s.fail(".file", "byte " + std::to_string(static_cast<std::uintmax_t>(offset) + i) +
                            " of bool constant file '" + shown + "' is " +
                            std::to_string(t.data()[i]) + " (expected 0 or 1)");
  }
  // The file is little-endian, as is every machine staxc runs on (x86-64).
  static_assert(std::endian::native == std::endian::little, "big-endian hosts are unsupported");
  return t;
}

// `offset`: only beside `file`, an int >= 0 (graph-format.md "offset").
int64_t read_offset(const Site& s, const Json& obj, bool has_file) {
  const Json* j = obj.find("offset");
  if (j == nullptr || j->is_null()) return 0;
  if (!has_file) s.fail(".offset", "'offset' stands only beside 'file'");
  int64_t offset = read_int(s, *j, ".offset");
  if (offset < 0) s.fail(".offset", "offset must be >= 0, got " + std::to_string(offset));
  return offset;
}

}  // namespace

Tensor read_constant_data(const Site& s, const Json& obj, DType dt, const Shape& shape,
                          const ConstantFiles& files) {
  const Json* data = obj.find("data");
  const Json* file = obj.find("file");
  const Json* fill = obj.find("fill");
  if (data != nullptr && data->is_null()) data = nullptr;
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

  const int64_t offset = read_offset(s, obj, file != nullptr);
  if (file != nullptr)
    return read_file(s, read_string(s, *file, ".file"), offset, dt, shape, files);

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
