// User errors (bad input: a diagnostic with a location) versus internal errors (a broken
// invariant: a bug in staxc). Never mix the two.
#pragma once

#include <stdexcept>
#include <string>

namespace stax {

// Something the user gave us is wrong. what() is one line, ready for the terminal.
class UserError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The graph breaks graph-format.md. `path` is the JSON path ("nodes[3].args[1]"), `node` the
// node's name when there is one. what() reads
//   "nodes[3].args[1] (node 'y', op 'add'): cannot broadcast shapes [3] and [4]".
class GraphError : public UserError {
 public:
  GraphError(std::string path, std::string node, std::string op, std::string message);
  const std::string& path() const { return path_; }
  const std::string& node() const { return node_; }
  const std::string& op() const { return op_; }
  const std::string& message() const { return message_; }

 private:
  std::string path_, node_, op_, message_;
};

// Run-time failure of a computation (the interpreter's or the generated code's), such as an
// integer division by zero.
class RuntimeFailure : public UserError {
 public:
  using UserError::UserError;
};

class InternalError : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

[[noreturn]] void internal_error(const char* file, int line, const std::string& message);
// STAX_ASSERT's failure: internal_error with "assertion `COND` failed: MESSAGE".
[[noreturn]] void assertion_failed(const char* file, int line, const char* cond, const std::string& message);

}  // namespace stax

// Assert an invariant of staxc itself; active in every build type.
#define STAX_ASSERT(cond, msg)                                                                     \
  do {                                                                                             \
    if (!(cond)) ::stax::assertion_failed(__FILE__, __LINE__, #cond, (msg));                      \
  } while (0)
