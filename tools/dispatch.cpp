#include "dispatch.h"

#include "stax/support/error.h"

namespace stax::tools {

namespace {

const CLI::App* find_subcommand(const CLI::App& app, const std::string& word) {
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; }))
    if (sub->get_name() == word) return sub;
  return nullptr;
}

// The option name in a command-line word: "--output=a.cpp" -> "--output", "-oa.cpp" -> "-o".
std::string option_name(const std::string& word) {
  if (word.rfind("--", 0) == 0) return word.substr(0, word.find('='));
  return word.substr(0, 2);
}

bool is_option_word(const std::string& word) { return word.size() >= 2 && word[0] == '-'; }

// "--version", "-h", "--help-all=..." when `app` itself has that option.
bool has_option(const CLI::App& app, const std::string& word) {
  return is_option_word(word) && app.get_option_no_throw(option_name(word)) != nullptr;
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
  if (args.empty() || find_subcommand(app, args[0]) || has_option(app, args[0])) return args;
  const CLI::App* fallback = find_subcommand(app, default_command);
  if (is_option_word(args[0]) && !(fallback && has_option(*fallback, args[0])))
    throw UserError("unknown option '" + args[0] + "' (run 'staxc --help')");
  if (!fallback)
    throw UserError("unknown command '" + args[0] + "' (commands: " + command_list(app) + ")");
  args.insert(args.begin(), default_command);
  return args;
}

}  // namespace stax::tools
