/* Forward mode of tests/ad/whole/c/heap_callee_alloc.c: allocation and deallocation in
 * different noinline callees (make_features() mallocs, the caller frees); no leak. */
#include "fwd_test.h"
#include <malloc.h>
#include <stdlib.h>

/* Leak check: mallinfo2().uordblks must not change across __enzyme_fwddiff.
 * Run with GLIBC_TUNABLES=glibc.malloc.tcache_count=0 (the harness does): glibc
 * counts freed chunks parked in the thread cache as in use. */

double __enzyme_fwddiff(void *, ...);

__attribute__((noinline)) double *make_features(const double *x, int n) {
  double *f = (double *)malloc(sizeof(double) * 2 * (size_t)n);
  for (int i = 0; i < n; i++) {
    f[2 * i] = tanh(x[i]);
    f[2 * i + 1] = x[i] * x[(i + 1) % n];
  }
  return f;
}
__attribute__((noinline)) void release(double *p) { free(p); }
__attribute__((noinline)) double loss(const double *x, const double *w, int n) {
  double *f = make_features(x, n);
  double s = 0.0;
  for (int i = 0; i < 2 * n; i++) s += w[i] * f[i] + 0.05 * f[i] * f[i];
  release(f);
  return s;
}

enum { N = 8 };
static double ws[2 * N];
static double w_x(const double *x, void *c) { (void)c; return loss(x, ws, N); }

int main(void) {
  double x[N], v[N];
  char name[64];
  rng_seed(114);
  rng_fill(x, N, -1.0, 1.0);
  rng_fill(ws, 2 * N, -1.0, 1.0);
  void *volatile warm = malloc(1); /* the malloc arena exists before heap0 is read */
  free(warm);
  for (int d = 0; d < 2; d++) {
    rng_fill(v, N, -1.0, 1.0);
    size_t heap0 = mallinfo2().uordblks;
    double t = __enzyme_fwddiff((void *)loss, enzyme_dup, x, v, enzyme_const, ws, enzyme_const, N);
    size_t heap1 = mallinfo2().uordblks;
    snprintf(name, sizeof name, "callee_alloc_no_leak_%d", d);
    check_close(name, (double)heap1, (double)heap0, 0.0, 0.0);
    snprintf(name, sizeof name, "callee_alloc_jvp_%d", d);
    check_close(name, t, fd_dir(w_x, x, v, N, NULL), 1e-6, 1e-9);
  }
  return test_exit();
}
