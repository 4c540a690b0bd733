// A strict reader of the XML the pictures use (a prolog, elements, attributes in double
// quotes, text, the five predefined entities, comments): enough to tell that an SVG file is
// well formed without an XML library.
#pragma once

#include <string>

namespace stax::testing {

// "" when `xml` is well formed (one root element, every tag closed in order, attribute values
// quoted, no '<' or stray '&' in text), else what is wrong and at which byte.
std::string xml_problem(const std::string& xml);

}  // namespace stax::testing
