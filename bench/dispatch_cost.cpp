// The per-call cost of choosing an instruction set at run time (--isa dispatch): one tiny model
// (y = x + 1 on 16 floats) generated twice, once pinned to the set the dispatching file chooses
// on this machine and once with --isa dispatch, both built into this program (with the pinned
// set's flags), called alternately in rounds of N calls on one thread; prints each round's ns
// per call of both and the median difference. Run by scripts/bench_dispatch.sh, which generates
// the two files: g++ -std=c++17 -O2 -fopenmp FLAGS -I DIR bench/dispatch_cost.cpp -lsleef
#include "tiny_fixed.cpp"
#include "tiny_dispatch.cpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

using Run = int (*)(const void* const*, void* const*, void*);

// Called through pointers the compiler cannot see through, so that neither call is inlined into
// the timing loop: both pay one indirect call, and the difference is the choice alone.
Run volatile fixed_run = tiny_fixed_run;
Run volatile dispatch_run = tiny_dispatch_run;

double ns_per_call(Run run, const void* const* in, void* const* out, long calls) {
  const auto t0 = std::chrono::steady_clock::now();
  for (long i = 0; i < calls; ++i)
    if (run(in, out, nullptr) != STAX_OK) std::abort();
  const auto t1 = std::chrono::steady_clock::now();
  return std::chrono::duration<double, std::nano>(t1 - t0).count() / static_cast<double>(calls);
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  const long calls = argc > 1 ? std::atol(argv[1]) : 2000000;
  const int rounds = argc > 2 ? std::atoi(argv[2]) : 11;
  alignas(64) float x[16] = {}, y[16] = {};
  const void* in[] = {x};
  void* out[] = {y};
  std::printf("pinned: %s, dispatch chose: %s\n", tiny_fixed_isa(), tiny_dispatch_isa());
  std::vector<double> fixed, dispatch, diff;
  ns_per_call(fixed_run, in, out, calls / 10);  // warm-up
  ns_per_call(dispatch_run, in, out, calls / 10);
  std::printf("round  pinned ns/call  dispatch ns/call  difference\n");
  for (int r = 0; r < rounds; ++r) {
    const double a = ns_per_call(fixed_run, in, out, calls);
    const double b = ns_per_call(dispatch_run, in, out, calls);
    fixed.push_back(a);
    dispatch.push_back(b);
    diff.push_back(b - a);
    std::printf("%5d  %14.2f  %16.2f  %10.2f\n", r, a, b, b - a);
  }
  std::printf("median %13.2f  %16.2f  %10.2f\n", median(fixed), median(dispatch), median(diff));
  return 0;
}
