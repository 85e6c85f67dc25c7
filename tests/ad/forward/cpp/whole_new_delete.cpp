// Forward mode of tests/ad/whole/cpp/new_delete.cpp: new / delete of an accumulator object
// and new[] / delete[] of a work buffer inside the differentiated function.  No leak.
#include "fwd_test.h"
#include <malloc.h>
#include <stdlib.h>

// Leak check: mallinfo2().uordblks must not change across __enzyme_fwddiff.
// Run with GLIBC_TUNABLES=glibc.malloc.tcache_count=0 (the harness does): glibc
// counts freed chunks parked in the thread cache as in use.

extern "C" double __enzyme_fwddiff(void *, ...);

struct Acc {
  double sum, sumsq;
  __attribute__((noinline)) void add(double v) {
    sum += v;
    sumsq += v * v;
  }
};

__attribute__((noinline)) double loss(const double *x, int n) {
  double *buf = new double[n];
  for (int i = 0; i < n; i++) buf[i] = exp(0.2 * x[i]) + x[(i + 2) % n];
  Acc *acc = new Acc{0.0, 0.0};
  for (int i = 0; i < n; i++) acc->add(buf[i]);
  double mean = acc->sum / n, var = acc->sumsq / n - mean * mean;
  delete acc;
  delete[] buf;
  return var + mean;
}

enum { N = 8 };
static double w_x(const double *x, void *) { return loss(x, N); }

int main() {
  double x[N], v[N];
  char name[64];
  rng_seed(209);
  rng_fill(x, N, -1.5, 1.5);
  void *volatile warm = malloc(1); // the malloc arena exists before heap0 is read
  free(warm);
  for (int d = 0; d < 2; d++) {
    rng_fill(v, N, -1.0, 1.0);
    size_t heap0 = mallinfo2().uordblks;
    double t = __enzyme_fwddiff((void *)loss, enzyme_dup, x, v, enzyme_const, N);
    size_t heap1 = mallinfo2().uordblks;
    snprintf(name, sizeof name, "new_delete_no_leak_%d", d);
    check_close(name, (double)heap1, (double)heap0, 0.0, 0.0);
    snprintf(name, sizeof name, "new_delete_jvp_%d", d);
    check_close(name, t, fd_dir(w_x, x, v, N, nullptr), 1e-6, 1e-9);
  }
  return test_exit();
}
