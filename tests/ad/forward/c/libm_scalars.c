/* libm on scalars: every dup input gets its own tangent; the jvp is checked
 * along two directions and against the sum of the partials. */
#include "fwd_test.h"

double __enzyme_fwddiff(void *, ...);

__attribute__((noinline)) double g(double x, double y, double z) {
  double a = sin(x) * cos(y) + exp(0.3 * z) * log(1.5 + x * x);
  double b = pow(1.2 + y * y, 0.7) + sqrt(2.0 + z * z) + tanh(x - z);
  double c = atan2(y, 1.0 + x * x) + erf(0.5 * z) + hypot(x, z) + cbrt(3.0 + y);
  double d = fmax(x, y) * fmin(y, z) + fabs(x - 0.25) + expm1(0.1 * y) + log1p(z * z);
  return a * b + c - d;
}

static double w_g(const double *v, void *ctx) {
  (void)ctx;
  return g(v[0], v[1], v[2]);
}

int main(void) {
  double p[3] = {0.6, -0.35, 1.1};
  double dirs[3][3] = {{1.0, 0.0, 0.0}, {0.3, -1.2, 0.8}, {0.0, 0.0, 1.0}};
  const char *names[3] = {"dx", "mixed", "dz"};
  double sum = 0.0;
  for (int k = 0; k < 3; k++) {
    double *v = dirs[k];
    double t = __enzyme_fwddiff((void *)g, enzyme_dup, p[0], v[0], enzyme_dup, p[1], v[1],
                                enzyme_dup, p[2], v[2]);
    check_close(names[k], t, fd_dir(w_g, p, v, 3, NULL), 1e-6, 1e-8);
  }
  for (int i = 0; i < 3; i++) {
    double e[3] = {0, 0, 0};
    e[i] = 1.0;
    sum += __enzyme_fwddiff((void *)g, p[0], e[0], p[1], e[1], p[2], e[2]);
  }
  double ones[3] = {1.0, 1.0, 1.0};
  check_close("sum_of_partials", sum, fd_dir(w_g, p, ones, 3, NULL), 1e-6, 1e-8);
  return test_exit();
}
