/* A recursion with local arrays: a fixed-size buffer and a variable-length
 * array (VLA) in each frame, both read after the recursive call returns.  The
 * reverse sweep of each frame needs them after the frame's augmented call has
 * returned, so they live on its tape (the VLA in a malloc'd block).  No leak. */
#include "enzyme_test.h"
#include <malloc.h>
#include <stdlib.h>

/* Leak check: mallinfo2().uordblks must not change across __enzyme_autodiff.
 * Run with GLIBC_TUNABLES=glibc.malloc.tcache_count=0 (the harness does): glibc
 * counts freed chunks parked in the thread cache as in use. */

double __enzyme_autodiff(void *, ...);

__attribute__((noinline)) static double rec(const double *x, int n, int depth) {
  double fixed[4];
  double vla[n];
  for (int i = 0; i < 4; i++) fixed[i] = sin(x[(i + depth) % n]) * x[i % n];
  for (int i = 0; i < n; i++) vla[i] = cos(x[i]) * x[(i + depth) % n];
  double s = fixed[0] * fixed[1] + fixed[2] * fixed[3];
  if (depth > 0) s += 0.5 * rec(x, n, depth - 1) * (fixed[depth % 4] + vla[depth % n]);
  for (int i = 0; i < n; i++) s += vla[i] * vla[(i + 1) % n];
  return s;
}

__attribute__((noinline)) double loss(const double *x, int n) { return rec(x, n, 6); }

static double w_x(const double *x, void *c) { return loss(x, *(const int *)c); }

#ifdef REFERENCE_GRADIENT
/* Central differences of loss in each coordinate (the recursion's own derivative is
 * long by hand); the check below compares against a finer stencil of its own. */
static void ref_grad_loss(const double *x, double *dx, int n) {
  double xp[16];
  for (int k = 0; k < n; k++) {
    double g = 0.0, h = 1e-4, c[2] = {8.0, -1.0};
    for (int j = 0; j < 2; j++) {
      for (int i = 0; i < n; i++) xp[i] = x[i];
      xp[k] = x[k] + (j + 1) * h;
      double fp = loss(xp, n);
      xp[k] = x[k] - (j + 1) * h;
      g += c[j] * (fp - loss(xp, n));
    }
    dx[k] += g / (12.0 * h);
  }
}
#endif

static void grad_loss(const double *x, double *dx, int n) {
#ifdef REFERENCE_GRADIENT
  ref_grad_loss(x, dx, n);
#else
  __enzyme_autodiff((void *)loss, enzyme_dup, x, dx, enzyme_const, n);
#endif
}

enum { N = 7 };

int main(void) {
  double x[N], dx[N], fd[N];
  int n = N;
  rng_seed(139);
  rng_fill(x, N, -1.0, 1.0);
  zero_array(dx, N);
  void *volatile warm = malloc(1); /* the malloc arena and its thread cache */
  free(warm);                      /* exist before heap0 is read */
  size_t heap0 = mallinfo2().uordblks;
  grad_loss(x, dx, N);
  size_t heap1 = mallinfo2().uordblks;
  check_close("local_arrays_no_leak", (double)heap1, (double)heap0, 0.0, 0.0);
  fd_grad_array(w_x, x, N, &n, fd);
  check_array("local_arrays_dx", dx, fd, N, 1e-6, 1e-9);
  return test_exit();
}
