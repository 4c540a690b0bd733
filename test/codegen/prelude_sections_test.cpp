// The embedded prelude: identical to the header in the repository, split into sections that
// carry their requirements.
#include "stax/codegen/prelude.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "stax/support/error.h"

namespace stax::codegen {
namespace {

TEST(PreludeSections, EmbeddedTextIsTheRepositoryHeader) {
  std::ifstream in(std::string(STAX_SOURCE_DIR) + "/lib/codegen/runtime/stax_prelude.h",
                   std::ios::binary);
  ASSERT_TRUE(in.good());
  std::stringstream ss;
  ss << in.rdbuf();
  EXPECT_EQ(runtime_source("stax_prelude.h"), ss.str());
}

TEST(PreludeSections, NamesInFileOrder) {
  std::vector<std::string> expected = {"includes", "capi",   "core",     "intdiv",  "index", "math",
                                       "activation", "reduce", "dispatch", "wrapper"};
  EXPECT_EQ(prelude_section_names(), expected);
}

TEST(PreludeSections, RequirementsArePulledInTransitively) {
  std::string text = prelude_text({"activation"});
  EXPECT_NE(text.find("#include <sleef.h>"), std::string::npos);
  EXPECT_NE(text.find("#define STAX_RT_CORE"), std::string::npos);
  EXPECT_NE(text.find("#define STAX_RT_MATH"), std::string::npos);
  EXPECT_NE(text.find("#define STAX_RT_ACTIVATION"), std::string::npos);
  EXPECT_EQ(text.find("#define STAX_RT_INTDIV"), std::string::npos);
  EXPECT_EQ(text.find("@section"), std::string::npos);
  // File order, whatever the order of the request.
  EXPECT_LT(text.find("STAX_RT_CORE"), text.find("STAX_RT_MATH"));
}

TEST(PreludeSections, NoHeaderPreambleLeaksIntoASection) {
  // Every section together: no marker, and no file's leading comment or include.
  std::set<std::string> all;
  for (const std::string& name : prelude_section_names()) all.insert(name);
  const std::string text = prelude_text(all);
  EXPECT_EQ(text.find("@section"), std::string::npos);
  EXPECT_EQ(text.find("#include \"stax_"), std::string::npos);
  EXPECT_EQ(text.find("Layout rules, relied on by the code generator"), std::string::npos);
}

TEST(PreludeSections, IncludesAlwaysAndNothingElseByDefault) {
  std::string text = prelude_text({});
  EXPECT_NE(text.find("#include <cmath>"), std::string::npos);
  EXPECT_EQ(text.find("namespace stax_rt"), std::string::npos);
}

TEST(PreludeSections, CApiSectionIsPlainC) {
  std::string capi = prelude_section("capi");
  EXPECT_NE(capi.find("typedef struct stax_layout"), std::string::npos);
  EXPECT_EQ(capi.find("namespace"), std::string::npos);
  EXPECT_THROW(prelude_section("nope"), InternalError);
}

}  // namespace
}  // namespace stax::codegen
