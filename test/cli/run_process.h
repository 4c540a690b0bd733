// Runs a program and captures its exit status, stdout and stderr (for the CLI tests).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace stax::testing {

struct ProcessResult {
  int status = -1;  // exit status; 128 + signal number when killed by a signal
  std::string out, err;
};

// Runs `program` with `args` (no shell), with `scratch` as a folder for the captured streams.
ProcessResult run_process(const std::filesystem::path& program, const std::vector<std::string>& args,
                          const std::filesystem::path& scratch);

}  // namespace stax::testing
