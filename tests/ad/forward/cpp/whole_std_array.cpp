// Forward mode of tests/ad/whole/cpp/std_array.cpp: std::array<double, N> passed by const
// reference (dup), a local std::array returned by a noinline smoother, range-for, .size().
#include "fwd_test.h"
#include <array>

extern "C" double __enzyme_fwddiff(void *, ...);

enum { N = 8 };
using arr = std::array<double, N>;

__attribute__((noinline)) arr smooth(const arr &a) {
  arr r;
  for (size_t i = 0; i < a.size(); i++) r[i] = 0.5 * a[i] + 0.25 * (a[(i + 1) % N] + a[(i + N - 1) % N]);
  return r;
}
__attribute__((noinline)) double loss(const arr &a) {
  arr s = smooth(a);
  double t = 0.0;
  for (double v : s) t += exp(0.3 * v) * v;
  return t;
}

static double w_a(const double *x, void *) {
  arr a;
  for (int i = 0; i < N; i++) a[i] = x[i];
  return loss(a);
}

int main() {
  char name[64];
  rng_seed(206);
  arr a, da;
  rng_fill(a.data(), N, -1.5, 1.5);
  for (int d = 0; d < 2; d++) {
    rng_fill(da.data(), N, -1.0, 1.0);
    double t = __enzyme_fwddiff((void *)loss, enzyme_dup, &a, &da);
    snprintf(name, sizeof name, "std_array_jvp_%d", d);
    check_close(name, t, fd_dir(w_a, a.data(), da.data(), N, nullptr), 1e-6, 1e-9);
  }
  return test_exit();
}
