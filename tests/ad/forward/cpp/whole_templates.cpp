// Forward mode of tests/ad/whole/cpp/templates.cpp: a class template Poly<T, N> with
// operator(), a function template taking any callable, and a differentiated function that is
// a template instantiation; coefficients and points vary together.
#include "fwd_test.h"

extern "C" double __enzyme_fwddiff(void *, ...);

template <typename T, int N>
struct Poly {
  T c[N];
  T operator()(T x) const {
    T r = c[N - 1];
    for (int i = N - 2; i >= 0; i--) r = r * x + c[i];
    return r;
  }
};

template <typename F>
__attribute__((noinline)) double apply_sum(const F &f, const double *x, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++) s += f(x[i]);
  return s;
}

template <int N>
__attribute__((noinline)) double loss(const Poly<double, N> *p, const double *x, int n) {
  double s = apply_sum(*p, x, n);
  return s * s / n;
}

enum { DEG = 4, M = 6, P = DEG + M };
static double w_all(const double *z, void *) {
  Poly<double, DEG> p;
  for (int k = 0; k < DEG; k++) p.c[k] = z[k];
  return loss<DEG>(&p, z + DEG, M);
}

int main() {
  double z[P], v[P];
  char name[64];
  rng_seed(203);
  rng_fill(z, DEG, -0.8, 0.8);
  rng_fill(z + DEG, M, -1.2, 1.2);
  for (int d = 0; d < 2; d++) {
    rng_fill(v, P, -1.0, 1.0);
    Poly<double, DEG> p, dp;
    for (int k = 0; k < DEG; k++) { p.c[k] = z[k]; dp.c[k] = v[k]; }
    double t = __enzyme_fwddiff((void *)loss<DEG>, enzyme_dup, &p, &dp, enzyme_dup, z + DEG,
                                v + DEG, enzyme_const, M);
    snprintf(name, sizeof name, "template_poly_jvp_%d", d);
    check_close(name, t, fd_dir(w_all, z, v, P, nullptr), 1e-6, 1e-9);
  }
  return test_exit();
}
