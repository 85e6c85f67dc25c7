// WHOLE-FLAGS: -fexceptions
// Built WITH exceptions: a recursion that may throw (never does here) is
// invoked inside try/catch, from two call sites that continue in one merge
// block.  The recursion stays a call (augmented forward and reverse functions)
// and the invokes' results are active: the reverse sweep must run the callee's
// reverse for each invoke, and the result of an invoke exists only past its
// normal edge.
#include "enzyme_test.h"
#include <stdexcept>

extern "C" double __enzyme_autodiff(void *, ...);

int failures = 0;

__attribute__((noinline)) double rec(const double *x, int n) {
  if (n == 0) return 0.0;
  if (x[0] > 100.0) throw std::runtime_error("out of range");
  return sin(x[n - 1]) * x[0] + rec(x, n - 1);
}

__attribute__((noinline)) double loss(const double *x, int n) {
  double s;
  try {
    s = n > 3 ? rec(x, n) : rec(x, n + 1);
  } catch (const std::exception &) {
    failures++;
    s = 0.0;
  }
  return s * s;
}

#ifdef REFERENCE_GRADIENT
static void ref_grad_loss(const double *x, double *dx, int n) {
  double s = 0.0;
  for (int k = 0; k < n; k++) s += sin(x[k]) * x[0];
  for (int k = 0; k < n; k++) {
    dx[k] += 2.0 * s * cos(x[k]) * x[0];
    dx[0] += 2.0 * s * sin(x[k]);
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
static double w_x(const double *x, void *c) { (void)c; return loss(x, N); }

int main() {
  double x[N], dx[N], fd[N];
  rng_seed(143);
  rng_fill(x, N, -1.0, 1.0);
  zero_array(dx, N);
  grad_loss(x, dx, N);
  fd_grad_array(w_x, x, N, NULL, fd);
  check_array("exceptions_recursion_dx", dx, fd, N, 1e-6, 1e-9);
  check_close("exceptions_recursion_no_throw", failures, 0.0, 0.0, 0.0);
  return test_exit();
}
