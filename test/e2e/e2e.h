// End-to-end test support: graphs compiled to C++, many per translation unit, built with the
// system compiler (warnings are errors), run through their C API and compared with the
// reference interpreter.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "stax/driver/build.h"
#include "stax/driver/compare.h"

namespace stax::e2e {

// float32 results must be within rtol 1e-5 and atol 1e-6 of the interpreter (which computes in
// double); ints and bools exact. Cases that need more say so and why.
constexpr driver::Tolerance kDefaultTolerance{1e-5, 1e-6};

enum class Expect : unsigned char {
  Match,       // every output within tolerance
  DivByZero,   // both the interpreter and the generated code report an integer division by zero
  IndexError,  // both report an index out of range (the generated code's error code says so)
  Either,      // one of the two (random graphs whose integer divisors may be zero)
};

struct Case {
  std::string name;
  std::string json;  // the graph (compiled under a name unique in its group)
  driver::Tolerance tol = kDefaultTolerance;
  // When set, the tolerance computed from the case's inputs instead of `tol`: a float matrix
  // product's documented bound (matmul_tolerance).
  std::function<driver::Tolerance(const std::vector<Tensor>& inputs)> tolerance;
  Expect expect = Expect::Match;
  // Replace 0 in generated int inputs by 1 (cases that divide by an input).
  bool nonzero_ints = false;
  uint64_t seed = 1;
  // Compile under the graph's own name (the prefix of its C symbols) rather than a unique one.
  bool keep_name = false;
};

// The documented error of a float matrix product (docs/graph-format.md, Precise rules): the
// result may differ from the exact product by gamma_n * sum_k |a_k b_k|, gamma_n = n u / (1 - n u),
// u the unit roundoff of `dtype`; n = k + 2 counts the k terms, the rounding of the result and one
// add (a bias). As a tolerance against the interpreter: atol = that bound for the largest
// sum |a||b| of the product (`abs_sum`; the caller computes it from the inputs), doubled for
// float64, whose reference sums in double too; rtol 0.
driver::Tolerance matmul_tolerance(DType dtype, int64_t k, double abs_sum);

// Flags for the suite: quick to build (-O1), for this machine's widest instruction set
// (-march=native, so the vector kernels run as users build them), and warning-free.
std::vector<std::string> suite_cxxflags();
// What users build with (-O3 -march=native), warnings as errors: optimization brings its own
// warnings (-Wmaybe-uninitialized, -Warray-bounds) and vectorizes the loops.
std::vector<std::string> optimized_cxxflags();

// Compiles every case, builds them all into one program, and checks each against the
// interpreter; failures are reported through GoogleTest, naming the case. Every other case
// lets the generated code allocate its workspace (NULL workspace), the rest get the caller's.
// Returns the number of cases compiled and checked.
// `isa`: the --isa the cases are compiled with (the flags must target it).
std::size_t run_cases(const std::vector<Case>& cases, const std::vector<std::string>& cxxflags = suite_cxxflags(),
                      IsaTarget isa = IsaTarget::native());

// The instruction sets to run the suites with on this machine: native, scalar, and avx2 /
// avx512 pinned when the CPU has them; with the flags each needs. A variant of another
// architecture also names its compiler and what its programs run under (an emulator).
struct IsaVariant {
  IsaVariant(IsaTarget isa_, std::vector<std::string> cxxflags_, std::string cxx_ = "",
             std::vector<std::string> run_prefix_ = {})
      : isa(isa_), cxxflags(std::move(cxxflags_)), cxx(std::move(cxx_)), run_prefix(std::move(run_prefix_)) {}
  IsaTarget isa;
  std::vector<std::string> cxxflags;
  std::string cxx;                      // empty: the system compiler
  std::vector<std::string> run_prefix;  // empty: run directly
  // "neon", or "neon (/usr/bin/aarch64-linux-gnu-g++ under /usr/bin/qemu-aarch64)"
  std::string name() const;
};
std::vector<IsaVariant> isa_variants();
// The sets of another architecture whose cross compiler and emulator the build found
// (cmake/StaxIsa.cmake): --isa neon and --isa scalar built with aarch64-linux-gnu-g++ and run
// under qemu-aarch64. Empty when they are missing, or on an aarch64 machine (where neon is
// one of isa_variants()).
std::vector<IsaVariant> cross_variants();
// The message of a test skipped for want of them.
constexpr const char* kNoCrossTools = "needs aarch64-linux-gnu-g++ and qemu-aarch64 (scripts/setup.sh installs them)";

std::size_t run_cases(const std::vector<Case>& cases, const IsaVariant& variant);

// Flags for a file made with --isa dispatch: no -m flags (the file targets each set itself).
std::vector<std::string> dispatch_cxxflags();

// The cases compiled with --isa dispatch into one program built without -march, checked against
// the interpreter with each instruction set the machine has forced in turn (STAX_ISA), after
// checking that the widest is the default; the sets this machine lacks are skipped with a line
// saying so. Returns the number of cases compiled.
std::size_t run_cases_dispatch(const std::vector<Case>& cases);

// True when the front end accepts the graph (to build tables over ops x dtypes and keep the
// combinations PyTorch allows).
bool accepted(const std::string& json);

// A graph document with the given inputs, nodes and outputs (each a JSON fragment).
// input("x", "float32", "[3, 4]") -> {"name": "x", "dtype": "float32", "shape": [3, 4]}
std::string input(const std::string& name, const std::string& dtype, const std::string& shape);
// A node object: {"name", "op", "args": args[, attrs]} (args and attrs are JSON text).
std::string node(const std::string& name, const std::string& op, const std::string& args, const std::string& attrs = "");
// The largest |element| of t.
double max_abs(const Tensor& t);
std::string graph(const std::vector<std::string>& inputs, const std::vector<std::string>& nodes,
                  const std::vector<std::string>& outputs, const std::vector<std::string>& constants = {});

// A list of cases built line by line; each graph must be accepted by the front end.
struct Table {
  std::vector<Case> cases;
  Case& add(const std::string& name, const std::vector<std::string>& inputs,
            const std::vector<std::string>& nodes, const std::vector<std::string>& outputs,
            const std::vector<std::string>& constants = {});
  Case& add(const std::string& name, const std::vector<std::string>& inputs,
            const std::vector<std::string>& nodes, const std::vector<std::string>& outputs,
            driver::Tolerance tol) {
    Case& c = add(name, inputs, nodes, outputs);
    c.tol = tol;
    return c;
  }
};

}  // namespace stax::e2e
