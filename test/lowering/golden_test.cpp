// Golden --dump-ir text of every sample graph (test/lowering/golden/<sample>.ir). The files are
// generated, never edited by hand: after a deliberate change to lowering or to the printer,
// refresh them with
//   STAX_UPDATE_GOLDEN=1 ./build/test/lowering/lowering_golden_test
// and review the diff (git diff test/lowering/golden) before committing.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "stax/graph/frontend.h"
#include "stax/ir/printer.h"
#include "stax/lowering/lower.h"

namespace stax::lowering {
namespace {

namespace fs = std::filesystem;

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(LoweringGolden, Samples) {
  const fs::path samples = fs::path(STAX_SOURCE_DIR) / "samples";
  const fs::path golden = fs::path(STAX_SOURCE_DIR) / "test" / "lowering" / "golden";
  const bool update = std::getenv("STAX_UPDATE_GOLDEN") != nullptr;
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(samples))
    if (e.path().extension() == ".json") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  ASSERT_FALSE(files.empty());
  int compared = 0;
  for (const fs::path& f : files) {
    const std::string dump = ir::dump_ir(lower(graph::expand_composites(graph::load_graph(f))));
    const fs::path g = golden / (f.stem().string() + ".ir");
    if (update) {
      fs::create_directories(golden);
      std::ofstream(g, std::ios::binary) << dump;
      continue;
    }
    if (!fs::exists(g)) {  // a new sample: reported, and recorded by the next refresh
      std::cout << "note: no golden dump for " << f.filename() << "; run with STAX_UPDATE_GOLDEN=1\n";
      continue;
    }
    EXPECT_EQ(dump, read_text(g)) << "dump of " << f.filename() << " changed";
    ++compared;
  }
  if (!update) {
    EXPECT_GE(compared, 5);  // the five samples of the foundation at least
  }
}

}  // namespace
}  // namespace stax::lowering
