// Forward mode of tests/ad/whole/cpp/template_recursion.cpp: compile-time recursion through
// templates (Horner<N>::eval instantiates N nested noinline functions) and a variadic
// template sum; coefficients and x vary together.
#include "fwd_test.h"

extern "C" double __enzyme_fwddiff(void *, ...);

template <int N>
struct Horner {
  __attribute__((noinline)) static double eval(const double *c, double x) {
    return c[0] + x * Horner<N - 1>::eval(c + 1, x);
  }
};
template <>
struct Horner<1> {
  __attribute__((noinline)) static double eval(const double *c, double) { return c[0]; }
};

template <typename T>
T vsum(T a) { return a; }
template <typename T, typename... R>
T vsum(T a, R... rest) { return a + vsum(rest...); }

__attribute__((noinline)) double loss(const double *c, double x) {
  double p = Horner<6>::eval(c, x);
  return vsum(p * p, sin(p), x * p);
}

static double w_all(const double *z, void *) { return loss(z, z[6]); }

int main() {
  double z[7], v[7];
  char name[64];
  rng_seed(217);
  rng_fill(z, 6, -1.0, 1.0);
  z[6] = 0.7;
  for (int d = 0; d < 2; d++) {
    rng_fill(v, 7, -1.0, 1.0);
    double t = __enzyme_fwddiff((void *)loss, enzyme_dup, z, v, enzyme_dup, z[6], v[6]);
    snprintf(name, sizeof name, "template_recursion_jvp_%d", d);
    check_close(name, t, fd_dir(w_all, z, v, 7, nullptr), 1e-6, 1e-9);
  }
  return test_exit();
}
