// libFuzzer harness of the front end and the whole compile pipeline, in process: any input either
// is refused with a stax::UserError (GraphError is one: invalid JSON, an invalid graph, an op code
// generation does not support), or parses, validates, expands and compiles to generated code,
// twice to the same bytes. Anything else (another exception, which escapes and aborts, a crash, a
// sanitizer report, a hang) is a finding. scripts/fuzz.sh runs it.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "stax/driver/compile.h"
#include "stax/graph/frontend.h"
#include "stax/support/error.h"

namespace {

// Constants are baked into the generated code as text: a graph carrying more than this is only
// validated (compiling a 1 GiB constant is correct but would make every run a timeout).
constexpr int64_t kMaxCompiledConstantBytes = int64_t{1} << 20;

bool small_enough_to_compile(const stax::graph::Graph& g) {
  int64_t bytes = 0;
  for (const stax::graph::Value& v : g.values)
    if (v.kind == stax::graph::ValueKind::Constant) bytes += static_cast<int64_t>(v.data.nbytes());
  return bytes <= kMaxCompiledConstantBytes;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  stax::graph::Graph g;
  try {
    // An empty folder: a constant's `file` never finds anything to read.
    g = stax::graph::parse_graph(text, "/nonexistent-stax-fuzz-folder");
  } catch (const stax::UserError&) {
    return 0;
  }
  (void)stax::graph::format_signature(stax::graph::expand_composites(g));
  if (!small_enough_to_compile(g)) return 0;
  try {
    stax::driver::CompileOptions opts;
    opts.isa = stax::IsaTarget::dispatch();  // every x86-64 instruction set's kernel plans
    stax::codegen::GeneratedCode a = stax::driver::compile_graph(g, opts).code;
    stax::codegen::GeneratedCode b = stax::driver::compile_graph(g, opts).code;
    if (a.source != b.source || a.header != b.header) std::abort();  // not deterministic
  } catch (const stax::UserError&) {
    // An op or form code generation does not support yet: refused with a clear error.
  }
  return 0;
}
