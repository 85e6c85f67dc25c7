// Lambdas called directly inside the differentiated function: one capturing
// an active array and a scalar by reference, one generic lambda, one
// immediately-invoked lambda.
#include "enzyme_test.h"

extern "C" double __enzyme_autodiff(void *, ...);

__attribute__((noinline)) double loss(const double *x, double a, int n) {
  auto term = [&](int i) { return a * x[i] * x[i] + sin(a * x[i]); };
  auto sq = [](auto v) { return v * v; };
  double s = 0.0;
  for (int i = 0; i < n; i++) s += term(i);
  double m = [&] {
    double t = 0.0;
    for (int i = 0; i < n; i++) t += x[i];
    return t / n;
  }();
  return sq(s) + sq(m) * a;
}

#ifdef REFERENCE_GRADIENT
static double ref_grad_loss(const double *x, double *dx, double a, int n) {
  double s = 0.0, ds_da = 0.0, m = 0.0;
  for (int i = 0; i < n; i++) {
    s += a * x[i] * x[i] + sin(a * x[i]);
    ds_da += x[i] * x[i] + x[i] * cos(a * x[i]);
    m += x[i];
  }
  m /= n;
  for (int i = 0; i < n; i++)
    dx[i] += 2.0 * s * (2.0 * a * x[i] + a * cos(a * x[i])) + 2.0 * m * a / n;
  return 2.0 * s * ds_da + m * m;
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
static double xs[N], a0 = 0.6;
static double w_x(const double *x, void *) { return loss(x, a0, N); }
static double w_a(double a, void *) { return loss(xs, a, N); }

int main() {
  rng_seed(207);
  rng_fill(xs, N, -1.0, 1.0);
  double dx[N], fd[N];
  zero_array(dx, N);
  double da = grad_loss(xs, dx, a0, N);
  fd_grad_array(w_x, xs, N, nullptr, fd);
  check_array("lambda_dx", dx, fd, N, 1e-6, 1e-9);
  check_close("lambda_da", da, fd_deriv(w_a, a0, nullptr), 1e-6, 1e-9);
  return test_exit();
}
