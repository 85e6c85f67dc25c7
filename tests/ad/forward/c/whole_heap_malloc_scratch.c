/* Forward mode of tests/ad/whole/c/heap_malloc_scratch.c: a malloc'd scratch buffer
 * (softmax into it, then a weighted reduction) freed before returning; no leak. */
#include "fwd_test.h"
#include <malloc.h>
#include <stdlib.h>

/* Leak check: mallinfo2().uordblks must not change across __enzyme_fwddiff.
 * Run with GLIBC_TUNABLES=glibc.malloc.tcache_count=0 (the harness does): glibc
 * counts freed chunks parked in the thread cache as in use. */

double __enzyme_fwddiff(void *, ...);

__attribute__((noinline)) double loss(const double *x, const double *y, int n) {
  double *p = (double *)malloc(sizeof(double) * (size_t)n);
  double z = 0.0;
  for (int i = 0; i < n; i++) {
    p[i] = exp(x[i]);
    z += p[i];
  }
  for (int i = 0; i < n; i++) p[i] /= z;
  double s = 0.0;
  for (int i = 0; i < n; i++) s += y[i] * p[i] * p[i];
  free(p);
  return s;
}

enum { N = 9 };
static double ys[N];
static double w_x(const double *x, void *c) { (void)c; return loss(x, ys, N); }

int main(void) {
  double x[N], v[N];
  char name[64];
  rng_seed(111);
  rng_fill(x, N, -1.0, 1.0);
  rng_fill(ys, N, 0.0, 2.0);
  void *volatile warm = malloc(1); /* the malloc arena exists before heap0 is read */
  free(warm);
  for (int d = 0; d < 2; d++) {
    rng_fill(v, N, -1.0, 1.0);
    size_t heap0 = mallinfo2().uordblks;
    double t = __enzyme_fwddiff((void *)loss, enzyme_dup, x, v, enzyme_const, ys, enzyme_const, N);
    size_t heap1 = mallinfo2().uordblks;
    snprintf(name, sizeof name, "malloc_scratch_no_leak_%d", d);
    check_close(name, (double)heap1, (double)heap0, 0.0, 0.0);
    snprintf(name, sizeof name, "malloc_scratch_jvp_%d", d);
    check_close(name, t, fd_dir(w_x, x, v, N, NULL), 1e-6, 1e-9);
  }
  return test_exit();
}
