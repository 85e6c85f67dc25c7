// Templates: a class template Poly<T, N> with operator(), a function template
// taking any callable, instantiated for double; the differentiated function is
// a template instantiation too.
#include "enzyme_test.h"

extern "C" double __enzyme_autodiff(void *, ...);

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

enum { DEG = 4, M = 6 };

#ifdef REFERENCE_GRADIENT
static void ref_grad_loss(const Poly<double, DEG> *p, Poly<double, DEG> *dp, const double *x,
                          double *dx, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++) s += (*p)(x[i]);
  double g = 2.0 * s / n;
  for (int i = 0; i < n; i++) {
    double pw = 1.0, d = 0.0;
    for (int k = 0; k < DEG; k++) {
      dp->c[k] += g * pw;
      if (k + 1 < DEG) d += (k + 1) * p->c[k + 1] * pw;
      pw *= x[i];
    }
    dx[i] += g * d;
  }
}
#endif

static void grad_loss(const Poly<double, DEG> *p, Poly<double, DEG> *dp, const double *x,
                      double *dx, int n) {
#ifdef REFERENCE_GRADIENT
  ref_grad_loss(p, dp, x, dx, n);
#else
  __enzyme_autodiff((void *)loss<DEG>, enzyme_dup, p, dp, enzyme_dup, x, dx, enzyme_const, n);
#endif
}

static Poly<double, DEG> p0 = {{0.3, -0.8, 0.5, 0.25}};
static double xs[M];
static double w_c(const double *c, void *) {
  Poly<double, DEG> p;
  for (int k = 0; k < DEG; k++) p.c[k] = c[k];
  return loss<DEG>(&p, xs, M);
}
static double w_x(const double *x, void *) { return loss<DEG>(&p0, x, M); }

int main() {
  rng_seed(203);
  rng_fill(xs, M, -1.2, 1.2);
  Poly<double, DEG> dp = {{0, 0, 0, 0}};
  double dx[M], fdc[DEG], fdx[M];
  zero_array(dx, M);
  grad_loss(&p0, &dp, xs, dx, M);
  fd_grad_array(w_c, p0.c, DEG, nullptr, fdc);
  check_array("template_poly_dc", dp.c, fdc, DEG, 1e-6, 1e-9);
  fd_grad_array(w_x, xs, M, nullptr, fdx);
  check_array("template_poly_dx", dx, fdx, M, 1e-6, 1e-9);
  return test_exit();
}
