// The vector-layer checks of one instruction set (vec_checks_*.cpp, built with that set's flags).
// This file is built without them: it checks that the CPU has the set before any of its code
// runs, and exits with 77 (a skipped test) when it does not.
#include <cstdio>

extern "C" {
int stax_vec_checks_run = 0;
int stax_vec_checks_failed = 0;
}

namespace vec_checks {
void check_memory();
void check_masks();
void check_arithmetic();
void check_compare_select();
void check_conversions();
void check_reductions();
void check_transcendentals();
void check_activations();
void check_long_sums();
void check_arg_reductions();
void check_division_and_maps();
}  // namespace vec_checks

namespace {

bool cpu_has_the_set() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init();
#endif
#if defined(STAX_VEC_TEST_AVX512)
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq");
#elif defined(STAX_VEC_TEST_AVX2)
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#else
  return true;  // (scalar; NEON, which every AArch64 CPU has)
#endif
}

struct Family {
  const char* name;
  void (*run)();
};

}  // namespace

int main() {
  if (!cpu_has_the_set()) {
    std::printf("skipped: this CPU lacks the instruction set (" STAX_VEC_TEST_NAME ")\n");
    return 77;
  }
  const Family families[] = {
      {"memory", vec_checks::check_memory},
      {"masks", vec_checks::check_masks},
      {"arithmetic", vec_checks::check_arithmetic},
      {"compare_select", vec_checks::check_compare_select},
      {"conversions", vec_checks::check_conversions},
      {"reductions", vec_checks::check_reductions},
      {"transcendentals", vec_checks::check_transcendentals},
      {"activations", vec_checks::check_activations},
      {"long_sums", vec_checks::check_long_sums},
      {"arg_reductions", vec_checks::check_arg_reductions},
      {"division_and_maps", vec_checks::check_division_and_maps},
  };
  int failed_families = 0;
  for (const Family& f : families) {
    const int before = stax_vec_checks_failed, run_before = stax_vec_checks_run;
    f.run();
    const int failed = stax_vec_checks_failed - before;
    std::printf("[%s] %-18s %6d checks, %d failed\n", STAX_VEC_TEST_NAME, f.name, stax_vec_checks_run - run_before,
                failed);
    failed_families += failed > 0;
  }
  std::printf("[%s] %d checks, %d failed\n", STAX_VEC_TEST_NAME, stax_vec_checks_run, stax_vec_checks_failed);
  return failed_families == 0 ? 0 : 1;
}
