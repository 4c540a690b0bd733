// Value names of a graph ("x.1", "conv-out", "and", "s#2") as readable C++ identifiers.
// Deterministic: the same names requested in the same order always give the same identifiers.
#pragma once

#include <set>
#include <string>
#include <string_view>

namespace stax::codegen {

// The identifier a name would like to be: every character outside [A-Za-z0-9_] becomes '_', runs
// of '_' collapse to one (a double underscore is reserved in C++), a leading digit or '_' gets a
// "v" in front, an ALL_CAPS name (the macros' namespace) gets "v_", and a C or C++ keyword or a name the generated code or the standard headers use
// (int64_t, std, linux, EOF, ...) gets a trailing '_'. Not unique: see NameTable.
//   "x.1" -> "x_1", "conv-out" -> "conv_out", "and" -> "and_", "1x" -> "v1x", "s#2" -> "s_2",
//   "EOF" -> "v_EOF", "x0" -> "x0_"
std::string mangle(std::string_view name);

// C and C++ keywords (and alternative tokens such as `and`).
bool is_keyword(std::string_view id);

// True for identifiers generated code must not give a value: keywords, names of the standard
// library, types and macros it relies on, and the shapes of its own locals (x0, r3, t12, c1).
bool is_reserved_identifier(std::string_view id);

// Hands out unique identifiers in request order: mangle(name), then "_2", "_3", ... appended
// until it is neither taken nor reserved.
class NameTable {
 public:
  std::string claim(std::string_view name);
  bool taken(std::string_view id) const { return taken_.count(std::string(id)) != 0; }

 private:
  std::set<std::string, std::less<>> taken_;
};

}  // namespace stax::codegen
