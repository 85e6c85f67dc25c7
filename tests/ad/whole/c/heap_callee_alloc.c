/* Allocation and deallocation in different noinline callees: make_features()
 * mallocs and returns an array computed from x, the caller reduces it and
 * release() frees it.  No leak (mallinfo2). */
#include "enzyme_test.h"
#include <malloc.h>
#include <stdlib.h>

/* Leak check: mallinfo2().uordblks must not change across __enzyme_autodiff.
 * Run with GLIBC_TUNABLES=glibc.malloc.tcache_count=0 (the harness does): glibc
 * counts freed chunks parked in the thread cache as in use. */

double __enzyme_autodiff(void *, ...);

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

#ifdef REFERENCE_GRADIENT
static void ref_grad_loss(const double *x, double *dx, const double *w, int n) {
  for (int i = 0; i < n; i++) {
    double t = tanh(x[i]), p = x[i] * x[(i + 1) % n];
    double g0 = w[2 * i] + 0.1 * t, g1 = w[2 * i + 1] + 0.1 * p;
    dx[i] += g0 * (1.0 - t * t) + g1 * x[(i + 1) % n];
    dx[(i + 1) % n] += g1 * x[i];
  }
}
#endif

static void grad_loss(const double *x, double *dx, const double *w, int n) {
#ifdef REFERENCE_GRADIENT
  (void)loss(x, w, n); /* the primal allocates and frees, as the real gradient does */
  ref_grad_loss(x, dx, w, n);
#else
  __enzyme_autodiff((void *)loss, enzyme_dup, x, dx, enzyme_const, w, enzyme_const, n);
#endif
}

enum { N = 8 };
static double ws[2 * N];
static double w_x(const double *x, void *c) { (void)c; return loss(x, ws, N); }

int main(void) {
  double x[N], dx[N], fd[N];
  rng_seed(114);
  rng_fill(x, N, -1.0, 1.0);
  rng_fill(ws, 2 * N, -1.0, 1.0);
  zero_array(dx, N);
  void *volatile warm = malloc(1); /* the malloc arena and its thread cache */
  free(warm);                      /* exist before heap0 is read */
  size_t heap0 = mallinfo2().uordblks;
  grad_loss(x, dx, ws, N);
  size_t heap1 = mallinfo2().uordblks;
  check_close("callee_alloc_no_leak", (double)heap1, (double)heap0, 0.0, 0.0);
  fd_grad_array(w_x, x, N, NULL, fd);
  check_array("callee_alloc_dx", dx, fd, N, 1e-6, 1e-9);
  return test_exit();
}
