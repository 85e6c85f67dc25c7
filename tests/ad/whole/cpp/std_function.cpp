// std::function<double(double)> built from lambdas inside the differentiated
// function and called in a loop (type-erased: an indirect call through the
// manager / invoker pointers that -O2 may or may not resolve).
#include "enzyme_test.h"
#include <functional>

extern "C" double __enzyme_autodiff(void *, ...);

__attribute__((noinline)) double apply_all(const std::function<double(double)> &f, const double *x,
                                           int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++) s += f(x[i]);
  return s;
}
__attribute__((noinline)) double loss(const double *x, double a, int n) {
  std::function<double(double)> f = [a](double v) { return sin(a * v) * v; };
  return apply_all(f, x, n);
}

#ifdef REFERENCE_GRADIENT
static double ref_grad_loss(const double *x, double *dx, double a, int n) {
  double da = 0.0;
  for (int i = 0; i < n; i++) {
    dx[i] += a * cos(a * x[i]) * x[i] + sin(a * x[i]);
    da += x[i] * cos(a * x[i]) * x[i];
  }
  return da;
}
#endif

static double grad_loss(const double *x, double *dx, double a, int n) {
#ifdef REFERENCE_GRADIENT
  return ref_grad_loss(x, dx, a, n);
#else
  return __enzyme_autodiff((void *)loss, enzyme_dup, x, dx, enzyme_out, a, enzyme_const, n);
#endif
}

enum { N = 7 };
static double xs[N], a0 = 1.4;
static double w_x(const double *x, void *) { return loss(x, a0, N); }
static double w_a(double a, void *) { return loss(xs, a, N); }

int main() {
  double dx[N], fd[N];
  rng_seed(215);
  rng_fill(xs, N, -1.0, 1.0);
  zero_array(dx, N);
  double da = grad_loss(xs, dx, a0, N);
  fd_grad_array(w_x, xs, N, nullptr, fd);
  check_array("std_function_dx", dx, fd, N, 1e-6, 1e-9);
  check_close("std_function_da", da, fd_deriv(w_a, a0, nullptr), 1e-6, 1e-9);
  return test_exit();
}
