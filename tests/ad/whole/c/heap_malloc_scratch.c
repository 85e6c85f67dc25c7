/* A malloc'd scratch buffer inside the differentiated function (softmax into
 * the buffer, then a weighted reduction), freed before returning.  No leak. */
#include "enzyme_test.h"
#include <malloc.h>
#include <stdlib.h>

/* Leak check: mallinfo2().uordblks must not change across __enzyme_autodiff.
 * Run with GLIBC_TUNABLES=glibc.malloc.tcache_count=0 (the harness does): glibc
 * counts freed chunks parked in the thread cache as in use. */

double __enzyme_autodiff(void *, ...);

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

#ifdef REFERENCE_GRADIENT
static void ref_grad_loss(const double *x, double *dx, const double *y, int n) {
  double p[64], g[64], z = 0.0, gp = 0.0;
  for (int i = 0; i < n; i++) { p[i] = exp(x[i]); z += p[i]; }
  for (int i = 0; i < n; i++) { p[i] /= z; g[i] = 2.0 * y[i] * p[i]; gp += g[i] * p[i]; }
  for (int i = 0; i < n; i++) dx[i] += p[i] * (g[i] - gp);
}
#endif

static void grad_loss(const double *x, double *dx, const double *y, int n) {
#ifdef REFERENCE_GRADIENT
  (void)loss(x, y, n); /* the primal allocates and frees, as the real gradient does */
  ref_grad_loss(x, dx, y, n);
#else
  __enzyme_autodiff((void *)loss, enzyme_dup, x, dx, enzyme_const, y, enzyme_const, n);
#endif
}

enum { N = 9 };
static double ys[N];
static double w_x(const double *x, void *c) { (void)c; return loss(x, ys, N); }

int main(void) {
  double x[N], dx[N], fd[N];
  rng_seed(111);
  rng_fill(x, N, -1.0, 1.0);
  rng_fill(ys, N, 0.0, 2.0);
  zero_array(dx, N);
  void *volatile warm = malloc(1); /* the malloc arena and its thread cache */
  free(warm);                      /* exist before heap0 is read */
  size_t heap0 = mallinfo2().uordblks;
  grad_loss(x, dx, ys, N);
  size_t heap1 = mallinfo2().uordblks;
  check_close("malloc_scratch_no_leak", (double)heap1, (double)heap0, 0.0, 0.0);
  fd_grad_array(w_x, x, N, NULL, fd);
  check_array("malloc_scratch_dx", dx, fd, N, 1e-6, 1e-9);
  return test_exit();
}
