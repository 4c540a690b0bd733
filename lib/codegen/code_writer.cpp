#include "code_writer.h"

#include "stax/support/error.h"

namespace stax::codegen {

void CodeWriter::line(std::string_view text) {
  if (!text.empty()) text_.append(static_cast<std::size_t>(indent_) * 2, ' ');
  text_.append(text);
  text_.push_back('\n');
}

void CodeWriter::open(std::string_view head) {
  line(head.empty() ? std::string("{") : std::string(head) + " {");
  ++indent_;
}

void CodeWriter::close(std::string_view tail) {
  STAX_ASSERT(indent_ > 0, "CodeWriter::close without open");
  --indent_;
  line(std::string("}") + std::string(tail));
}

void CodeWriter::reopen(std::string_view head) {
  STAX_ASSERT(indent_ > 0, "CodeWriter::reopen without open");
  --indent_;
  line("} " + std::string(head) + " {");
  ++indent_;
}

void CodeWriter::open_namespace(std::string_view name) {
  line(name.empty() ? std::string("namespace {") : "namespace " + std::string(name) + " {");
}

void CodeWriter::close_namespace(std::string_view name) {
  line(name.empty() ? std::string("}  // namespace") : "}  // namespace " + std::string(name));
}

void CodeWriter::append(std::string_view text) {
  while (!text.empty()) {
    std::size_t eol = text.find('\n');
    std::string_view l = text.substr(0, eol);
    if (!l.empty() && l[0] == '#') raw(l);
    else line(l);
    if (eol == std::string_view::npos) break;
    text.remove_prefix(eol + 1);
  }
}

void CodeWriter::raw(std::string_view text) {
  text_.append(text);
  text_.push_back('\n');
}

}  // namespace stax::codegen
