#include "stax/codegen/mangle.h"

#include <algorithm>
#include <iterator>

namespace stax::codegen {

namespace {

// C++20 and C keywords and alternative tokens, sorted.
constexpr std::string_view kKeywords[] = {
    "_Alignas", "_Alignof", "_Atomic", "_Bool", "_Complex", "_Generic", "_Imaginary",
    "_Noreturn", "_Static_assert", "_Thread_local", "alignas", "alignof", "and", "and_eq", "asm",
    "auto", "bitand", "bitor", "bool", "break", "case", "catch", "char", "char16_t", "char32_t",
    "char8_t", "class", "co_await", "co_return", "co_yield", "compl", "concept", "const",
    "const_cast", "consteval", "constexpr", "constinit", "continue", "decltype", "default",
    "delete", "do", "double", "dynamic_cast", "else", "enum", "explicit", "export", "extern",
    "false", "float", "for", "friend", "goto", "if", "inline", "int", "long", "mutable",
    "namespace", "new", "noexcept", "not", "not_eq", "nullptr", "operator", "or", "or_eq",
    "private", "protected", "public", "register", "reinterpret_cast", "requires", "restrict",
    "return", "short", "signed", "sizeof", "static", "static_assert", "static_cast", "struct",
    "switch", "template", "this", "thread_local", "throw", "true", "try", "typedef", "typeid",
    "typename", "union", "unsigned", "using", "virtual", "void", "volatile", "wchar_t", "while",
    "xor", "xor_eq"};

// Names the generated code or the headers it includes give a meaning to (namespaces, locals,
// lower-case macros of glibc and of GNU dialects), sorted.
constexpr std::string_view kLibraryNames[] = {
    "acc", "ahead", "assert", "err", "errno", "i386", "inputs", "linux", "main", "next", "offsetof", "outputs",
    "run", "stax_rt", "std", "stderr", "stdin", "stdout", "unix", "va_arg", "va_end", "va_start", "workspace", "ws"};

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_upper(char c) { return c >= 'A' && c <= 'Z'; }
bool is_ident_char(char c) {
  return is_digit(c) || is_upper(c) || (c >= 'a' && c <= 'z') || c == '_';
}

bool all_digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), is_digit);
}

// Locals of generated kernels: loop variables x<N>, r<N>, c<N> and temporaries t<N>.
bool is_local_shape(std::string_view id) {
  // Accumulators (acc3, vacc3), tiles (tile0), loop variables (x0, r1), blocks and their ends (b0, e0),
  // merged loops (c2), temporaries (t12) and the start of a streamed loop (s0).
  for (std::string_view prefix : {"acc", "vacc", "tile"})
    if (id.size() > prefix.size() && id.substr(0, prefix.size()) == prefix && all_digits(id.substr(prefix.size())))
      return true;
  return id.size() >= 2 && std::string_view("xrcbets").find(id[0]) != std::string_view::npos && all_digits(id.substr(1));
}

// ALL_CAPS names are the macros' namespace (EOF, NULL, INFINITY, M_PI, STAX_OK, ...).
bool is_macro_shape(std::string_view id) {
  return std::all_of(id.begin(), id.end(), [](char c) { return is_upper(c) || is_digit(c) || c == '_'; });
}

bool ends_with(std::string_view s, std::string_view tail) {
  return s.size() >= tail.size() && s.substr(s.size() - tail.size()) == tail;
}

}  // namespace

bool is_keyword(std::string_view id) {
  return std::binary_search(std::begin(kKeywords), std::end(kKeywords), id);
}

bool is_reserved_identifier(std::string_view id) {
  if (is_keyword(id)) return true;
  if (std::binary_search(std::begin(kLibraryNames), std::end(kLibraryNames), id)) return true;
  if (id.find("__") != std::string_view::npos) return true;
  if (!id.empty() && id[0] == '_') return true;
  // int64_t, size_t, ... and whatever else a header may call a type.
  if (ends_with(id, "_t")) return true;
  return is_local_shape(id) || is_macro_shape(id);
}

std::string mangle(std::string_view name) {
  std::string id;
  for (char c : name) {
    char out = is_ident_char(c) ? c : '_';
    if (out == '_' && !id.empty() && id.back() == '_') continue;
    id.push_back(out);
  }
  if (id.empty() || id == "_") return "v";
  if (is_digit(id[0])) id.insert(0, "v");
  if (id[0] == '_') id.insert(0, "v");
  if (is_macro_shape(id)) id.insert(0, "v_");
  if (is_reserved_identifier(id)) id.push_back('_');
  return id;
}

std::string NameTable::claim(std::string_view name) {
  const std::string base = mangle(name);
  std::string id = base;
  // A base that ends in '_' takes the number directly ("and_2"), never "__".
  const std::string sep = base.back() == '_' ? "" : "_";
  for (int k = 2; taken(id) || is_reserved_identifier(id); ++k) id = base + sep + std::to_string(k);
  taken_.insert(id);
  return id;
}

}  // namespace stax::codegen
