/* Bisection-style search with a data-dependent while loop (find the table
 * interval containing x), then linear interpolation.  x is an enzyme_out
 * scalar, the knots an enzyme_const array, the values dup: mixes an active
 * scalar result with array shadows.
 *
 * Forward mode (-DFORWARD_MODE): a data-dependent
 * bisection while loop then linear interpolation; x and the values carry
 * tangents, the knots are enzyme_const. */
#include "kernel_test.h"

__attribute__((noinline)) double interp(double x, const double *t, const double *v, int n) {
  int lo = 0, hi = n - 1;
  while (hi - lo > 1) {
    int mid = (lo + hi) / 2;
    if (t[mid] <= x)
      lo = mid;
    else
      hi = mid;
  }
  double s = (x - t[lo]) / (t[hi] - t[lo]);
  return v[lo] + s * (v[hi] - v[lo]) + 0.1 * x * x;
}

#ifdef FORWARD_MODE
double __enzyme_fwddiff(void *, ...);

enum { N = 13 };
static double tk[N];
/* p = x, v[0..N) */
static double w_interp(const double *p, void *ctx) { (void)ctx; return interp(p[0], tk, p + 1, N); }

int main(void) {
  double p[N + 1], d[N + 1];
  rng_seed(13);
  tk[0] = 0.0;
  for (int i = 1; i < N; i++) tk[i] = tk[i - 1] + rng_uniform(0.5, 1.5);
  rng_fill(p + 1, N, -2.0, 2.0);
  char name[64];
  for (int k = 0; k < 5; k++) {
    int seg = 1 + 2 * k;
    p[0] = tk[seg] + 0.37 * (tk[seg + 1] - tk[seg]);
    rng_fill(d, N + 1, -1.0, 1.0);
    double t = __enzyme_fwddiff((void *)interp, enzyme_dup, p[0], d[0], enzyme_const, tk,
                                enzyme_dup, p + 1, d + 1, enzyme_const, N);
    snprintf(name, sizeof name, "interp_jvp_%d", k);
    check_close(name, t, fd_dir(w_interp, p, d, N + 1, NULL), 1e-6, 1e-8);
  }
  return test_exit();
}

#else /* reverse mode */
double __enzyme_autodiff(void *, ...);

#ifdef REFERENCE_GRADIENT
static double ref_grad_interp(double x, const double *t, const double *v, double *dv, int n) {
  int lo = 0, hi = n - 1;
  while (hi - lo > 1) {
    int mid = (lo + hi) / 2;
    if (t[mid] <= x) lo = mid; else hi = mid;
  }
  double s = (x - t[lo]) / (t[hi] - t[lo]);
  dv[lo] += 1.0 - s;
  dv[hi] += s;
  return (v[hi] - v[lo]) / (t[hi] - t[lo]) + 0.2 * x;
}
#endif

static double grad_interp(double x, const double *t, const double *v, double *dv, int n) {
#ifdef REFERENCE_GRADIENT
  return ref_grad_interp(x, t, v, dv, n);
#else
  return __enzyme_autodiff((void *)interp, enzyme_out, x, enzyme_const, t, enzyme_dup, v, dv,
                           enzyme_const, n);
#endif
}

enum { N = 13 };
static double tk[N], vk[N];
static double w_x(double x, void *ctx) { (void)ctx; return interp(x, tk, vk, N); }
static double w_v(const double *v, void *ctx) { return interp(*(double *)ctx, tk, v, N); }

int main(void) {
  double dv[N], fd[N];
  rng_seed(13);
  tk[0] = 0.0;
  for (int i = 1; i < N; i++) tk[i] = tk[i - 1] + rng_uniform(0.5, 1.5);
  rng_fill(vk, N, -2.0, 2.0);
  char name[64];
  for (int k = 0; k < 5; k++) {
    int seg = 1 + 2 * k;
    double x = tk[seg] + 0.37 * (tk[seg + 1] - tk[seg]);
    zero_array(dv, N);
    double dx = grad_interp(x, tk, vk, dv, N);
    snprintf(name, sizeof name, "interp_dx_%d", k);
    check_close(name, dx, fd_deriv(w_x, x, NULL), 1e-6, 1e-8);
    fd_grad_array(w_v, vk, N, &x, fd);
    snprintf(name, sizeof name, "interp_dv_%d", k);
    check_array(name, dv, fd, N, 1e-6, 1e-8);
  }
  return test_exit();
}
#endif /* FORWARD_MODE */
