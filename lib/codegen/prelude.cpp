#include "stax/codegen/prelude.h"

#include <cstddef>

#include "stax/support/isa.h"
#include "stax/support/error.h"

namespace stax::codegen {

namespace detail {
struct EmbeddedFile {
  std::string_view path;
  std::string_view text;
};
extern const EmbeddedFile kRuntimeFiles[];
extern const std::size_t kRuntimeFileCount;
}  // namespace detail

namespace {

constexpr std::string_view kSectionMarker = "// @section ";
constexpr std::string_view kEndMarker = "// @end-sections";

struct Section {
  std::string name;
  std::vector<std::string> requires_;
  std::string text;  // without the marker line
};

std::vector<std::string> split_words(std::string_view s) {
  std::vector<std::string> words;
  std::size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && s[i] == ' ') ++i;
    std::size_t j = i;
    while (j < s.size() && s[j] != ' ') ++j;
    if (j > i) words.emplace_back(s.substr(i, j - i));
    i = j;
  }
  return words;
}

// Parses the marker structure described at the top of stax_prelude.h (stax_vec.h follows the
// same rules), appending to `sections`.
void parse_sections(std::string_view src, std::vector<Section>& sections) {
  bool ended = false;
  // Text before this file's first marker (its comment, the include that lets it compile alone)
  // belongs to no section, even when `sections` already holds another file's.
  bool in_section = false;
  while (!src.empty() && !ended) {
    std::size_t eol = src.find('\n');
    std::string_view line = src.substr(0, eol == std::string_view::npos ? src.size() : eol);
    src.remove_prefix(eol == std::string_view::npos ? src.size() : eol + 1);
    if (line.substr(0, kEndMarker.size()) == kEndMarker) {
      ended = true;
    } else if (line.substr(0, kSectionMarker.size()) == kSectionMarker) {
      std::vector<std::string> words = split_words(line.substr(kSectionMarker.size()));
      STAX_ASSERT(!words.empty(), "prelude section marker without a name");
      Section s;
      s.name = words[0];
      STAX_ASSERT(words.size() == 1 || words[1] == "requires",
                  "bad prelude section marker: " + std::string(line));
      for (std::size_t k = 2; k < words.size(); ++k) s.requires_.push_back(words[k]);
      sections.push_back(std::move(s));
      in_section = true;
    } else if (in_section) {
      sections.back().text.append(line).push_back('\n');
    }
  }
  STAX_ASSERT(ended, "a runtime header lacks its // @end-sections line");
}

// Every runtime file's sections, in file order (later files require earlier ones' sections).
std::vector<Section> parse_all_sections() {
  std::vector<Section> all;
  for (const std::string& path : runtime_files()) parse_sections(runtime_source(path), all);
  return all;
}

const std::vector<Section>& sections() {
  static const std::vector<Section> all = parse_all_sections();
  return all;
}

std::vector<std::string> names_in(std::string_view src) {
  std::vector<Section> parsed;
  parse_sections(src, parsed);
  std::vector<std::string> names;
  for (const Section& s : parsed) names.push_back(s.name);
  return names;
}

const Section& find_section(std::string_view name) {
  for (const Section& s : sections())
    if (s.name == name) return s;
  internal_error(__FILE__, __LINE__, "unknown prelude section '" + std::string(name) + "'");
}

void add_with_requirements(const std::string& name, std::set<std::string>& out) {
  if (!out.insert(name).second) return;
  for (const std::string& dep : find_section(name).requires_) add_with_requirements(dep, out);
}

}  // namespace

std::vector<std::string> runtime_files() {
  std::vector<std::string> files = {"stax_prelude.h", "stax_vec_base.h"};
  for (const IsaRecord& r : isa_table()) files.emplace_back(r.runtime);
  files.emplace_back("stax_vec.h");
  for (const char* gemm : {"stax_gemm_pack.h", "stax_gemm_kernel.h", "stax_gemm.h", "stax_conv.h", "stax_conv_shift.h",
                           "stax_conv_wino.h"}) files.emplace_back(gemm);
  return files;
}

std::string_view runtime_source(std::string_view path) {
  for (std::size_t i = 0; i < detail::kRuntimeFileCount; ++i)
    if (detail::kRuntimeFiles[i].path == path) return detail::kRuntimeFiles[i].text;
  internal_error(__FILE__, __LINE__, "no runtime file '" + std::string(path) + "'");
}

std::vector<std::string> section_names(std::string_view path) { return names_in(runtime_source(path)); }

std::vector<std::string> prelude_section_names() { return section_names("stax_prelude.h"); }

namespace {

// `body` without its trailing blank lines.
std::string trimmed(std::string body) {
  while (body.size() >= 2 && body[body.size() - 1] == '\n' && body[body.size() - 2] == '\n') body.pop_back();
  return body;
}

// A section's text without its include guard: the lines `#ifndef G` and `#define G` it starts
// with and `#endif  // G` it ends with.
std::string unguarded(const Section& s) {
  const std::string body = trimmed(s.text);
  const std::size_t first = body.find('\n'), second = body.find('\n', first + 1);
  const std::string guard = body.substr(0, first).substr(std::string("#ifndef ").size());
  const std::string end = "#endif  // " + guard + "\n";
  STAX_ASSERT(body.rfind("#ifndef ", 0) == 0 && body.substr(first + 1, second - first - 1) == "#define " + guard &&
                  body.size() >= end.size() && body.compare(body.size() - end.size(), end.size(), end) == 0,
              "runtime section '" + s.name + "' is not one include guard");
  return body.substr(second + 1, body.size() - end.size() - second - 1);
}

std::set<std::string> closure_of(const std::set<std::string>& wanted) {
  std::set<std::string> closure;
  add_with_requirements("includes", closure);
  for (const std::string& name : wanted) add_with_requirements(name, closure);
  return closure;
}

}  // namespace

std::string prelude_text(const std::set<std::string>& wanted) {
  const std::set<std::string> closure = closure_of(wanted);
  std::string text;
  for (const Section& s : sections()) {
    if (closure.count(s.name) == 0) continue;
    // Trailing blank lines of a section are dropped; sections are separated by one.
    if (!text.empty()) text += '\n';
    text += trimmed(s.text);
  }
  return text;
}

std::string runtime_copy_text(const std::set<std::string>& wanted, const std::string& guard_prefix) {
  const std::set<std::string> closure = closure_of(wanted);
  std::string text;
  for (const Section& s : sections()) {
    if (closure.count(s.name) == 0 || s.name == "includes" || s.name == "capi") continue;
    std::string guard = guard_prefix;
    for (char c : s.name) guard.push_back(c >= 'a' && c <= 'z' ? static_cast<char>(c - 'a' + 'A') : c);
    if (!text.empty()) text += '\n';
    text += "#ifndef " + guard + "\n#define " + guard + "\n" + unguarded(s) + "#endif  // " + guard + "\n";
  }
  return text;
}

std::string prelude_section(std::string_view name) { return find_section(name).text; }

}  // namespace stax::codegen
