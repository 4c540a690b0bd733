// The GEMM checks of one instruction set (gemm_checks_*.cpp, built with that set's flags). This
// file is built without them: it checks that the CPU has the set before any of its code runs,
// and exits with 77 (a skipped test) when it does not.
#include <omp.h>

#include <cstdio>
#include <cstdlib>
#include <new>

extern "C" {
int stax_gemm_checks_run = 0;
int stax_gemm_checks_failed = 0;
// Allocations the checks make fail (conv_checks.cpp): 0 none, 1 those of every OpenMP thread but
// the first, 2 all of them.
int stax_gemm_checks_fail_alloc = 0;
}

// The aligned operators new and delete, which the runtime's buffers come from, replaced so that
// the nothrow one can fail on demand; all of them on aligned_alloc and free, so that any of them
// frees what another allocated.
namespace {
void* aligned_or_null(std::size_t n, std::align_val_t a) {
  const std::size_t align = static_cast<std::size_t>(a);
  return std::aligned_alloc(align, (n + align) / align * align);  // a multiple of it, never 0
}
}  // namespace

void* operator new(std::size_t n, std::align_val_t a, const std::nothrow_t&) noexcept {
  const int mode = __atomic_load_n(&stax_gemm_checks_fail_alloc, __ATOMIC_RELAXED);
  if (mode == 2 || (mode == 1 && omp_get_thread_num() != 0)) return nullptr;
  return aligned_or_null(n, a);
}
void* operator new(std::size_t n, std::align_val_t a) {
  void* p = aligned_or_null(n, a);
  if (p == nullptr) throw std::bad_alloc();
  return p;
}
void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }

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
