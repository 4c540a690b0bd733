#include "capi.h"

#include "stax/codegen/codegen.h"
#include "stax/codegen/literals.h"
#include "stax/codegen/prelude.h"

namespace stax::codegen {

namespace {

void emit_table(const std::vector<TensorInfo>& ts, const std::vector<std::string>& shape_names,
                const std::string& table, CodeWriter& out) {
  if (ts.empty()) return;
  for (std::size_t i = 0; i < ts.size(); ++i) {
    std::string dims;
    for (int64_t d : ts[i].shape) dims += (dims.empty() ? "" : ", ") + std::to_string(d);
    if (ts[i].shape.empty()) {
      out.line("const int64_t " + shape_names[i] + "[1] = {0};  // 0-d: no dimensions");
    } else {
      out.line("const int64_t " + shape_names[i] + "[" + std::to_string(ts[i].shape.size()) + "] = {" + dims + "};");
    }
  }
  out.open("const stax_rt::TensorSpec " + table + "[" + std::to_string(ts.size()) + "] =");
  for (std::size_t i = 0; i < ts.size(); ++i)
    out.line("{" + string_literal(ts[i].name) + ", " + capi_dtype_code(ts[i].dtype) + ", " +
             std::to_string(ts[i].shape.size()) + ", " + shape_names[i] + "},");
  out.close(";");
}

std::string table_ref(const ModelLayout& m, bool inputs) {
  const bool empty = inputs ? m.inputs.empty() : m.outputs.empty();
  if (empty) return "nullptr";
  return m.ns + "::" + (inputs ? m.input_specs : m.output_specs);
}

std::string signature_list(const std::vector<TensorInfo>& ts) {
  std::string s;
  for (std::size_t i = 0; i < ts.size(); ++i)
    s += "     " + std::to_string(i) + "  " + ts[i].name + ": " + std::string(dtype_name(ts[i].dtype)) +
         shape_str(ts[i].shape) + "\n";
  if (ts.empty()) s += "     (none)\n";
  return s;
}

// The declarations, shared by the header and (as definitions) the .cpp.
struct ApiFunction {
  std::string decl;  // return type, name and parameters
  std::string body;  // for the .cpp
};

std::vector<ApiFunction> api_functions(const ModelLayout& m) {
  const std::string& N = m.model;
  const std::string ns = m.ns + "::";
  const std::string ni = std::to_string(m.inputs.size()), no = std::to_string(m.outputs.size());
  const std::string in = table_ref(m, true), outt = table_ref(m, false);
  std::vector<ApiFunction> f;
  f.push_back({"int " + N + "_run(const void* const* inputs, void* const* outputs, void* workspace)",
               "return " + ns + m.run_fn + "(inputs, outputs, workspace);"});
  f.push_back({"int " + N + "_run_checked(int num_inputs, const void* const* inputs, "
                   "const stax_layout* input_layouts, int num_outputs, void* const* outputs, "
                   "const stax_layout* output_layouts, void* workspace, char* message, "
                   "size_t message_size)",
               "const int rc = stax_rt::check_call(" + in + ", " + ni + ", " + outt + ", " + no +
                   ", num_inputs, inputs, input_layouts, num_outputs, outputs, output_layouts, "
                   "workspace, message, message_size);\n"
                   "if (rc != STAX_OK) return rc;\n"
                   "return stax_rt::finish_call(" + ns + m.run_fn +
                   "(inputs, outputs, workspace), message, message_size);"});
  f.push_back({"size_t " + N + "_workspace_size(void)", "return " + ns + m.workspace_const + ";"});
  f.push_back({"const char* " + N + "_strerror(int code)", "return stax_rt::strerror(code);"});
  f.push_back({"int " + N + "_num_inputs(void)", "return " + ni + ";"});
  f.push_back({"int " + N + "_num_outputs(void)", "return " + no + ";"});
  f.push_back({"const char* " + N + "_isa(void)", m.isa_name_body});
  for (const bool inputs : {true, false}) {
    const std::string kind = inputs ? "input" : "output";
    const std::string table = inputs ? in : outt;
    const std::string count = inputs ? ni : no;
    f.push_back({"const char* " + N + "_" + kind + "_name(int i)",
                 "return stax_rt::spec_name(" + table + ", " + count + ", i);"});
    f.push_back({"int " + N + "_" + kind + "_dtype(int i)",
                 "return stax_rt::spec_dtype(" + table + ", " + count + ", i);"});
    f.push_back({"int " + N + "_" + kind + "_ndim(int i)",
                 "return stax_rt::spec_ndim(" + table + ", " + count + ", i);"});
    f.push_back({"const int64_t* " + N + "_" + kind + "_shape(int i)",
                 "return stax_rt::spec_shape(" + table + ", " + count + ", i);"});
  }
  return f;
}

}  // namespace

void emit_metadata(const ModelLayout& m, CodeWriter& out) {
  if (m.inputs.empty() && m.outputs.empty()) return;
  out.line("// The inputs and outputs as the C API describes them.");
  emit_table(m.inputs, m.input_shapes, m.input_specs, out);
  emit_table(m.outputs, m.output_shapes, m.output_specs, out);
  out.blank();
}

void emit_c_api(const ModelLayout& m, CodeWriter& out) {
  out.line("// ---- C API of " + m.model + " (declared by the header staxc writes with --header) ----");
  out.line("extern \"C\" {");
  out.blank();
  for (const ApiFunction& f : api_functions(m)) {
    out.open(f.decl);
    out.append(f.body);
    out.close();
    out.blank();
  }
  out.line("}  // extern \"C\"");
}

std::string header_text(const ModelLayout& m) {
  const std::string& N = m.model;
  const std::string guard = "STAX_GENERATED_" + N + "_H";
  std::string h;
  h += "/* Generated by staxc: the C API of the model '" + N + "' (C and C++). Do not edit. */\n";
  h += "#ifndef " + guard + "\n#define " + guard + "\n\n";
  h += "#include <stddef.h>\n#include <stdint.h>\n\n";
  h += prelude_section("capi");
  h += "\n/* The workspace NAME_run needs, for callers that reserve it statically. */\n";
  h += "#define " + N + "_WORKSPACE_SIZE ((size_t)" + std::to_string(m.workspace_size) + ")\n";
  h += "#define " + N + "_WORKSPACE_ALIGNMENT ((size_t)" + std::to_string(kWorkspaceAlignment) + ")\n";
  h += "#define " + N + "_NUM_INPUTS " + std::to_string(m.inputs.size()) + "\n";
  h += "#define " + N + "_NUM_OUTPUTS " + std::to_string(m.outputs.size()) + "\n\n";
  h += "/* Inputs, in call order (dense row-major):\n" + signature_list(m.inputs) + "   Outputs:\n" +
       signature_list(m.outputs) + "*/\n\n";
  h += "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n";
  const std::vector<ApiFunction> f = api_functions(m);
  const std::vector<std::string> docs = {
      "/* Runs the model. inputs[i] and outputs[o] are the caller's dense row-major buffers, in the\n"
      "   order and with the dtypes and shapes listed above; outputs must not overlap the inputs or\n"
      "   each other. workspace is NULL (the call allocates its scratch memory and frees it before\n"
      "   returning) or " + N + "_WORKSPACE_SIZE bytes aligned to " + N + "_WORKSPACE_ALIGNMENT, used\n"
      "   during the call only; repeated calls should pass one, since with NULL each call allocates\n"
      "   it anew (one of tens of MiB is mapped and has its pages faulted in by every call).\n"
      "   Returns STAX_OK, STAX_ERR_DIV_BY_ZERO (an integer division or remainder by zero),\n"
      "   STAX_ERR_INDEX_OUT_OF_RANGE (an index of embedding, index_select or gather outside its\n"
      "   dim; the outputs are then unspecified, but nothing outside the buffers is read) or\n"
      "   STAX_ERR_OUT_OF_MEMORY.\n"
      "   Reentrant: calls may run at the same time on different buffers. */",
      "/* " + N + "_run after checking every argument against what the code was compiled for, as\n"
      "   the chapter's assert_size_stride (§8.5): the counts, each tensor's dtype, shape and\n"
      "   strides (in elements; NULL strides mean dense row-major; the stride of a size-1\n"
      "   dimension is free), NULL pointers, overlapping outputs and the workspace alignment.\n"
      "   A mismatch returns STAX_ERR_INVALID_ARGUMENT without running and, when message is not\n"
      "   NULL, writes one line naming the tensor into message[0..message_size). */",
      "/* Bytes of workspace " + N + "_run needs (" + N + "_WORKSPACE_SIZE). */",
      "/* A static description of a return code. */",
      "/* Number of inputs and outputs. */",
      "",
      "/* The instruction set the kernels run with: \"avx512\", \"avx2\", \"scalar\", ... (a file made with\n"
      "   --isa dispatch chooses it once per process: the widest the CPU and OS support, or the one the\n"
      "   environment variable STAX_ISA names). */",
  };
  for (std::size_t i = 0; i < f.size(); ++i) {
    if (i < docs.size() && !docs[i].empty()) h += docs[i] + "\n";
    if (i == 7) h += "/* Metadata of input or output i: its graph name, dtype code (STAX_FLOAT32, ...), rank and\n"
                     "   sizes (NULL / -1 when i is out of range; a 0-d tensor has rank 0). */\n";
    h += f[i].decl + ";\n";
    if (i < 5 || i == 6 || i == f.size() - 1) h += "\n";
  }
  h += "#ifdef __cplusplus\n}  /* extern \"C\" */\n#endif\n\n#endif /* " + guard + " */\n";
  return h;
}

}  // namespace stax::codegen
