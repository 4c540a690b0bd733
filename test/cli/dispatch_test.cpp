#include "dispatch.h"

#include <gtest/gtest.h>

#include <memory>

#include "stax/support/error.h"

namespace stax::tools {
namespace {

using Words = std::vector<std::string>;

std::unique_ptr<CLI::App> make_app(bool with_compile) {
  auto app = std::make_unique<CLI::App>("test", "staxc");
  app->set_version_flag("--version", "1");
  app->set_help_all_flag("--help-all");
  if (with_compile) {
    CLI::App* compile = app->add_subcommand("compile");
    compile->add_option("-o,--output");
    compile->add_option("--header");
  }
  app->add_subcommand("validate");
  app->add_subcommand("interpret");
  return app;
}

TEST(DefaultCommand, InsertedBeforeAModelOrACompileOption) {
  auto holder = make_app(true);
  const CLI::App& app = *holder;
  EXPECT_EQ(with_default_command(app, {"m.json", "-o", "k.cpp"}, "compile"),
            (Words{"compile", "m.json", "-o", "k.cpp"}));
  EXPECT_EQ(with_default_command(app, {"-o", "k.cpp", "m.json"}, "compile"),
            (Words{"compile", "-o", "k.cpp", "m.json"}));
  EXPECT_EQ(with_default_command(app, {"m.json", "--help"}, "compile"),
            (Words{"compile", "m.json", "--help"}));
  EXPECT_EQ(with_default_command(app, {"--output=k.cpp", "m.json"}, "compile"),
            (Words{"compile", "--output=k.cpp", "m.json"}));
  EXPECT_EQ(with_default_command(app, {"-ok.cpp", "m.json"}, "compile"), (Words{"compile", "-ok.cpp", "m.json"}));
  EXPECT_EQ(with_default_command(app, {"--header", "k.h", "m.json"}, "compile"),
            (Words{"compile", "--header", "k.h", "m.json"}));
  // A model file whose name is that of no command.
  EXPECT_EQ(with_default_command(app, {"validate.json"}, "compile"), (Words{"compile", "validate.json"}));
}

TEST(DefaultCommand, NotInsertedBeforeACommandOrATopLevelOption) {
  auto holder = make_app(true);
  const CLI::App& app = *holder;
  for (const Words& w : {Words{"validate", "m.json"}, Words{"interpret", "m.json", "--output-dir", "d"},
                         Words{"compile", "m.json"}, Words{"--help"}, Words{"-h"}, Words{"--version"},
                         Words{"--help-all"}, Words{}}) {
    EXPECT_EQ(with_default_command(app, w, "compile"), w);
  }
}

TEST(DefaultCommand, AnOptionOfNoCommandIsAnError) {
  auto holder = make_app(true);
  for (const char* word : {"--frobnicate", "-x", "--outputs=a"}) {
    try {
      with_default_command(*holder, {word, "m.json"}, "compile");
      FAIL() << word;
    } catch (const UserError& e) {
      EXPECT_EQ(std::string(e.what()), std::string("unknown option '") + word + "' (run 'staxc --help')");
    }
  }
}

TEST(DefaultCommand, WithoutACompileCommandAnUnknownWordIsAnError) {
  auto holder = make_app(false);
  const CLI::App& app = *holder;
  try {
    with_default_command(app, {"m.json", "-o", "k.cpp"}, "compile");
    FAIL() << "no error";
  } catch (const UserError& e) {
    EXPECT_STREQ(e.what(), "unknown command 'm.json' (commands: validate, interpret)");
  }
  try {
    with_default_command(app, {"-o", "k.cpp", "m.json"}, "compile");
    FAIL() << "no error";
  } catch (const UserError& e) {
    EXPECT_STREQ(e.what(), "unknown option '-o' (run 'staxc --help')");
  }
  EXPECT_EQ(with_default_command(app, {"validate", "m.json"}, "compile"), (Words{"validate", "m.json"}));
}

}  // namespace
}  // namespace stax::tools
