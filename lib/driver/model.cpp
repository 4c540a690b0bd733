#include "stax/driver/model.h"

#include <unistd.h>

#include <system_error>

#include "stax/graph/frontend.h"
#include "stax/support/error.h"

namespace stax::driver {

graph::Graph load_model(const std::filesystem::path& file) {
  std::error_code ec;
  auto status = std::filesystem::status(file, ec);
  if (!std::filesystem::exists(status))
    throw UserError(file.string() + ": no such file");
  if (std::filesystem::is_directory(status))
    throw UserError(file.string() + ": is a directory, not a model file");
  if (::access(file.c_str(), R_OK) != 0)
    throw UserError(file.string() + ": cannot read (permission denied)");
  return graph::load_graph(file);
}

}  // namespace stax::driver
