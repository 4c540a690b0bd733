// The runtime prelude that every generated file starts with (lib/codegen/runtime/stax_prelude.h,
// embedded at build time). It is a list of named sections; a generated file carries only the
// sections its kernels use, plus the ones those require. The vector layer
// (lib/codegen/runtime/stax_vec.h: Vec<T, Isa> over AVX-512, AVX2 and scalars) is a second
// header of the same form whose sections come after the prelude's: "vec" is the shared layer,
// "vec_avx512", "vec_avx2" and "vec_scalar" the instruction sets (each compiles to nothing when
// the compiler does not target it). A model that uses IsaNative asks for all four; a model
// pinned to one set may ask for "vec" and that set's section alone.
#pragma once

#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace stax::codegen {

// The whole prelude header, as it is in the repository.
std::string_view prelude_source();

// The vector layer's header, as it is in the repository.
std::string_view vec_source();

// Section names of stax_prelude.h in file order ("includes", "capi", "core", ...).
std::vector<std::string> prelude_section_names();

// Section names of stax_vec.h in file order ("vec_config", "vec_avx512", ...).
std::vector<std::string> vec_section_names();

// The text of `wanted` and of every section they require (transitively), in file order (the
// prelude's, then the vector layer's); "includes" is always part of it. An unknown name is an
// internal error.
std::string prelude_text(const std::set<std::string>& wanted);

// The text of one section alone (no dependencies): the header writer uses "capi".
std::string prelude_section(std::string_view name);

}  // namespace stax::codegen
