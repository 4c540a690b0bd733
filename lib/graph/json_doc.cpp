#include "json_doc.h"

#include <algorithm>
#include <limits>
#include <set>

#include <nlohmann/json.hpp>

#include "stax/support/error.h"

namespace stax::graph::detail {

const Json* Json::find(std::string_view key) const {
  if (kind != Kind::Object) return nullptr;
  for (const auto& [k, v] : members)
    if (k == key) return &v;
  return nullptr;
}

std::string printable(std::string_view text) {
  constexpr std::size_t kMax = 300;
  std::string out;
  for (std::size_t k = 0; k < text.size(); ++k) {
    if (k == kMax) return out + "...";
    auto c = static_cast<unsigned char>(text[k]);
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c < 0x20 || c == 0x7f) {
      const char* hex = "0123456789abcdef";
      out += "\\x";
      out += hex[c >> 4];
      out += hex[c & 15];
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

std::string_view json_kind_name(const Json& j) {
  switch (j.kind) {
    case Json::Kind::Null: return "null";
    case Json::Kind::Bool: return "a boolean";
    case Json::Kind::Int: return "an integer";
    case Json::Kind::Float: return "a number";
    case Json::Kind::String: return "a string";
    case Json::Kind::Array: return "a list";
    case Json::Kind::Object: return "an object";
  }
  return "?";
}

std::string json_brief(const Json& j) {
  switch (j.kind) {
    case Json::Kind::Null: return "null";
    case Json::Kind::Bool: return j.b ? "true" : "false";
    case Json::Kind::Int:
    case Json::Kind::Float: return j.text;
    case Json::Kind::String: return "\"" + printable(j.text) + "\"";
    case Json::Kind::Array: return "a list";
    case Json::Kind::Object: return "an object";
  }
  return "?";
}

namespace {

// Builds the tree from SAX events; stops at the first problem and remembers it.
class TreeBuilder final : public nlohmann::json_sax<nlohmann::json> {
 public:
  explicit TreeBuilder(std::string_view text) : text_(text) {}

  bool null() override { return add(Json{}) != nullptr; }
  bool boolean(bool v) override {
    Json j;
    j.kind = Json::Kind::Bool;
    j.b = v;
    return add(std::move(j)) != nullptr;
  }
  bool number_integer(number_integer_t v) override {
    Json j;
    j.kind = Json::Kind::Int;
    j.i = v;
    j.text = std::to_string(v);
    return add(std::move(j)) != nullptr;
  }
  bool number_unsigned(number_unsigned_t v) override {
    Json j;
    j.text = std::to_string(v);
    if (v <= static_cast<number_unsigned_t>(std::numeric_limits<int64_t>::max())) {
      j.kind = Json::Kind::Int;
      j.i = static_cast<int64_t>(v);
    } else {
      j.kind = Json::Kind::Float;
      j.f = static_cast<double>(v);
      j.integer_token = true;
    }
    return add(std::move(j)) != nullptr;
  }
  bool number_float(number_float_t v, const string_t& literal) override {
    Json j;
    j.kind = Json::Kind::Float;
    j.f = v;
    j.text = literal;
    j.integer_token = literal.find_first_of(".eE") == std::string::npos;
    return add(std::move(j)) != nullptr;
  }
  bool string(string_t& v) override {
    Json j;
    j.kind = Json::Kind::String;
    j.text = std::move(v);
    return add(std::move(j)) != nullptr;
  }
  bool binary(binary_t&) override { return fail(path(), "binary values are not JSON"); }
  bool start_object(std::size_t) override { return open(Json::Kind::Object); }
  bool end_object() override { return close(); }
  bool start_array(std::size_t) override { return open(Json::Kind::Array); }
  bool end_array() override { return close(); }

  bool key(string_t& k) override {
    Frame& top = stack_.back();
    if (!top.keys.insert(k).second)
      return fail(join(container_path(stack_.size()), printable(k)),
                  "duplicate key '" + printable(k) + "'");
    top.pending_key = std::move(k);
    return true;
  }

  bool parse_error(std::size_t position, const std::string&,
                   const nlohmann::detail::exception& ex) override {
    auto [line, column] = line_column(position);
    return fail("", "invalid JSON at line " + std::to_string(line) + ", column " +
                        std::to_string(column) + ": " + printable(describe(ex.what())));
  }

  bool failed() const { return failed_; }
  const std::string& error_path() const { return error_path_; }
  const std::string& error_message() const { return error_message_; }
  Json take() { return std::move(root_); }

 private:
  struct Frame {
    Json* node;
    std::set<std::string> keys;
    std::string pending_key;
  };

  static std::string join(const std::string& base, const std::string& key) {
    return base.empty() ? key : base + "." + key;
  }

  // JSON path of the container at stack_[depth - 1] (depth 0: the root itself). Every frame
  // below it has its open child as its last item or under its pending key.
  std::string container_path(std::size_t depth) const {
    std::string p;
    for (std::size_t k = 0; k + 1 < depth; ++k) {
      const Frame& f = stack_[k];
      if (f.node->kind == Json::Kind::Array)
        p += "[" + std::to_string(f.node->items.size() - 1) + "]";
      else
        p = join(p, printable(f.pending_key));
    }
    return p;
  }

  // JSON path of the value about to be added.
  std::string path() const {
    if (stack_.empty()) return "";
    std::string p = container_path(stack_.size());
    const Frame& top = stack_.back();
    if (top.node->kind == Json::Kind::Array)
      return p + "[" + std::to_string(top.node->items.size()) + "]";
    return join(p, printable(top.pending_key));
  }

  Json* add(Json j) {
    if (stack_.empty()) {
      root_ = std::move(j);
      return &root_;
    }
    Frame& top = stack_.back();
    if (top.node->kind == Json::Kind::Array) {
      top.node->items.push_back(std::move(j));
      return &top.node->items.back();
    }
    top.node->members.push_back(Json::Member{top.pending_key, std::move(j)});
    return &top.node->members.back().second;
  }

  bool open(Json::Kind kind) {
    if (stack_.size() >= static_cast<std::size_t>(kMaxJsonDepth))
      return fail(path(), "JSON nested deeper than " + std::to_string(kMaxJsonDepth) + " levels");
    Json j;
    j.kind = kind;
    Json* node = add(std::move(j));
    stack_.push_back(Frame{node, {}, {}});
    return true;
  }

  bool close() {
    stack_.pop_back();
    return true;
  }

  bool fail(std::string p, std::string message) {
    if (!failed_) {
      failed_ = true;
      error_path_ = std::move(p);
      error_message_ = std::move(message);
    }
    return false;
  }

  // nlohmann reports the number of characters read; the offending one is the last of them.
  std::pair<std::size_t, std::size_t> line_column(std::size_t position) const {
    std::size_t end = std::min(position, text_.size());
    std::size_t line = 1, line_start = 0;
    for (std::size_t k = 0; k < end; ++k) {
      if (text_[k] == '\n') {
        ++line;
        line_start = k + 1;
      }
    }
    std::size_t column = position > line_start ? position - line_start : 1;
    if (column == 0) column = 1;
    return {line, column};
  }

  // "[json.exception.parse_error.101] parse error at line 1, column 2: syntax error ..." ->
  // "syntax error ...".
  static std::string describe(std::string_view what) {
    std::size_t col = what.find("column ");
    if (col != std::string_view::npos) {
      std::size_t colon = what.find(": ", col);
      if (colon != std::string_view::npos) return std::string(what.substr(colon + 2));
    }
    if (!what.empty() && what.front() == '[') {
      std::size_t close = what.find("] ");
      if (close != std::string_view::npos) return std::string(what.substr(close + 2));
    }
    return std::string(what);
  }

  std::string_view text_;
  Json root_;
  std::vector<Frame> stack_;
  bool failed_ = false;
  std::string error_path_, error_message_;
};

}  // namespace

Json parse_json(std::string_view text) {
  TreeBuilder builder(text);
  bool ok = false;
  try {
    ok = nlohmann::json::sax_parse(text.begin(), text.end(), &builder);
  } catch (const nlohmann::json::exception& e) {
    throw GraphError("", "", "", "invalid JSON: " + printable(e.what()));
  }
  if (builder.failed()) throw GraphError(builder.error_path(), "", "", builder.error_message());
  if (!ok) throw GraphError("", "", "", "invalid JSON");
  return builder.take();
}

}  // namespace stax::graph::detail
