#include "stax/driver/compile.h"

#include <iostream>

#include "stax/driver/model.h"
#include "stax/driver/process.h"
#include "stax/graph/frontend.h"
#include "stax/ir/printer.h"
#include "stax/lowering/lower.h"

namespace stax::driver {

CompiledModel compile_graph(graph::Graph g, const CompileOptions& opts) {
  CompiledModel m;
  // Lowering needs primitives only; the graph as given stays what the interpreter evaluates.
  const graph::Graph primitive = graph::expand_composites(g);
  m.program = lowering::lower(primitive);
  if (!opts.dump_ir.empty()) write_file_atomic(opts.dump_ir, ir::dump_ir(m.program));
  codegen::CodegenOptions cg;
  cg.name = opts.name;
  m.code = codegen::generate(primitive, m.program, cg);
  m.graph = std::move(g);
  return m;
}

CompiledModel compile_model(const std::filesystem::path& model, const CompileOptions& opts) {
  return compile_graph(load_model(model), opts);
}

void write_generated(const codegen::GeneratedCode& code, const std::filesystem::path& source,
                     const std::filesystem::path& header) {
  if (!header.empty()) write_file_atomic(header, code.header);
  if (source == "-") {
    std::cout << code.source;
    std::cout.flush();
    return;
  }
  write_file_atomic(source, code.source);
}

}  // namespace stax::driver
