// Deterministic mutations of graph documents for robustness tests of the front end: each takes a
// valid document and breaks it in one way (a key deleted or duplicated, a value of another JSON
// type, an extreme number, truncated text, random bytes, deep nesting, a very long string,
// invalid UTF-8, a shape whose element count overflows int64, "nan" where an int belongs, a name
// that refers to nothing, ...). Most results are invalid graphs; some stay valid.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace stax::robustness {

struct Mutation {
  std::string what;  // one line: the kind of mutation and where
  std::string text;  // the mutated document (may be any bytes)
};

class Mutator {
 public:
  explicit Mutator(uint64_t seed);
  // One random mutation of `doc` (a valid JSON document).
  Mutation mutate(const std::string& doc);
  // Number of mutation kinds; mutate_kind(k, doc) applies kind k (k < kinds()).
  static int kinds();
  Mutation mutate_kind(int kind, const std::string& doc);

 private:
  uint64_t next();
  int64_t range(int64_t lo, int64_t hi);
  uint64_t s_;
};

// Hand-made hostile documents (not derived from a sample): empty text, a bare number, 100000
// nested arrays, a node chain nested 100000 deep, huge constants, ...
std::vector<Mutation> hostile_documents();

}  // namespace stax::robustness
