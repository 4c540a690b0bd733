// The GEMM checks of one instruction set (gemm_checks_*.cpp, built with that set's flags). This
// file is built without them: it checks that the CPU has the set before any of its code runs,
// and exits with 77 (a skipped test) when it does not.
#include <cstdio>

extern "C" {
int stax_gemm_checks_run = 0;
int stax_gemm_checks_failed = 0;
}

namespace gemm_checks {
void check_shapes();
void check_layouts();
void check_batched();
void check_prepacked();
void check_epilogues();
void check_determinism();
void check_long_dots();
void check_float64();
void check_special_values();
void check_integers();
void check_packing();
void check_plans();
void check_conv();
}  // namespace gemm_checks

namespace {

bool cpu_has_the_set() {
#if defined(STAX_GEMM_TEST_AVX512)
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq");
#elif defined(STAX_GEMM_TEST_AVX2)
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#else
  return true;  // the scalar set, and a set every CPU of its architecture has
#endif
}

struct Family {
  const char* name;
  void (*run)();
};

}  // namespace

int main() {
  if (!cpu_has_the_set()) {
    std::printf("skipped: this CPU lacks the instruction set (" STAX_GEMM_TEST_NAME ")\n");
    return 77;
  }
  const Family families[] = {
      {"shapes", gemm_checks::check_shapes},
      {"layouts", gemm_checks::check_layouts},
      {"batched", gemm_checks::check_batched},
      {"prepacked", gemm_checks::check_prepacked},
      {"epilogues", gemm_checks::check_epilogues},
      {"determinism", gemm_checks::check_determinism},
      {"long_dots", gemm_checks::check_long_dots},
      {"float64", gemm_checks::check_float64},
      {"special_values", gemm_checks::check_special_values},
      {"integers", gemm_checks::check_integers},
      {"packing", gemm_checks::check_packing},
      {"plans", gemm_checks::check_plans},
      {"conv", gemm_checks::check_conv},
  };
  int failed_families = 0;
  for (const Family& f : families) {
    const int before = stax_gemm_checks_failed, run_before = stax_gemm_checks_run;
    f.run();
    const int failed = stax_gemm_checks_failed - before;
    std::printf("[%s] %-15s %6d checks, %d failed\n", STAX_GEMM_TEST_NAME, f.name, stax_gemm_checks_run - run_before,
                failed);
    std::fflush(stdout);
    failed_families += failed > 0;
  }
  std::printf("[%s] %d checks, %d failed\n", STAX_GEMM_TEST_NAME, stax_gemm_checks_run, stax_gemm_checks_failed);
  return failed_families == 0 ? 0 : 1;
}
