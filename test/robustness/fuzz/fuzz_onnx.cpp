// libFuzzer harness of the ONNX importer: any bytes either are refused with a stax::UserError
// (GraphError is one: an invalid or unsupported model, naming the ONNX node), or import into a
// graph document that the front end accepts, with its weights held in memory. Anything else
// (another exception, a crash, a sanitizer report, a hang) is a finding.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "stax/graph/frontend.h"
#include "stax/importer/onnx.h"
#include "stax/support/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  stax::importer::ImportOptions opts;
  opts.weights_file = "fuzz.weights";
  stax::importer::ImportedModel m;
  try {
    // An empty folder: external data never finds anything to read.
    m = stax::importer::import_onnx_bytes(bytes, "/nonexistent-stax-fuzz-folder", "fuzz", opts);
  } catch (const stax::UserError&) {
    return 0;
  }
  stax::graph::ConstantFiles files;
  files.base_dir = "/nonexistent-stax-fuzz-folder";
  files.memory.emplace(opts.weights_file, std::move(m.weights));
  try {
    (void)stax::graph::parse_graph(m.json, files);
  } catch (const stax::UserError&) {
    // A document the importer wrote but the front end refuses: the CLI reports it as an invalid
    // graph (exit status 2), as it does for an unsupported model.
  }
  return 0;
}
