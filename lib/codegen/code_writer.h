// Indented text for generated code: one statement a line, blocks opened and closed explicitly.
#pragma once

#include <string>
#include <string_view>

namespace stax::codegen {

class CodeWriter {
 public:
  explicit CodeWriter(int indent = 0) : indent_(indent) {}
  // One line at the current indentation ("" gives an empty line).
  void line(std::string_view text);
  // `head {` (a bare `{` for an empty head) and indent; close() writes `}` (plus `tail`, e.g. "  // namespace x").
  void open(std::string_view head);
  void close(std::string_view tail = "");
  // `} head {`: closes a block and opens the next one ("else", "else if (c)").
  void reopen(std::string_view head);
  // `namespace NAME {` without indenting its contents (the project's style); close_namespace
  // writes `}  // namespace NAME`. An empty name is the anonymous namespace.
  void open_namespace(std::string_view name);
  void close_namespace(std::string_view name);
  // Text written elsewhere, re-indented line by line to the current level.
  void append(std::string_view text);
  // A line at column 0 (preprocessor directives such as #pragma).
  void raw(std::string_view text);
  void blank() { line(""); }
  int indent() const { return indent_; }
  bool empty() const { return text_.empty(); }
  const std::string& str() const { return text_; }

 private:
  int indent_;
  std::string text_;
};

}  // namespace stax::codegen
