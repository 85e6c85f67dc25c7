/* A 40-byte struct passed BY VALUE to a noinline callee (byval on x86-64):
 * model(p, t) = a exp(-b t) + c sin(d t + e); least squares over data, the
 * parameter struct is dup (shadow struct). */
#include "enzyme_test.h"

double __enzyme_autodiff(void *, ...);

typedef struct {
  double a, b, c, d, e;
} params;

__attribute__((noinline)) double model(params p, double t) {
  return p.a * exp(-p.b * t) + p.c * sin(p.d * t + p.e);
}
__attribute__((noinline)) double loss(const params *pp, const double *t, const double *y, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++) {
    double r = model(*pp, t[i]) - y[i];
    s += r * r;
  }
  return s;
}

#ifdef REFERENCE_GRADIENT
static void ref_grad_loss(const params *p, params *dp, const double *t, const double *y, int n) {
  for (int i = 0; i < n; i++) {
    double e = exp(-p->b * t[i]), ph = p->d * t[i] + p->e;
    double r = p->a * e + p->c * sin(ph) - y[i], g = 2.0 * r;
    dp->a += g * e;
    dp->b += g * p->a * e * (-t[i]);
    dp->c += g * sin(ph);
    dp->d += g * p->c * cos(ph) * t[i];
    dp->e += g * p->c * cos(ph);
  }
}
#endif

static void grad_loss(const params *p, params *dp, const double *t, const double *y, int n) {
#ifdef REFERENCE_GRADIENT
  ref_grad_loss(p, dp, t, y, n);
#else
  __enzyme_autodiff((void *)loss, enzyme_dup, p, dp, enzyme_const, t, enzyme_const, y,
                    enzyme_const, n);
#endif
}

enum { N = 12 };
static double ts[N], ys[N];
static double w_p(const double *flat, void *c) {
  (void)c;
  params p;
  memcpy(&p, flat, sizeof p);
  return loss(&p, ts, ys, N);
}

int main(void) {
  params p = {1.2, 0.7, 0.5, 2.1, 0.3}, dp = {0, 0, 0, 0, 0};
  double fd[5];
  rng_seed(122);
  rng_fill(ts, N, 0.0, 3.0);
  rng_fill(ys, N, -1.0, 1.0);
  grad_loss(&p, &dp, ts, ys, N);
  fd_grad_array(w_p, (const double *)&p, 5, NULL, fd);
  check_array("byval_dp", (const double *)&dp, fd, 5, 1e-6, 1e-9);
  return test_exit();
}
