#include "weights.h"

#include <algorithm>
#include <bit>
#include <cstdio>

#include "stax/codegen/literals.h"
#include "stax/support/tensor.h"

namespace stax::codegen {

namespace {

// The constant's bytes, little-endian whatever the host's order.
void append_little_endian(const Tensor& t, std::string& out) {
  const char* data = reinterpret_cast<const char*>(t.data());
  const std::size_t size = dtype_size(t.dtype());
  if constexpr (std::endian::native == std::endian::little) {
    out.append(data, t.nbytes());
  } else {
    for (std::size_t i = 0; i < t.nbytes(); i += size)
      for (std::size_t k = size; k-- > 0;) out.push_back(data[i + k]);
  }
}

std::string weights_namespace(const ModelLayout& m) { return "stax_" + m.model + "_weights"; }

// The assembler's name of a file constant: a dot in it, so no C or C++ symbol can take it.
std::string symbol(const ModelLayout& m, const ConstantArray& a) { return "stax_weights." + m.model + "." + a.name; }

std::string mib(std::size_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f MiB", static_cast<double>(bytes) / (1024.0 * 1024.0));
  return buf;
}

// The section directives, once per translation unit (several models may share one).
void emit_section_macros(CodeWriter& out) {
  out.raw("#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__");
  out.raw("#error \"the weights file holds little-endian bytes: big-endian targets are not supported\"");
  out.raw("#endif");
  out.raw("#ifndef STAX_WEIGHTS_SECTION");
  out.raw("#if defined(__APPLE__)");
  out.raw("#define STAX_WEIGHTS_SECTION \".pushsection __TEXT,__const\\n\"");
  out.raw("#elif defined(__ELF__)");
  out.raw("#define STAX_WEIGHTS_SECTION \".pushsection .rodata\\n\"");
  out.raw("#else");
  out.raw("#error \"the weights are assembled with .incbin into an ELF or Mach-O object: no other format is supported\"");
  out.raw("#endif");
  out.raw("#endif");
}

}  // namespace

WeightsPlan plan_weights(std::vector<ConstantArray> arrays, std::size_t threshold) {
  WeightsPlan w;
  w.arrays = std::move(arrays);
  w.in_file.assign(w.arrays.size(), false);
  w.offsets.assign(w.arrays.size(), 0);
  std::size_t size = 0;
  for (std::size_t i = 0; i < w.arrays.size(); ++i) {
    const Tensor& t = *w.arrays[i].data;
    if (t.nbytes() <= threshold) continue;
    w.in_file[i] = true;
    w.offsets[i] = (size + WeightsPlan::kAlignment - 1) / WeightsPlan::kAlignment * WeightsPlan::kAlignment;
    size = w.offsets[i] + t.nbytes();
  }
  // One allocation: growing by doubling would copy (and fault in) the weights again and again.
  w.bytes.reserve(size);
  for (std::size_t i = 0; i < w.arrays.size(); ++i) {
    if (!w.in_file[i]) continue;
    w.bytes.resize(w.offsets[i], '\0');
    append_little_endian(*w.arrays[i].data, w.bytes);
  }
  return w;
}

void emit_weights_block(const ModelLayout& m, const WeightsPlan& w, CodeWriter& out) {
  if (!w.any()) return;
  const auto count = std::count(w.in_file.begin(), w.in_file.end(), true);
  out.line("// ---- Weights of " + m.model + ": " + std::to_string(count) + " constant" + (count == 1 ? "" : "s") + ", " +
           std::to_string(w.bytes.size()) + " bytes (" + mib(w.bytes.size()) + ") in the file next to this one ----");
  out.line("// THIS_FILE.weights holds their raw little-endian bytes, each at a multiple of 64 bytes. The");
  out.line("// assembler copies them into read-only data (.incbin); the compiler never parses them. The file");
  out.line("// is named through __FILE__, the path the compiler opened this source by, so the two files");
  out.line("// must stay side by side; the program reads no file at run time.");
  emit_section_macros(out);
  out.line("__asm__(STAX_WEIGHTS_SECTION");
  for (std::size_t i = 0; i < w.arrays.size(); ++i) {
    if (!w.in_file[i]) continue;
    out.line("        \".p2align 6\\n\"");
    out.line("        \"" + symbol(m, w.arrays[i]) + ":\\n\"");
    out.line("        \".incbin \\\"\" __FILE__ \".weights\\\", " + std::to_string(w.offsets[i]) + ", " +
             std::to_string(w.arrays[i].data->nbytes()) + "\\n\"");
  }
  out.line("        \".popsection\\n\");");
  out.open_namespace(weights_namespace(m));
  for (std::size_t i = 0; i < w.arrays.size(); ++i) {
    if (!w.in_file[i]) continue;
    const Tensor& t = *w.arrays[i].data;
    out.line("// " + w.arrays[i].comment + ", offset " + std::to_string(w.offsets[i]));
    out.line("extern const " + cxx_type(t.dtype()) + " " + w.arrays[i].name + "[" + std::to_string(t.numel()) +
             "] __asm__(\"" + symbol(m, w.arrays[i]) + "\") __attribute__((visibility(\"hidden\")));");
  }
  out.close_namespace(weights_namespace(m));
  out.blank();
}

void emit_constants(const ModelLayout& m, const WeightsPlan& w, CodeWriter& out) {
  for (std::size_t i = 0; i < w.arrays.size(); ++i) {
    const ConstantArray& a = w.arrays[i];
    if (w.in_file[i]) {
      out.line("using ::" + weights_namespace(m) + "::" + a.name + ";  // in the weights file");
      continue;
    }
    out.line("// " + a.comment);
    out.line("alignas(64) const " + cxx_type(a.data->dtype()) + " " + a.name + "[" + std::to_string(a.data->numel()) +
             "] = {");
    out.line(array_elements(*a.data, 2 * out.indent() + 4));
    out.line("};");
  }
  if (!w.arrays.empty()) out.blank();
}

}  // namespace stax::codegen
