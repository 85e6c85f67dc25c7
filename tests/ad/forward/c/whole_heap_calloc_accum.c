/* Forward mode of tests/ad/whole/c/heap_calloc_accum.c: calloc'd bins accumulate x[i]^2,
 * then sum sqrt(1 + bin); the buffer is freed and the tangent call leaks nothing. */
#include "fwd_test.h"
#include <malloc.h>
#include <stdlib.h>

/* Leak check: mallinfo2().uordblks must not change across __enzyme_fwddiff.
 * Run with GLIBC_TUNABLES=glibc.malloc.tcache_count=0 (the harness does): glibc
 * counts freed chunks parked in the thread cache as in use. */

double __enzyme_fwddiff(void *, ...);

__attribute__((noinline)) double loss(const double *x, int n, int m) {
  double *bins = (double *)calloc((size_t)m, sizeof(double));
  for (int i = 0; i < n; i++) bins[i % m] += x[i] * x[i];
  double s = 0.0;
  for (int j = 0; j < m; j++) s += sqrt(1.0 + bins[j]);
  free(bins);
  return s;
}

enum { N = 14, M = 4 };
static double w_x(const double *x, void *c) { (void)c; return loss(x, N, M); }

int main(void) {
  double x[N], v[N];
  char name[64];
  rng_seed(112);
  rng_fill(x, N, -1.5, 1.5);
  void *volatile warm = malloc(1); /* the malloc arena exists before heap0 is read */
  free(warm);
  for (int d = 0; d < 2; d++) {
    rng_fill(v, N, -1.0, 1.0);
    size_t heap0 = mallinfo2().uordblks;
    double t = __enzyme_fwddiff((void *)loss, enzyme_dup, x, v, enzyme_const, N, enzyme_const, M);
    size_t heap1 = mallinfo2().uordblks;
    snprintf(name, sizeof name, "calloc_accum_no_leak_%d", d);
    check_close(name, (double)heap1, (double)heap0, 0.0, 0.0);
    snprintf(name, sizeof name, "calloc_accum_jvp_%d", d);
    check_close(name, t, fd_dir(w_x, x, v, N, NULL), 1e-6, 1e-9);
  }
  return test_exit();
}
