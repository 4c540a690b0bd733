// The runtime prelude that every generated file starts with (lib/codegen/runtime/stax_prelude.h,
// embedded at build time). It is a list of named sections; a generated file carries only the
// sections its kernels use, plus the ones those require.
#pragma once

#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace stax::codegen {

// The whole prelude header, as it is in the repository.
std::string_view prelude_source();

// Section names in file order ("includes", "capi", "core", ...).
std::vector<std::string> prelude_section_names();

// The text of `wanted` and of every section they require (transitively), in file order;
// "includes" is always part of it. An unknown name is an internal error.
std::string prelude_text(const std::set<std::string>& wanted);

// The text of one section alone (no dependencies): the header writer uses "capi".
std::string prelude_section(std::string_view name);

}  // namespace stax::codegen
