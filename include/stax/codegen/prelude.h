// The runtime that every generated file starts with, embedded at build time from
// lib/codegen/runtime/: the prelude (stax_prelude.h: scalar helpers, the C API types, the
// wrapper's pieces), then the vector layer (stax_vec_base.h; one file per instruction set of the
// ISA table, isa/<set>.h; stax_vec.h, what is written once over all sets). Each file is a list
// of named sections (the rules are at the top of stax_prelude.h); a generated file carries only
// the sections its kernels use, plus the ones those require, in the order of the files.
#pragma once

#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace stax::codegen {

// The runtime files in section order: "stax_prelude.h", "stax_vec_base.h", each record's
// runtime file in table order, "stax_vec.h", then the GEMM's "stax_gemm_pack.h",
// "stax_gemm_kernel.h" and "stax_gemm.h", and the convolutions' "stax_conv.h".
std::vector<std::string> runtime_files();

// One runtime header, as it is in the repository (`path` relative to lib/codegen/runtime/). An
// unknown path is an internal error.
std::string_view runtime_source(std::string_view path);

// The section names of one runtime file, in file order.
std::vector<std::string> section_names(std::string_view path);

// The prelude's section names ("includes", "capi", "core", ...).
std::vector<std::string> prelude_section_names();

// The text of `wanted` and of every section they require (transitively), in section order;
// "includes" is always part of it. An unknown name is an internal error.
std::string prelude_text(const std::set<std::string>& wanted);

// The same without "includes" and "capi", each section's include guard renamed to
// `guard_prefix` + its name in capitals: a copy of the runtime inside a namespace of its own,
// which leaves the guards of the global copy as they are (the --isa dispatch file compiles one
// copy per instruction set, each under its own target pragma, shared by the models of a
// translation unit).
std::string runtime_copy_text(const std::set<std::string>& wanted, const std::string& guard_prefix);

// The text of one section alone (no dependencies): the header writer uses "capi".
std::string prelude_section(std::string_view name);

}  // namespace stax::codegen
