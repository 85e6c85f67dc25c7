// Forward mode of tests/ad/whole/cpp/std_function.cpp: a std::function<double(double)>
// built from a lambda capturing a, called in a loop by a noinline helper (type-erased: an
// indirect call through the invoker pointer that -O2 may or may not resolve).
#include "fwd_test.h"
#include <functional>

extern "C" double __enzyme_fwddiff(void *, ...);

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

enum { N = 7 };
static double w_all(const double *z, void *) { return loss(z, z[N], N); }

int main() {
  double z[N + 1], v[N + 1];
  char name[64];
  rng_seed(215);
  rng_fill(z, N, -1.0, 1.0);
  z[N] = 1.4;
  for (int d = 0; d < 2; d++) {
    rng_fill(v, N + 1, -1.0, 1.0);
    double t = __enzyme_fwddiff((void *)loss, enzyme_dup, z, v, enzyme_dup, z[N], v[N],
                                enzyme_const, N);
    snprintf(name, sizeof name, "std_function_jvp_%d", d);
    check_close(name, t, fd_dir(w_all, z, v, N + 1, nullptr), 1e-6, 1e-9);
  }
  return test_exit();
}
