// End-to-end test support: graphs compiled to C++, many per translation unit, built with the
// system compiler (warnings are errors), run through their C API and compared with the
// reference interpreter.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
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
                      codegen::IsaTarget isa = codegen::IsaTarget::native());

// The instruction sets to run the suites with on this machine: native, scalar, and avx2 /
// avx512 pinned when the CPU has them; with the flags each needs.
struct IsaVariant {
  codegen::IsaTarget isa;
  std::vector<std::string> cxxflags;
};
std::vector<IsaVariant> isa_variants();

// True when the front end accepts the graph (to build tables over ops x dtypes and keep the
// combinations PyTorch allows).
bool accepted(const std::string& json);

// A graph document with the given inputs, nodes and outputs (each a JSON fragment).
// input("x", "float32", "[3, 4]") -> {"name": "x", "dtype": "float32", "shape": [3, 4]}
std::string input(const std::string& name, const std::string& dtype, const std::string& shape);
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
