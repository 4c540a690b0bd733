#include "stax/support/isa.h"

#include <cctype>

#include "stax/support/error.h"

namespace stax {

namespace {

constexpr IsaRecord kTable[] = {
#define STAX_ISA(Id, name, arch, lanes, bits, tag, runtime, flags, target, cpu, xcr0) \
  {Isa::Id, name, arch, lanes, bits, tag, runtime, flags, target, cpu, xcr0},
#include "stax/support/isa.def"
#undef STAX_ISA
};

std::string upper(std::string_view s) {
  std::string out;
  for (char c : s) out.push_back(static_cast<char>(std::toupper(static_cast<unsigned char>(c))));
  return out;
}

}  // namespace

std::string IsaRecord::tag_type() const { return "stax_rt::" + std::string(tag); }
std::string IsaRecord::section() const { return "vec_" + std::string(name); }
std::string IsaRecord::pin_macro() const { return "STAX_ISA_" + upper(name); }

// "LEAF.REG.BIT" words, e.g. "7.ebx.16".
std::vector<CpuidBit> IsaRecord::cpuid_bits() const {
  std::vector<CpuidBit> bits;
  std::size_t i = 0;
  while (i < cpu.size()) {
    const std::size_t end = std::min(cpu.find(' ', i), cpu.size());
    const std::string_view word = cpu.substr(i, end - i);
    i = end + 1;
    if (word.empty()) continue;
    const std::size_t d1 = word.find('.'), d2 = word.rfind('.');
    STAX_ASSERT(d1 != std::string_view::npos && d2 > d1 && d2 - d1 == 4 && word[d1 + 1] == 'e' && word[d1 + 3] == 'x',
                "bad CPUID bit '" + std::string(word) + "' in the ISA table");
    CpuidBit b;
    b.leaf = static_cast<unsigned>(std::stoul(std::string(word.substr(0, d1))));
    b.reg = word[d1 + 2];
    b.bit = static_cast<unsigned>(std::stoul(std::string(word.substr(d2 + 1))));
    STAX_ASSERT(b.bit < 32 && (b.reg == 'a' || b.reg == 'b' || b.reg == 'c' || b.reg == 'd'),
                "bad CPUID bit '" + std::string(word) + "' in the ISA table");
    bits.push_back(b);
  }
  return bits;
}

std::span<const IsaRecord> isa_table() { return kTable; }

const IsaRecord& isa_record(Isa isa) {
  for (const IsaRecord& r : kTable)
    if (r.id == isa) return r;
  internal_error(__FILE__, __LINE__, "an Isa without a record");
}

const IsaRecord* find_isa(std::string_view name) {
  for (const IsaRecord& r : kTable)
    if (r.name == name) return &r;
  return nullptr;
}

std::optional<IsaTarget> IsaTarget::parse(std::string_view text) {
  if (text == "native") return native();
  if (text == "dispatch") return dispatch();
  if (const IsaRecord* r = find_isa(text)) return of(r->id);
  return std::nullopt;
}

std::string IsaTarget::name() const {
  switch (kind) {
    case Kind::Native: return "native";
    case Kind::Dispatch: return "dispatch";
    case Kind::Fixed: return std::string(isa_record(fixed).name);
  }
  return "?";
}

std::vector<Isa> IsaTarget::members() const {
  std::vector<Isa> out;
  for (const IsaRecord& r : kTable) {
    const bool member = kind == Kind::Native || (kind == Kind::Fixed && r.id == fixed) ||
                        (kind == Kind::Dispatch && (r.arch == "x86_64" || r.arch == "any"));
    if (member) out.push_back(r.id);
  }
  return out;
}

std::vector<IsaTarget> IsaTarget::planned() const {
  if (kind != Kind::Dispatch) return {*this};
  std::vector<IsaTarget> out;
  for (Isa isa : members()) out.push_back(of(isa));
  return out;
}

namespace {

#if defined(__x86_64__) || defined(__i386__)
constexpr std::string_view kHostArch = "x86_64";
void cpuid(unsigned leaf, unsigned r[4]) {
  __asm__ __volatile__("cpuid" : "=a"(r[0]), "=b"(r[1]), "=c"(r[2]), "=d"(r[3]) : "a"(leaf), "c"(0u));
}
std::uint64_t xcr0() {
  unsigned r[4];
  cpuid(1, r);
  if (((r[2] >> 27) & 1u) == 0) return 0;  // no OSXSAVE: XGETBV would fault
  unsigned lo = 0, hi = 0;
  __asm__ __volatile__("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0u));
  return (static_cast<std::uint64_t>(hi) << 32) | lo;
}
bool cpu_has(const IsaRecord& r) {
  unsigned top[4];
  cpuid(0, top);
  for (const CpuidBit& b : r.cpuid_bits()) {
    unsigned regs[4] = {0, 0, 0, 0};
    if (b.leaf > top[0]) return false;
    cpuid(b.leaf, regs);
    if (((regs[b.reg - 'a'] >> b.bit) & 1u) == 0) return false;
  }
  return r.xcr0 == 0 || (xcr0() & r.xcr0) == r.xcr0;
}
#elif defined(__aarch64__)
constexpr std::string_view kHostArch = "aarch64";
bool cpu_has(const IsaRecord& r) { return r.cpu.empty(); }
#else
constexpr std::string_view kHostArch = "other";
bool cpu_has(const IsaRecord& r) { return r.cpu.empty(); }
#endif

}  // namespace

bool host_supports(const IsaRecord& r) {
  if (r.arch != "any" && r.arch != kHostArch) return false;
  return cpu_has(r);
}

std::vector<std::string> isa_target_names() {
  std::vector<std::string> names = {"native", "dispatch"};
  for (const IsaRecord& r : kTable) names.emplace_back(r.name);
  return names;
}

}  // namespace stax
