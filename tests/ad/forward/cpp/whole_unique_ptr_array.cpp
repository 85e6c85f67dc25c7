// Forward mode of tests/ad/whole/cpp/unique_ptr_array.cpp: std::unique_ptr<double[]>
// (new[] / delete[] through RAII) as scratch space inside the differentiated function.
// No leak.
#include "fwd_test.h"
#include <malloc.h>
#include <memory>
#include <stdlib.h>

// Leak check: mallinfo2().uordblks must not change across __enzyme_fwddiff.
// Run with GLIBC_TUNABLES=glibc.malloc.tcache_count=0 (the harness does): glibc
// counts freed chunks parked in the thread cache as in use.

extern "C" double __enzyme_fwddiff(void *, ...);

__attribute__((noinline)) double loss(const double *x, int n) {
  std::unique_ptr<double[]> cum(new double[n]);
  double run = 0.0;
  for (int i = 0; i < n; i++) {
    run += x[i];
    cum[i] = run;
  }
  double s = 0.0;
  for (int i = 0; i < n; i++) s += cos(cum[i]) * x[i];
  return s;
}

enum { N = 9 };
static double w_x(const double *x, void *) { return loss(x, N); }

int main() {
  double x[N], v[N];
  char name[64];
  rng_seed(213);
  rng_fill(x, N, -0.8, 0.8);
  void *volatile warm = malloc(1); // the malloc arena exists before heap0 is read
  free(warm);
  for (int d = 0; d < 2; d++) {
    rng_fill(v, N, -1.0, 1.0);
    size_t heap0 = mallinfo2().uordblks;
    double t = __enzyme_fwddiff((void *)loss, enzyme_dup, x, v, enzyme_const, N);
    size_t heap1 = mallinfo2().uordblks;
    snprintf(name, sizeof name, "unique_ptr_no_leak_%d", d);
    check_close(name, (double)heap1, (double)heap0, 0.0, 0.0);
    snprintf(name, sizeof name, "unique_ptr_jvp_%d", d);
    check_close(name, t, fd_dir(w_x, x, v, N, nullptr), 1e-6, 1e-9);
  }
  return test_exit();
}
