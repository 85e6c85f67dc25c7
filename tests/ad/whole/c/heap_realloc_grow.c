/* A growable buffer (realloc doubling its capacity) filled with active values
 * inside the differentiated function, reduced and freed.  No leak. */
#include "enzyme_test.h"
#include <malloc.h>
#include <stdlib.h>

/* Leak check: mallinfo2().uordblks must not change across __enzyme_autodiff.
 * Run with GLIBC_TUNABLES=glibc.malloc.tcache_count=0 (the harness does): glibc
 * counts freed chunks parked in the thread cache as in use. */

double __enzyme_autodiff(void *, ...);

__attribute__((noinline)) double loss(const double *x, int n) {
  int cap = 2, len = 0;
  double *buf = (double *)malloc(sizeof(double) * (size_t)cap);
  for (int i = 0; i < n; i++) {
    if (len == cap) {
      cap *= 2;
      buf = (double *)realloc(buf, sizeof(double) * (size_t)cap);
    }
    buf[len++] = exp(0.3 * x[i]) * x[i];
  }
  double s = 0.0;
  for (int i = 0; i < len; i++) s += buf[i] * buf[(i + 1) % len];
  free(buf);
  return s;
}

#ifdef REFERENCE_GRADIENT
static void ref_grad_loss(const double *x, double *dx, int n) {
  double v[64];
  for (int i = 0; i < n; i++) v[i] = exp(0.3 * x[i]) * x[i];
  for (int i = 0; i < n; i++) {
    double g = v[(i + 1) % n] + v[(i + n - 1) % n];
    dx[i] += g * exp(0.3 * x[i]) * (1.0 + 0.3 * x[i]);
  }
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
  rng_seed(116);
  rng_fill(x, N, -1.0, 1.0);
  zero_array(dx, N);
  void *volatile warm = malloc(1); /* the malloc arena and its thread cache */
  free(warm);                      /* exist before heap0 is read */
  size_t heap0 = mallinfo2().uordblks;
  grad_loss(x, dx, N);
  size_t heap1 = mallinfo2().uordblks;
  check_close("realloc_grow_no_leak", (double)heap1, (double)heap0, 0.0, 0.0);
  fd_grad_array(w_x, x, N, NULL, fd);
  check_array("realloc_grow_dx", dx, fd, N, 1e-6, 1e-9);
  return test_exit();
}
