// libFuzzer entry point for the front end: any input either parses or throws stax::UserError.
// Anything else (another exception, a crash, a sanitizer report) is a finding. Built only with
// -DSTAX_FUZZ=ON and clang; see test/randgraph/README.md.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "stax/graph/frontend.h"
#include "stax/support/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    stax::graph::Graph g = stax::graph::parse_graph(text);
    stax::graph::Graph e = stax::graph::expand_composites(g);
    (void)stax::graph::format_signature(e);
  } catch (const stax::UserError&) {
  }
  return 0;
}
