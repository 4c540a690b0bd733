// Instruction sets as records (isa.def) and what --isa asks for: one set, the widest the compiler
// of the generated file targets (`native`), or every set of x86-64 chosen at run time
// (`dispatch`). design.md, "CPU code".
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace stax {

enum class Isa : unsigned char {
#define STAX_ISA(Id, ...) Id,
#include "stax/support/isa.def"
#undef STAX_ISA
};

// One CPUID bit: leaf (subleaf 0), register ('a', 'b', 'c' or 'd' for EAX..EDX) and bit.
struct CpuidBit {
  unsigned leaf = 0;
  char reg = 'a';
  unsigned bit = 0;
};

struct IsaRecord {
  Isa id;
  std::string_view name;
  std::string_view arch;
  int lanes;
  int vector_bits;
  std::string_view tag;
  std::string_view runtime;
  std::string_view flags;
  std::string_view target;
  std::string_view cpu;
  std::uint64_t xcr0;

  std::string tag_type() const;           // "stax_rt::IsaAvx2"
  std::string section() const;            // the runtime section: "vec_avx2"
  std::string pin_macro() const;          // "STAX_ISA_AVX2"
  std::vector<CpuidBit> cpuid_bits() const;
};

// Every record, narrowest first.
std::span<const IsaRecord> isa_table();
const IsaRecord& isa_record(Isa isa);
// The record named `name`, or nullptr.
const IsaRecord* find_isa(std::string_view name);

// What --isa asks for.
//   Native    one kernel text over stax_rt::IsaNative: the widest set the compiler of the
//             generated file targets (-march=native takes the machine's);
//   Fixed     one set, named in the text (the file then needs a compiler targeting it);
//   Dispatch  every x86-64 set of the table, each kernel written once per set under a function
//             target pragma, the set chosen once per process by CPUID and XGETBV: one file for
//             any x86-64 machine, built without -m flags.
struct IsaTarget {
  enum class Kind : unsigned char { Native, Fixed, Dispatch };
  Kind kind = Kind::Native;
  Isa fixed = Isa::Scalar;

  static IsaTarget native() { return {}; }
  static IsaTarget dispatch() { return {Kind::Dispatch, Isa::Scalar}; }
  static IsaTarget of(Isa isa) { return {Kind::Fixed, isa}; }
  // "native", "dispatch" or a record's name; nullopt otherwise.
  static std::optional<IsaTarget> parse(std::string_view text);
  std::string name() const;
  // The sets whose code the file holds, narrowest first: the fixed one, every record for native,
  // the records of x86-64 and scalar for dispatch.
  std::vector<Isa> members() const;
  // What a kernel plan is made for, one plan each: this target for native and a fixed set, each
  // member set for dispatch.
  std::vector<IsaTarget> planned() const;
  bool operator==(const IsaTarget&) const = default;
};

// True when this machine runs code of the record: its architecture, its CPUID bits and the
// register state its OS saves (XCR0), as the dispatch file's choice checks them.
bool host_supports(const IsaRecord& r);

// Every --isa value: "native", "dispatch", then the records' names.
std::vector<std::string> isa_target_names();

}  // namespace stax
