// WHOLE-FLAGS: -fexceptions
// Forward mode of tests/ad/whole/cpp/exceptions_invoke.cpp: built WITH exceptions, the
// differentiated function calls a noinline validate() that may throw (never does) inside
// try/catch, so the IR has invoke / landingpad; the exceptional paths only touch an
// inactive error counter.
#include "fwd_test.h"
#include <stdexcept>

extern "C" double __enzyme_fwddiff(void *, ...);

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

enum { N = 8 };
static double w_x(const double *x, void *) { return loss(x, N); }

int main() {
  double x[N], v[N];
  char name[64];
  rng_seed(210);
  rng_fill(x, N, -1.5, 1.5);
  for (int d = 0; d < 2; d++) {
    rng_fill(v, N, -1.0, 1.0);
    double t = __enzyme_fwddiff((void *)loss, enzyme_dup, x, v, enzyme_const, N);
    snprintf(name, sizeof name, "exceptions_jvp_%d", d);
    check_close(name, t, fd_dir(w_x, x, v, N, nullptr), 1e-6, 1e-9);
  }
  check_close("exceptions_none_thrown", errors, 0.0, 0.0, 0.0);
  return test_exit();
}
