// Compile-time recursion through templates: Horner<N>::eval instantiates
// N nested functions (each noinline), plus a variadic template sum.
#include "enzyme_test.h"

extern "C" double __enzyme_autodiff(void *, ...);

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

#ifdef REFERENCE_GRADIENT
static double ref_grad_loss(const double *c, double *dc, double x) {
  double p = 0.0, dp = 0.0;
  for (int k = 5; k >= 0; k--) { dp = dp * x + p; p = p * x + c[k]; }
  double g = 2.0 * p + cos(p) + x;
  double pw = 1.0;
  for (int k = 0; k < 6; k++) { dc[k] += g * pw; pw *= x; }
  return g * dp + p;
}
#endif

static double grad_loss(const double *c, double *dc, double x) {
#ifdef REFERENCE_GRADIENT
  return ref_grad_loss(c, dc, x);
#else
  return __enzyme_autodiff((void *)loss, enzyme_dup, c, dc, enzyme_out, x);
#endif
}

static double cs[6], x0v = 0.7;
static double w_c(const double *c, void *) { return loss(c, x0v); }
static double w_xv(double x, void *) { return loss(cs, x); }

int main() {
  double dc[6], fd[6];
  rng_seed(217);
  rng_fill(cs, 6, -1.0, 1.0);
  zero_array(dc, 6);
  double dxv = grad_loss(cs, dc, x0v);
  fd_grad_array(w_c, cs, 6, nullptr, fd);
  check_array("template_recursion_dc", dc, fd, 6, 1e-6, 1e-9);
  check_close("template_recursion_dx", dxv, fd_deriv(w_xv, x0v, nullptr), 1e-6, 1e-9);
  return test_exit();
}
