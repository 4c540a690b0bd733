// The top level of a graph document: format, version, name, inputs, constants, outputs
// (graph-format.md "Top level"); nodes are read in nodes.cpp.
#include "stax/graph/frontend.h"

#include <algorithm>
#include <iterator>
#include <fstream>
#include <sstream>

#include "reader.h"
#include "stax/support/error.h"

namespace stax::graph {
namespace detail {

namespace {

constexpr std::string_view kKeywords[] = {
    // C (C23 included) and C++ (C++20), alternative tokens included.
    "alignas", "alignof", "and", "and_eq", "asm", "auto", "bitand", "bitor", "bool", "break",
    "case", "catch", "char", "char8_t", "char16_t", "char32_t", "class", "compl", "concept",
    "const", "consteval", "constexpr", "constinit", "const_cast", "continue", "co_await",
    "co_return", "co_yield", "decltype", "default", "delete", "do", "double", "dynamic_cast",
    "else", "enum", "explicit", "export", "extern", "false", "float", "for", "friend", "goto",
    "if", "import", "inline", "int", "long", "module", "mutable", "namespace", "new", "noexcept",
    "not", "not_eq", "nullptr", "operator", "or", "or_eq", "private", "protected", "public",
    "register", "reinterpret_cast", "requires", "restrict", "return", "short", "signed",
    "sizeof", "static", "static_assert", "static_cast", "struct", "switch", "template", "this",
    "thread_local", "throw", "true", "try", "typedef", "typeid", "typename", "typeof",
    "typeof_unqual", "union", "unsigned", "using", "virtual", "void", "volatile", "wchar_t",
    "while", "xor", "xor_eq", "override", "final", "transaction_safe", "atomic_cancel",
    "atomic_commit", "atomic_noexcept", "synchronized", "reflexpr", "_Pragma", "NULL",
};

bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool is_digit(char c) { return c >= '0' && c <= '9'; }

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diag = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0u : 1u)});
      diag = up;
    }
  }
  return row[b.size()];
}

const Json& require(const Site& s, const Json& obj, std::string_view key) {
  const Json* j = obj.find(key);
  if (j == nullptr || j->is_null()) s.fail("", "missing key '" + std::string(key) + "'");
  return *j;
}

}  // namespace

bool is_valid_value_name(std::string_view name) {
  if (name.empty() || name == "inf" || name == "-inf" || name == "nan") return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return is_alpha(c) || is_digit(c) || c == '_' || c == '.' || c == '-';
  });
}

std::string graph_name_problem(std::string_view name) {
  if (name.empty()) return "the graph name is empty";
  if (name.front() == '_') return "the graph name must not start with '_'";
  if (is_digit(name.front())) return "the graph name must not start with a digit";
  for (char c : name)
    if (!is_alpha(c) && !is_digit(c) && c != '_')
      return "the graph name must be a C identifier (letters, digits, '_')";
  if (std::find(std::begin(kKeywords), std::end(kKeywords), name) != std::end(kKeywords))
    return "the graph name '" + std::string(name) + "' is a C or C++ keyword";
  return "";
}

void check_keys(const Site& s, const Json& obj, const std::vector<std::string_view>& allowed,
                std::string_view what) {
  for (const auto& [key, value] : obj.members) {
    if (std::find(allowed.begin(), allowed.end(), key) != allowed.end()) continue;
    std::string message = "unknown key '" + printable(key) + "' for " + std::string(what);
    std::string_view best;
    std::size_t best_distance = 3;
    for (std::string_view a : allowed) {
      std::size_t d = edit_distance(key, a);
      if (d < best_distance) {
        best_distance = d;
        best = a;
      }
    }
    if (!best.empty()) message += " (did you mean '" + std::string(best) + "'?)";
    s.fail("." + printable(key), message);
  }
}

std::string GraphReader::read_value_name(const Site& s, const Json& obj) {
  std::string name = read_string(s, require(s, obj, "name"), ".name");
  if (!is_valid_value_name(name))
    s.fail(".name", "invalid value name '" + printable(name) +
                        "' (names match [A-Za-z0-9_.-]+ and are not inf, -inf or nan)");
  auto it = defined_at_.find(name);
  if (it != defined_at_.end())
    s.fail(".name", "duplicate name '" + name + "' (already defined at " + it->second + ")");
  return name;
}

ValueId GraphReader::add_value(Value v) {
  auto id = static_cast<ValueId>(g_.values.size());
  // Inline nodes cannot be named by the user ('#' is not in value names): only named values
  // are found by name.
  if (!v.anonymous) {
    ids_.emplace(v.name, id);
    defined_at_.emplace(v.name, v.path);
  }
  g_.values.push_back(std::move(v));
  return id;
}

Graph GraphReader::read(const Json& root) {
  Site top{"", "", ""};
  if (!root.is_object())
    top.fail("", "a graph is a JSON object, got " + std::string(json_kind_name(root)));
  const Json& format = require(top, root, "format");
  if (!format.is_string() || format.text != "stax-graph")
    top.fail(".format", "expected \"stax-graph\", got " + json_brief(format));
  const Json& version = require(top, root, "version");
  if (!version.is_int() || version.i != 1)
    top.fail(".version", "unsupported version " + json_brief(version) + " (expected 1)");
  check_keys(top, root,
             {"format", "version", "name", "inputs", "constants", "nodes", "outputs"},
             "the graph");

  g_.name = read_string(top, require(top, root, "name"), ".name");
  if (std::string problem = graph_name_problem(g_.name); !problem.empty())
    top.fail(".name", problem);

  read_inputs(require(top, root, "inputs"));
  if (const Json* c = root.find("constants"); c != nullptr && !c->is_null()) read_constants(*c);
  if (const Json* n = root.find("nodes"); n != nullptr && !n->is_null()) read_nodes(*n);
  read_outputs(require(top, root, "outputs"));
  return std::move(g_);
}

void GraphReader::read_inputs(const Json& list) {
  Site top{"", "", ""};
  if (!list.is_array()) top.fail(".inputs", "expected a list, got " + json_brief(list));
  for (std::size_t k = 0; k < list.items.size(); ++k) {
    const Json& obj = list.items[k];
    Site s{index_path("inputs", k), "", ""};
    if (!obj.is_object()) s.fail("", "an input is an object, got " + json_brief(obj));
    check_keys(s, obj, {"name", "dtype", "shape"}, "an input");
    Value v;
    v.kind = ValueKind::Input;
    v.path = s.path;
    v.name = read_value_name(s, obj);
    v.dtype = read_dtype(s, require(s, obj, "dtype"), ".dtype");
    v.compute_dtype = v.dtype;
    v.shape = read_shape(s, require(s, obj, "shape"), ".shape", false);
    check_value_shape(s, v.shape, v.dtype, ".shape");
    g_.inputs.push_back(add_value(std::move(v)));
  }
}

void GraphReader::read_constants(const Json& list) {
  Site top{"", "", ""};
  if (!list.is_array()) top.fail(".constants", "expected a list, got " + json_brief(list));
  for (std::size_t k = 0; k < list.items.size(); ++k) {
    const Json& obj = list.items[k];
    Site s{index_path("constants", k), "", ""};
    if (!obj.is_object()) s.fail("", "a constant is an object, got " + json_brief(obj));
    check_keys(s, obj, {"name", "dtype", "shape", "data", "file", "offset", "fill"}, "a constant");
    Value v;
    v.kind = ValueKind::Constant;
    v.path = s.path;
    v.name = read_value_name(s, obj);
    v.dtype = read_dtype(s, require(s, obj, "dtype"), ".dtype");
    v.compute_dtype = v.dtype;
    v.shape = read_shape(s, require(s, obj, "shape"), ".shape", false);
    check_value_shape(s, v.shape, v.dtype, ".shape");
    v.data = read_constant_data(s, obj, v.dtype, v.shape, files_);
    add_value(std::move(v));
  }
}

void GraphReader::read_outputs(const Json& list) {
  Site top{"", "", ""};
  if (!list.is_array()) top.fail(".outputs", "expected a list of value names, got " + json_brief(list));
  if (list.items.empty()) top.fail(".outputs", "a graph needs at least one output");
  for (std::size_t k = 0; k < list.items.size(); ++k) {
    std::string sub = index_path(".outputs", k);
    std::string name = read_string(top, list.items[k], sub);
    auto it = ids_.find(name);
    if (it == ids_.end())
      top.fail(sub, "output '" + printable(name) + "' names no input, constant or node");
    g_.outputs.push_back(it->second);
  }
}

}  // namespace detail

Graph parse_graph(std::string_view json_text, const ConstantFiles& files) {
  detail::Json root = detail::parse_json(json_text);
  detail::GraphReader reader(files);
  return reader.read(root);
}

Graph parse_graph(std::string_view json_text, const std::filesystem::path& base_dir) {
  ConstantFiles files;
  files.base_dir = base_dir;
  return parse_graph(json_text, files);
}

std::string graph_name_problem(std::string_view name) { return detail::graph_name_problem(name); }

Graph load_graph(const std::filesystem::path& file, std::vector<std::filesystem::path>* files_read,
                 bool allow_outside_files) {
  std::error_code ec;
  if (std::filesystem::is_directory(file, ec))
    throw UserError("cannot read graph file '" + detail::printable(file.string()) +
                    "': it is a directory");
  std::ifstream in(file, std::ios::binary);
  if (!in) throw UserError("cannot open graph file '" + detail::printable(file.string()) + "'");
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw UserError("cannot read graph file '" + detail::printable(file.string()) + "'");
  ConstantFiles files;
  files.base_dir = file.parent_path();
  if (files.base_dir.empty()) files.base_dir = ".";
  files.read = files_read;
  files.allow_outside = allow_outside_files;
  return parse_graph(text.str(), files);
}

}  // namespace stax::graph
