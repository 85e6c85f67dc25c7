// WHOLE-FLAGS: -fexceptions
// Built WITH exceptions: the differentiated function calls a noinline
// validate() that may throw (never does here) inside try/catch, so the IR has
// invoke / landingpad; the exceptional paths only touch an inactive error
// counter, never active data.
#include "enzyme_test.h"
#include <stdexcept>

extern "C" double __enzyme_autodiff(void *, ...);

int errors = 0;

__attribute__((noinline)) void validate(int n) {
  if (n <= 0) throw std::invalid_argument("n must be positive");
}
__attribute__((noinline)) double term(double v) { return v * exp(-v * v); }

__attribute__((noinline)) double loss(const double *x, int n) {
  try {
    validate(n);
  } catch (const std::invalid_argument &) {
    errors++;
    return 0.0;
  }
  double s = 0.0;
  for (int i = 0; i < n; i++) {
    try {
      validate(i + 1);
    } catch (...) {
      errors++;
    }
    s += term(x[i]);
  }
  return s;
}

#ifdef REFERENCE_GRADIENT
static void ref_grad_loss(const double *x, double *dx, int n) {
  for (int i = 0; i < n; i++) dx[i] += exp(-x[i] * x[i]) * (1.0 - 2.0 * x[i] * x[i]);
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
  rng_seed(210);
  rng_fill(x, N, -1.5, 1.5);
  zero_array(dx, N);
  grad_loss(x, dx, N);
  fd_grad_array(w_x, x, N, nullptr, fd);
  check_array("exceptions_dx", dx, fd, N, 1e-6, 1e-9);
  check_close("exceptions_none_thrown", errors, 0.0, 0.0, 0.0);
  return test_exit();
}
