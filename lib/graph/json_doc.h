// A small JSON document tree for the front end, built from nlohmann_json's SAX events.
// Unlike nlohmann::json it keeps object members in document order, rejects duplicate keys,
// remembers whether a number was written as an integer, and limits nesting depth, so that
// every problem becomes a GraphError with a JSON path instead of an exception or a crash.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace stax::graph::detail {

struct Json {
  struct Member;  // a key and its value (defined below: Json is complete there)
  enum class Kind : unsigned char { Null, Bool, Int, Float, String, Array, Object };
  Kind kind = Kind::Null;
  bool b = false;
  int64_t i = 0;        // Int
  double f = 0.0;       // Float (finite: the parser rejects overflowing literals)
  // Float only: written as an integer (no '.' or exponent) too large for int64.
  bool integer_token = false;
  std::string text;     // String: the value; Int/Float: the literal as written
  std::vector<Json> items;                           // Array
  std::vector<Member> members;  // Object, in document order, keys unique

  bool is_null() const { return kind == Kind::Null; }
  bool is_bool() const { return kind == Kind::Bool; }
  bool is_int() const { return kind == Kind::Int; }
  bool is_number() const { return kind == Kind::Int || kind == Kind::Float; }
  bool is_string() const { return kind == Kind::String; }
  bool is_array() const { return kind == Kind::Array; }
  bool is_object() const { return kind == Kind::Object; }
  // Object member, or nullptr when absent (or not an object).
  const Json* find(std::string_view key) const;
};

// Not std::pair<std::string, Json>: a pair of a type still incomplete inside its own definition is
// undefined (libstdc++ rejects it under clang), a vector of a declared struct is not.
struct Json::Member {
  std::string first;
  Json second;
};

// User text made safe for a one-line message: control characters and DEL become \n, \r, \t
// or \xHH escapes, and anything past 300 bytes is cut with "...".
std::string printable(std::string_view text);

// "an object", "a string", ... for messages.
std::string_view json_kind_name(const Json& j);
// The literal as written (numbers), quoted string, or the kind name.
std::string json_brief(const Json& j);

// Maximum nesting of arrays and objects.
constexpr int kMaxJsonDepth = 200;

// Parses a complete JSON document. Throws GraphError: invalid JSON with line and column, a
// duplicate key with its JSON path, or nesting deeper than kMaxJsonDepth.
Json parse_json(std::string_view text);

}  // namespace stax::graph::detail
