// Forward mode of tests/ad/whole/cpp/lambda_direct.cpp: lambdas called directly inside the
// differentiated function (capturing an active array and a scalar by reference, generic,
// immediately invoked); x and a vary together.
#include "fwd_test.h"

extern "C" double __enzyme_fwddiff(void *, ...);

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

enum { N = 7 };
static double w_all(const double *z, void *) { return loss(z, z[N], N); }

int main() {
  double z[N + 1], v[N + 1];
  char name[64];
  rng_seed(207);
  rng_fill(z, N, -1.0, 1.0);
  z[N] = 0.6;
  for (int d = 0; d < 2; d++) {
    rng_fill(v, N + 1, -1.0, 1.0);
    double t = __enzyme_fwddiff((void *)loss, enzyme_dup, z, v, enzyme_dup, z[N], v[N],
                                enzyme_const, N);
    snprintf(name, sizeof name, "lambda_jvp_%d", d);
    check_close(name, t, fd_dir(w_all, z, v, N + 1, nullptr), 1e-6, 1e-9);
  }
  return test_exit();
}
