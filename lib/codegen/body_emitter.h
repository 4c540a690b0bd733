// C++ for the body of a buffer (a value-expression DAG, stax/ir/expr.h), inside a kernel's
// loops. Every distinct node is computed once: a node used once is written inline into its user,
// a node used more than once (or whose text grows long) becomes a `const T tN = ...;` temporary.
// Masked nodes evaluate their body only where the mask holds (an if-block, or `?:` when the body
// needs no statement), Where evaluates both branches, and integer divisions report a zero divisor
// (and indexed loads a position out of range) through the kernel's `err` variable.
#pragma once

#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "code_writer.h"
#include "stax/ir/expr.h"

namespace stax::codegen {

class BodyEmitter {
 public:
  // `buffer_name`: the C++ identifier of a buffer's pointer. `index_text`: the C++ text of an
  // index of the body, after the kernel's loop rewriting. `sections`: prelude sections used are
  // added to it. `temp_counter`: shared by every emitter of one kernel, so temporaries are unique.
  BodyEmitter(std::function<std::string(ir::BufferId)> buffer_name,
              std::function<std::string(const ir::Index&)> index_text,
              std::set<std::string>& sections, int& temp_counter);

  // Writes the statements that compute `root` to `out` and returns the C++ expression of its
  // value (a temporary, a literal or an inline expression of the dtype's type).
  std::string emit(const ir::Expr& root, CodeWriter& out);

  // Loads that read a value kept in a local variable instead of memory (a fused kernel's
  // intermediate used at the element it was computed for): `local(buffer, index)` returns the
  // variable's name, or "" for a load from memory.
  void set_local_loads(std::function<std::string(ir::BufferId, const ir::Index&)> local) {
    local_load_ = std::move(local);
  }

  // True once a checked (integer) division or indexed load has been emitted: the kernel needs
  // `int err`.
  bool fallible() const { return fallible_; }

  // True if the expression may set the error flag: an integer division that checks its divisor
  // or an indexed load that checks its position (ir::may_fail).
  static bool has_checked_division(const ir::Expr& root);

 private:
  // `root`: the value is stored or assigned as a whole, so a long text needs no temporary.
  std::string text_of(const ir::Expr& e, CodeWriter& out, bool root = false);
  std::string temp_of(const ir::Expr& e, CodeWriter& out);  // forces a temporary
  std::string op_text(const ir::Expr& e, const std::vector<std::string>& args);
  std::string masked_text(const ir::Expr& e, CodeWriter& out, bool root);
  std::string new_temp();
  const std::string* lookup(const ir::ExprNode* n) const;

  std::function<std::string(ir::BufferId)> buffer_name_;
  std::function<std::string(const ir::Index&)> index_text_;
  std::function<std::string(ir::BufferId, const ir::Index&)> local_load_;
  std::set<std::string>& sections_;
  int& temp_counter_;
  bool fallible_ = false;
  std::map<const ir::ExprNode*, int> uses_;
  // Temporaries visible at the current point: one frame per open if-block of a Masked body.
  std::vector<std::map<const ir::ExprNode*, std::string>> scopes_;
};

// C++ text of an index expression with int64 arithmetic ("128 * x0 + r0", "(x0 / 4) % 8").
// Division and modulo are C's, which equal floor semantics on the non-negative numerators
// lowering produces (stax/ir/index.h).
std::string index_cxx(const ir::Index& e);

// `text` without the parentheses around the whole of it, if it has them ("(a + b)" -> "a + b",
// "(a) + (b)" unchanged): for a text that is a whole argument, initializer or condition.
std::string bare(const std::string& text);

}  // namespace stax::codegen
