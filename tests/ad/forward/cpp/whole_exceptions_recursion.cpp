// WHOLE-FLAGS: -fexceptions
// Forward mode of tests/ad/whole/cpp/exceptions_recursion.cpp: a recursion that
// may throw (never does here) is invoked inside try/catch from two call sites;
// each invoke calls the recursion's forward derivative instead, and its tangent
// is read past the normal edge.
#include "fwd_test.h"
#include <stdexcept>

extern "C" double __enzyme_fwddiff(void *, ...);

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

enum { N = 7 };
static double w_x(const double *x, void *c) { (void)c; return loss(x, N); }

int main() {
  double x[N], v[N];
  char name[64];
  rng_seed(143);
  rng_fill(x, N, -1.0, 1.0);
  for (int d = 0; d < 2; d++) {
    rng_fill(v, N, -1.0, 1.0);
    double t = __enzyme_fwddiff((void *)loss, enzyme_dup, x, v, enzyme_const, N);
    snprintf(name, sizeof name, "exceptions_recursion_jvp_%d", d);
    check_close(name, t, fd_dir(w_x, x, v, N, NULL), 1e-6, 1e-9);
  }
  check_close("exceptions_recursion_no_throw", failures, 0.0, 0.0, 0.0);
  return test_exit();
}
