#include "stax/codegen/prelude.h"

#include <map>

#include "stax/support/error.h"

namespace stax::codegen {

namespace detail {
extern const std::string_view kPreludeSource;
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

// Parses the marker structure described at the top of stax_prelude.h.
std::vector<Section> parse_sections() {
  std::vector<Section> sections;
  std::string_view src = prelude_source();
  bool ended = false;
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
    } else if (!sections.empty()) {
      sections.back().text.append(line).push_back('\n');
    }
  }
  STAX_ASSERT(ended, "the prelude lacks its // @end-sections line");
  return sections;
}

const std::vector<Section>& sections() {
  static const std::vector<Section> all = parse_sections();
  return all;
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

std::string_view prelude_source() { return detail::kPreludeSource; }

std::vector<std::string> prelude_section_names() {
  std::vector<std::string> names;
  for (const Section& s : sections()) names.push_back(s.name);
  return names;
}

std::string prelude_text(const std::set<std::string>& wanted) {
  std::set<std::string> closure;
  add_with_requirements("includes", closure);
  for (const std::string& name : wanted) add_with_requirements(name, closure);
  std::string text;
  for (const Section& s : sections()) {
    if (closure.count(s.name) == 0) continue;
    // Trailing blank lines of a section are dropped; sections are separated by one.
    std::string body = s.text;
    while (body.size() >= 2 && body[body.size() - 1] == '\n' && body[body.size() - 2] == '\n')
      body.pop_back();
    if (!text.empty()) text += '\n';
    text += body;
  }
  return text;
}

std::string prelude_section(std::string_view name) { return find_section(name).text; }

}  // namespace stax::codegen
