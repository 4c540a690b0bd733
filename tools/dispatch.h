// The default command: `staxc MODEL.json -o OUT.cpp` means `staxc compile MODEL.json -o OUT.cpp`.
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace stax::tools {

// The command-line words after the program name, with `default_command` put in front when the
// first word is neither a subcommand of `app` nor one of app's own options (--help, --version).
// Unchanged when there are no words. UserError ("unknown command", "unknown option") when the
// first word is an option that neither `app` nor the default command has, or when `app` has no
// subcommand `default_command` and the first word names no command.
std::vector<std::string> with_default_command(const CLI::App& app, std::vector<std::string> args,
                                              const std::string& default_command);

}  // namespace stax::tools
