#include "dispatch.h"

#include "stax/support/error.h"

namespace stax::tools {

namespace {

bool is_subcommand(const CLI::App& app, const std::string& word) {
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; }))
    if (sub->get_name() == word) return true;
  return false;
}

// "--version", "-h", "--help-all=..." when app itself has that option.
bool is_own_option(const CLI::App& app, const std::string& word) {
  if (word.size() < 2 || word[0] != '-') return false;
  std::string name = word.substr(0, word.find('='));
  return app.get_option_no_throw(name) != nullptr;
}

std::string command_list(const CLI::App& app) {
  std::string s;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
    if (!s.empty()) s += ", ";
    s += sub->get_name();
  }
  return s;
}

}  // namespace

std::vector<std::string> with_default_command(const CLI::App& app, std::vector<std::string> args,
                                              const std::string& default_command) {
  if (args.empty() || is_subcommand(app, args[0]) || is_own_option(app, args[0])) return args;
  if (!is_subcommand(app, default_command)) {
    if (args[0][0] == '-') return args;  // the parser reports the unknown option
    throw UserError("unknown command '" + args[0] + "' (commands: " + command_list(app) + ")");
  }
  args.insert(args.begin(), default_command);
  return args;
}

}  // namespace stax::tools
