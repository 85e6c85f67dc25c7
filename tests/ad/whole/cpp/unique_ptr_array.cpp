// std::unique_ptr<double[]> (new[] / delete[] through RAII) as scratch space
// inside the differentiated function, built with -fno-exceptions.  No leak.
#include "enzyme_test.h"
#include <malloc.h>
#include <memory>
#include <stdlib.h>

// Leak check: mallinfo2().uordblks must not change across __enzyme_autodiff.
// Run with GLIBC_TUNABLES=glibc.malloc.tcache_count=0 (the harness does): glibc
// counts freed chunks parked in the thread cache as in use.

extern "C" double __enzyme_autodiff(void *, ...);

__attribute__((noinline)) double loss(const double *x, int n) {
  std::unique_ptr<double[]> cum(new double[n]);
  double run = 0.0;
  for (int i = 0; i < n; i++) {
    run += x[i];
    cum[i] = run;
  }
  double s = 0.0;
  for (int i = 0; i < n; i++) s += cos(cum[i]) * x[i];
  return s;
}

#ifdef REFERENCE_GRADIENT
static void ref_grad_loss(const double *x, double *dx, int n) {
  (void)loss(x, n); // the primal allocates and frees, as the real gradient does
  double c[64], gc = 0.0;
  double run = 0.0;
  for (int i = 0; i < n; i++) { run += x[i]; c[i] = run; }
  for (int i = n - 1; i >= 0; i--) {
    dx[i] += cos(c[i]);
    gc += -sin(c[i]) * x[i]; // adjoint of run at step i
    dx[i] += gc;
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

enum { N = 9 };
static double w_x(const double *x, void *) { return loss(x, N); }

int main() {
  double x[N], dx[N], fd[N];
  rng_seed(213);
  rng_fill(x, N, -0.8, 0.8);
  zero_array(dx, N);
  void *volatile warm = malloc(1); // the malloc arena and its thread cache
  free(warm);                      // exist before heap0 is read
  size_t heap0 = mallinfo2().uordblks;
  grad_loss(x, dx, N);
  size_t heap1 = mallinfo2().uordblks;
  check_close("unique_ptr_no_leak", (double)heap1, (double)heap0, 0.0, 0.0);
  fd_grad_array(w_x, x, N, nullptr, fd);
  check_array("unique_ptr_dx", dx, fd, N, 1e-6, 1e-9);
  return test_exit();
}
