// std::array<double, N>: passed by const reference (dup), a local std::array
// of intermediate values, range-for loops and .size().
#include "enzyme_test.h"
#include <array>

extern "C" double __enzyme_autodiff(void *, ...);

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

#ifdef REFERENCE_GRADIENT
static void ref_grad_loss(const arr &a, arr &da) {
  arr s = smooth(a);
  for (size_t i = 0; i < N; i++) {
    double g = exp(0.3 * s[i]) * (1.0 + 0.3 * s[i]);
    da[i] += 0.5 * g;
    da[(i + 1) % N] += 0.25 * g;
    da[(i + N - 1) % N] += 0.25 * g;
  }
}
#endif

static void grad_loss(const arr &a, arr &da) {
#ifdef REFERENCE_GRADIENT
  ref_grad_loss(a, da);
#else
  __enzyme_autodiff((void *)loss, enzyme_dup, &a, &da);
#endif
}

static double w_a(const double *x, void *) {
  arr a;
  for (int i = 0; i < N; i++) a[i] = x[i];
  return loss(a);
}

int main() {
  rng_seed(206);
  arr a, da{};
  rng_fill(a.data(), N, -1.5, 1.5);
  double fd[N];
  grad_loss(a, da);
  fd_grad_array(w_a, a.data(), N, nullptr, fd);
  check_array("std_array_da", da.data(), fd, N, 1e-6, 1e-9);
  return test_exit();
}
