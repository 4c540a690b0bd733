// staxc: the command line. main registers the commands (one file each, tools/cmd_<name>.cpp),
// supplies the default command, parses, and turns errors into one stderr line and an exit status.
#include <spdlog/cfg/env.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "commands.h"
#include "dispatch.h"
#include "stax/support/error.h"

namespace {

using stax::tools::ExitCode;

struct CommandEntry {
  void (*add)(CLI::App&);
  const char* example;  // one line for the top-level help
};

// The commands, in the order --help lists them.
const CommandEntry kCommands[] = {
    {stax::tools::add_compile_command, "staxc samples/softmax.json -o softmax.cpp --header softmax.h"},
    {stax::tools::add_validate_command, "staxc validate samples/softmax.json"},
    {stax::tools::add_interpret_command, "staxc interpret samples/softmax.json --output-dir out/softmax"},
    {stax::tools::add_run_command, "staxc run samples/softmax.json --output-dir out/softmax"},
    {stax::tools::add_check_command, "staxc check samples/softmax.json --seed 3"},
    {stax::tools::add_bench_command, "staxc bench samples/bench/softmax.json --threads 1,2"},
    {stax::tools::add_import_command, "staxc import resnet18.onnx -o resnet18.json"},
};

// `staxc MODEL.json ...` is `staxc compile MODEL.json ...` (once that command is registered).
const char* const kDefaultCommand = "compile";

std::string top_level_footer(const CLI::App& app) {
  std::string s;
  bool has_default = false;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; }))
    has_default = has_default || sub->get_name() == kDefaultCommand;
  if (has_default) {
    s += std::string("The default command is '") + kDefaultCommand + "': 'staxc MODEL.json -o OUT.cpp ...' means\n'staxc " +
         kDefaultCommand + " MODEL.json -o OUT.cpp ...'. Every command that takes MODEL.json also takes an\n"
         "ONNX model, MODEL.onnx.\n\n";
  }
  s += "Examples:\n";
  for (const CommandEntry& c : kCommands) s += std::string("  ") + c.example + "\n";
  s += "\n"
       "Exit status: 0 success; 1 usage or I/O error (bad flags, missing or invalid .npy,\n"
       "unreadable file, a stale file found by compile --check); 2 invalid graph (or an invalid\n"
       "or unsupported ONNX model); 3 run-time failure (integer division by zero, an index out of\n"
       "range, generated code that fails to build or run, a check mismatch); 4 internal error of\n"
       "staxc. Errors are one line on stderr: 'staxc: error: ...'.\n"
       "\n"
       "Run 'staxc COMMAND --help' for the options of a command and more examples, or\n"
       "'staxc --help-all' for all of them. --log-level debug (or SPDLOG_LEVEL=debug) shows what\n"
       "each stage did.";
  return s;
}

void setup_logging() {
  auto logger = std::make_shared<spdlog::logger>("staxc", std::make_shared<spdlog::sinks::stderr_sink_mt>());
  logger->set_pattern("staxc: %l: %v");
  spdlog::set_default_logger(logger);
  spdlog::cfg::load_env_levels();
}

// --log-level LEVEL, an option of every command (it falls through to the top level).
void add_log_level_option(CLI::App& app) {
  app.add_option_function<std::string>(
         "--log-level", [](const std::string& level) { spdlog::set_level(spdlog::level::from_str(level)); },
         "Which logs reach stderr: 'debug' adds what each stage did; 'warn' keeps warnings and errors only "
         "(the --log topics print at 'info', the default)")
      ->type_name("LEVEL")
      ->check(CLI::IsMember({"trace", "debug", "info", "warn", "error", "critical", "off"}));
}

// Errors are one line, whatever the exception text holds.
std::string one_line(std::string s) {
  std::replace(s.begin(), s.end(), '\n', ' ');
  return s;
}

// The error line is printed whatever --log-level says.
int fail(ExitCode code, const std::string& message) {
  if (!spdlog::default_logger()->should_log(spdlog::level::err)) spdlog::set_level(spdlog::level::err);
  spdlog::error("{}", one_line(message));
  return code;
}

std::string help_hint(const CLI::App& app) {
  std::vector<CLI::App*> selected = app.get_subcommands();
  if (selected.empty()) return "run 'staxc --help'";
  return "run 'staxc " + selected.front()->get_name() + " --help'";
}

}  // namespace

int main(int argc, char** argv) {
  setup_logging();
  CLI::App app("staxc " STAX_VERSION
               ": an ahead-of-time compiler for tensor programs. It reads a graph (a JSON file in\n"
               "the stax graph format) and writes one standalone C++ file of CPU kernels.",
               "staxc");
  app.set_version_flag("--version", "staxc " STAX_VERSION);
  app.set_help_all_flag("--help-all", "Print the help of every command and exit");
  app.require_subcommand(1);
  app.fallthrough();  // --log-level after a command's name
  add_log_level_option(app);
  for (const CommandEntry& c : kCommands) c.add(app);
  app.footer(top_level_footer(app));

  std::vector<std::string> args(argv + 1, argv + argc);
  try {
    if (args.empty()) return fail(stax::tools::kExitUsage, "no command given (run 'staxc --help')");
    args = stax::tools::with_default_command(app, args, kDefaultCommand);
    std::reverse(args.begin(), args.end());  // CLI11 takes the words last first
    app.parse(args);
  } catch (const CLI::Success& e) {
    return app.exit(e);  // --help, --help-all, --version
  } catch (const CLI::ParseError& e) {
    return fail(stax::tools::kExitUsage, std::string(e.what()) + " (" + help_hint(app) + ")");
  } catch (const stax::RuntimeFailure& e) {
    return fail(stax::tools::kExitRuntime, e.what());
  } catch (const stax::GraphError& e) {
    return fail(stax::tools::kExitGraph, e.what());
  } catch (const stax::UserError& e) {
    return fail(stax::tools::kExitUsage, e.what());
  } catch (const stax::InternalError& e) {
    return fail(stax::tools::kExitInternal, e.what());
  } catch (const std::bad_alloc&) {
    return fail(stax::tools::kExitUsage, "out of memory (the model needs more memory than this process could allocate)");
  } catch (const std::exception& e) {
    return fail(stax::tools::kExitInternal, std::string("internal error: ") + e.what());
  }
  return stax::tools::kExitOk;
}
