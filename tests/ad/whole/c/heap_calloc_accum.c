/* calloc'd bins accumulate x[i]^2 (bin i % m), then sum sqrt(1 + bin); the
 * buffer is freed.  No leak. */
#include "enzyme_test.h"
#include <malloc.h>
#include <stdlib.h>

/* Leak check: mallinfo2().uordblks must not change across __enzyme_autodiff.
 * Run with GLIBC_TUNABLES=glibc.malloc.tcache_count=0 (the harness does): glibc
 * counts freed chunks parked in the thread cache as in use. */

double __enzyme_autodiff(void *, ...);

__attribute__((noinline)) double loss(const double *x, int n, int m) {
  double *bins = (double *)calloc((size_t)m, sizeof(double));
  for (int i = 0; i < n; i++) bins[i % m] += x[i] * x[i];
  double s = 0.0;
  for (int j = 0; j < m; j++) s += sqrt(1.0 + bins[j]);
  free(bins);
  return s;
}

#ifdef REFERENCE_GRADIENT
static void ref_grad_loss(const double *x, double *dx, int n, int m) {
  double bins[64] = {0};
  for (int i = 0; i < n; i++) bins[i % m] += x[i] * x[i];
  for (int i = 0; i < n; i++) dx[i] += 0.5 / sqrt(1.0 + bins[i % m]) * 2.0 * x[i];
}
#endif

static void grad_loss(const double *x, double *dx, int n, int m) {
#ifdef REFERENCE_GRADIENT
  (void)loss(x, n, m); /* the primal allocates and frees, as the real gradient does */
  ref_grad_loss(x, dx, n, m);
#else
  __enzyme_autodiff((void *)loss, enzyme_dup, x, dx, enzyme_const, n, enzyme_const, m);
#endif
}

enum { N = 14, M = 4 };
static double w_x(const double *x, void *c) { (void)c; return loss(x, N, M); }

int main(void) {
  double x[N], dx[N], fd[N];
  rng_seed(112);
  rng_fill(x, N, -1.5, 1.5);
  zero_array(dx, N);
  void *volatile warm = malloc(1); /* the malloc arena and its thread cache */
  free(warm);                      /* exist before heap0 is read */
  size_t heap0 = mallinfo2().uordblks;
  grad_loss(x, dx, N, M);
  size_t heap1 = mallinfo2().uordblks;
  check_close("calloc_accum_no_leak", (double)heap1, (double)heap0, 0.0, 0.0);
  fd_grad_array(w_x, x, N, NULL, fd);
  check_array("calloc_accum_dx", dx, fd, N, 1e-6, 1e-9);
  return test_exit();
}
