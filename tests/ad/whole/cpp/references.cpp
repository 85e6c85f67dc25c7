// C++ references: the differentiated function takes double & (updated in
// place), const double & and a const reference to a struct; noinline helpers
// take references too.
#include "enzyme_test.h"

extern "C" double __enzyme_autodiff(void *, ...);

struct Pair {
  double lo, hi;
};

__attribute__((noinline)) void blend(double &acc, const double &v, const Pair &p) {
  acc = acc * p.lo + sin(v) * p.hi;
}
__attribute__((noinline)) double loss(double &acc, const double &k, const Pair &p,
                                      const double *x, int n) {
  for (int i = 0; i < n; i++) {
    double v = k * x[i];
    blend(acc, v, p);
  }
  return acc * acc;
}

#ifdef REFERENCE_GRADIENT
static void ref_grad_loss(double &acc, double &dacc, const double &k, double &dk, const Pair &p,
                          Pair &dp, const double *x, int n) {
  double a[64];
  a[0] = acc;
  for (int i = 0; i < n; i++) a[i + 1] = a[i] * p.lo + sin(k * x[i]) * p.hi;
  double g = 2.0 * a[n] + dacc; // dacc seeds the final acc
  for (int i = n - 1; i >= 0; i--) {
    dp.lo += g * a[i];
    dp.hi += g * sin(k * x[i]);
    dk += g * p.hi * cos(k * x[i]) * x[i];
    g *= p.lo;
  }
  dacc = g;
  acc = a[n];
}
#endif

static void grad_loss(double &acc, double &dacc, const double &k, double &dk, const Pair &p,
                      Pair &dp, const double *x, int n) {
#ifdef REFERENCE_GRADIENT
  ref_grad_loss(acc, dacc, k, dk, p, dp, x, n);
#else
  __enzyme_autodiff((void *)loss, enzyme_dup, &acc, &dacc, enzyme_dup, &k, &dk, enzyme_dup, &p,
                    &dp, enzyme_const, x, enzyme_const, n);
#endif
}

enum { N = 7 };
static double xs[N];
static double w_all(const double *v, void *) {
  double acc = v[0], k = v[1];
  Pair p{v[2], v[3]};
  return loss(acc, k, p, xs, N);
}

int main() {
  rng_seed(202);
  rng_fill(xs, N, -1.0, 1.0);
  double acc = 0.4, k = 1.3, dacc = 0.0, dk = 0.0;
  Pair p{0.7, 0.9}, dp{0.0, 0.0};
  double v[4] = {acc, k, p.lo, p.hi}, fd[4];
  grad_loss(acc, dacc, k, dk, p, dp, xs, N);
  fd_grad_array(w_all, v, 4, nullptr, fd);
  double got[4] = {dacc, dk, dp.lo, dp.hi};
  check_array("references_grad", got, fd, 4, 1e-6, 1e-9);
  return test_exit();
}
