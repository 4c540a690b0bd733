#include "stax/driver/inputs.h"

#include <cstddef>
#include <set>
#include <system_error>

#include "stax/support/error.h"
#include "stax/support/npy.h"
#include "stax/support/random.h"

namespace stax::driver {

namespace fs = std::filesystem;

namespace {

std::string type_str(DType dtype, const Shape& shape) {
  return std::string(dtype_name(dtype)) + shape_str(shape);
}

std::string input_names(const graph::Graph& g) {
  if (g.inputs.empty()) return "it has no inputs";
  std::string s = "its inputs: ";
  for (std::size_t k = 0; k < g.inputs.size(); ++k) {
    if (k) s += ", ";
    s += g[g.inputs[k]].name;
  }
  return s;
}

// Position of the input named `name` in g.inputs, or -1.
std::ptrdiff_t input_position(const graph::Graph& g, const std::string& name) {
  for (std::size_t k = 0; k < g.inputs.size(); ++k)
    if (g[g.inputs[k]].name == name) return static_cast<std::ptrdiff_t>(k);
  return -1;
}

Tensor read_given_input(const graph::Value& input, const fs::path& file) {
  Tensor t;
  try {
    t = read_npy(file);
  } catch (const UserError& e) {
    throw UserError("input '" + input.name + "': " + e.what());
  }
  if (t.dtype() != input.dtype || t.shape() != input.shape)
    throw UserError("input '" + input.name + "': " + file.string() + " holds " +
                    type_str(t.dtype(), t.shape()) + ", the graph expects " +
                    type_str(input.dtype, input.shape));
  return t;
}

void create_dir(const fs::path& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw UserError(dir.string() + ": cannot create directory (" + ec.message() + ")");
  if (!fs::is_directory(dir, ec)) throw UserError(dir.string() + ": not a directory");
}

}  // namespace

InputFile parse_input_spec(std::string_view spec) {
  std::size_t eq = spec.find('=');
  if (eq == std::string_view::npos || eq == 0 || eq + 1 == spec.size())
    throw UserError("--input '" + std::string(spec) + "': expected NAME=FILE.npy");
  return InputFile{std::string(spec.substr(0, eq)), fs::path(std::string(spec.substr(eq + 1)))};
}

std::vector<Tensor> prepare_inputs(const graph::Graph& g, const std::vector<InputFile>& given,
                                   uint64_t seed) {
  // Which file, if any, each input comes from; checked before any file is read.
  std::vector<const InputFile*> source(g.inputs.size(), nullptr);
  for (const InputFile& f : given) {
    std::ptrdiff_t pos = input_position(g, f.name);
    if (pos < 0)
      throw UserError("--input " + f.name + "=" + f.file.string() + ": the graph has no input named '" +
                      f.name + "' (" + input_names(g) + ")");
    std::size_t k = static_cast<std::size_t>(pos);
    if (source[k])
      throw UserError("--input " + f.name + "=" + f.file.string() + ": input '" + f.name +
                      "' is already given (" + source[k]->file.string() + ")");
    source[k] = &f;
  }
  uint64_t bytes = 0;
  for (graph::ValueId id : g.inputs) bytes = add_saturating(bytes, static_cast<uint64_t>(g[id].numel()) * dtype_size(g[id].dtype));
  for (graph::ValueId id : g.outputs) bytes = add_saturating(bytes, static_cast<uint64_t>(g[id].numel()) * dtype_size(g[id].dtype));
  check_memory_available(bytes, "holding the inputs and outputs of graph '" + g.name + "'");
  std::vector<Tensor> inputs;
  inputs.reserve(g.inputs.size());
  for (std::size_t k = 0; k < g.inputs.size(); ++k) {
    const graph::Value& v = g[g.inputs[k]];
    if (source[k]) {
      inputs.push_back(read_given_input(v, source[k]->file));
      continue;
    }
    inputs.push_back(random_tensor(v.dtype, v.shape, seed, static_cast<uint64_t>(k)));
  }
  return inputs;
}

std::vector<fs::path> write_inputs(const fs::path& dir, const graph::Graph& g,
                                   const std::vector<Tensor>& inputs) {
  STAX_ASSERT(inputs.size() == g.inputs.size(), "one tensor per graph input");
  std::vector<fs::path> paths;
  if (inputs.empty()) return paths;
  fs::path sub = dir / "inputs";
  create_dir(sub);
  for (std::size_t k = 0; k < inputs.size(); ++k) {
    paths.push_back(sub / (g[g.inputs[k]].name + ".npy"));
    write_npy(paths.back(), inputs[k]);
  }
  return paths;
}

std::vector<fs::path> write_outputs(const fs::path& dir, const graph::Graph& g,
                                    const std::vector<Tensor>& outputs) {
  STAX_ASSERT(outputs.size() == g.outputs.size(), "one tensor per graph output");
  create_dir(dir);
  std::vector<fs::path> paths;
  std::set<graph::ValueId> written;
  for (std::size_t k = 0; k < outputs.size(); ++k) {
    graph::ValueId id = g.outputs[k];
    paths.push_back(dir / (g[id].name + ".npy"));
    if (!written.insert(id).second) continue;
    write_npy(paths.back(), outputs[k]);
  }
  return paths;
}

}  // namespace stax::driver
