#include "stax/support/error.h"

namespace stax {

namespace {
std::string format_graph_error(const std::string& path, const std::string& node,
                               const std::string& op, const std::string& message) {
  std::string s = path.empty() ? std::string("graph") : path;
  if (!node.empty() || !op.empty()) {
    s += " (";
    if (!node.empty()) s += "node '" + node + "'";
    if (!node.empty() && !op.empty()) s += ", ";
    if (!op.empty()) s += "op '" + op + "'";
    s += ")";
  }
  return s + ": " + message;
}
}  // namespace

GraphError::GraphError(std::string path, std::string node, std::string op, std::string message)
    : UserError(format_graph_error(path, node, op, message)),
      path_(std::move(path)), node_(std::move(node)), op_(std::move(op)),
      message_(std::move(message)) {}

void internal_error(const char* file, int line, const std::string& message) {
  throw InternalError(std::string("internal error at ") + file + ":" + std::to_string(line) +
                      ": " + message);
}

void assertion_failed(const char* file, int line, const char* cond, const std::string& message) {
  internal_error(file, line, std::string("assertion `") + cond + "` failed: " + message);
}

}  // namespace stax
