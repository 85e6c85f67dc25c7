/* Aligned heap memory: a posix_memalign'd buffer filled by a noinline callee
 * with vectorizable loops, and an aligned_alloc'd (64-byte) scratch row, both
 * freed before returning.  The shadows get the same alignment.  No leak. */
#include "enzyme_test.h"
#include <malloc.h>
#include <stdlib.h>

/* Leak check: mallinfo2().uordblks must not change across __enzyme_autodiff.
 * Run with GLIBC_TUNABLES=glibc.malloc.tcache_count=0 (the harness does): glibc
 * counts freed chunks parked in the thread cache as in use. */

double __enzyme_autodiff(void *, ...);

__attribute__((noinline)) static void fill(double *restrict b, const double *restrict x, int n) {
  for (int i = 0; i < n; i++) b[i] = sin(x[i]) * x[i];
}

__attribute__((noinline)) double loss(const double *x, int n) {
  double *b = NULL;
  if (posix_memalign((void **)&b, 32, sizeof(double) * (size_t)n) != 0) return 0.0;
  double *row = (double *)aligned_alloc(64, 64 * (((size_t)n * sizeof(double) + 63) / 64));
  fill(b, x, n);
  for (int i = 0; i < n; i++) row[i] = b[i] * b[(i + 1) % n];
  double s = 0.0;
  for (int i = 0; i < n; i++) s += row[i] + 0.5 * b[i];
  free(row);
  free(b);
  return s;
}

#ifdef REFERENCE_GRADIENT
static void ref_grad_loss(const double *x, double *dx, int n) {
  double b[64], db[64];
  for (int i = 0; i < n; i++) { b[i] = sin(x[i]) * x[i]; db[i] = 0.5; }
  for (int i = 0; i < n; i++) { db[i] += b[(i + 1) % n]; db[(i + 1) % n] += b[i]; }
  for (int i = 0; i < n; i++) dx[i] += db[i] * (cos(x[i]) * x[i] + sin(x[i]));
}
#endif

static void grad_loss(const double *x, double *dx, int n) {
#ifdef REFERENCE_GRADIENT
  (void)loss(x, n); /* the primal allocates and frees, as the real gradient does */
  ref_grad_loss(x, dx, n);
#else
  __enzyme_autodiff((void *)loss, enzyme_dup, x, dx, enzyme_const, n);
#endif
}

enum { N = 11 };
static double w_x(const double *x, void *c) { (void)c; return loss(x, N); }

int main(void) {
  double x[N], dx[N], fd[N];
  rng_seed(131);
  rng_fill(x, N, -1.5, 1.5);
  zero_array(dx, N);
  void *volatile warm = malloc(1); /* the malloc arena and its thread cache */
  free(warm);                      /* exist before heap0 is read */
  size_t heap0 = mallinfo2().uordblks;
  grad_loss(x, dx, N);
  size_t heap1 = mallinfo2().uordblks;
  check_close("aligned_no_leak", (double)heap1, (double)heap0, 0.0, 0.0);
  fd_grad_array(w_x, x, N, NULL, fd);
  check_array("aligned_dx", dx, fd, N, 1e-6, 1e-9);
  return test_exit();
}
