// new / delete of objects and new[] / delete[] of arrays inside the
// differentiated function (a work buffer and a heap-allocated accumulator
// object).  No leak (mallinfo2).
#include "enzyme_test.h"
#include <malloc.h>
#include <stdlib.h>

// Leak check: mallinfo2().uordblks must not change across __enzyme_autodiff.
// Run with GLIBC_TUNABLES=glibc.malloc.tcache_count=0 (the harness does): glibc
// counts freed chunks parked in the thread cache as in use.

extern "C" double __enzyme_autodiff(void *, ...);

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

#ifdef REFERENCE_GRADIENT
static void ref_grad_loss(const double *x, double *dx, int n) {
  (void)loss(x, n); // the primal allocates and frees, as the real gradient does
  double b[64], s = 0.0;
  for (int i = 0; i < n; i++) { b[i] = exp(0.2 * x[i]) + x[(i + 2) % n]; s += b[i]; }
  double mean = s / n;
  for (int i = 0; i < n; i++) {
    double g = 2.0 * b[i] / n - 2.0 * mean / n + 1.0 / n;
    dx[i] += g * 0.2 * exp(0.2 * x[i]);
    dx[(i + 2) % n] += g;
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

enum { N = 8 };
static double w_x(const double *x, void *) { return loss(x, N); }

int main() {
  double x[N], dx[N], fd[N];
  rng_seed(209);
  rng_fill(x, N, -1.5, 1.5);
  zero_array(dx, N);
  void *volatile warm = malloc(1); // the malloc arena and its thread cache
  free(warm);                      // exist before heap0 is read
  size_t heap0 = mallinfo2().uordblks;
  grad_loss(x, dx, N);
  size_t heap1 = mallinfo2().uordblks;
  check_close("new_delete_no_leak", (double)heap1, (double)heap0, 0.0, 0.0);
  fd_grad_array(w_x, x, N, nullptr, fd);
  check_array("new_delete_dx", dx, fd, N, 1e-6, 1e-9);
  return test_exit();
}
