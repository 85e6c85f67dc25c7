/* In-place updates of a dup array (x[i] = x[i]*x[i], then a pass that reads
 * both updated and not-yet-updated neighbours) followed by a reduction.
 * Enzyme semantics for an overwritten dup argument: on entry d_x seeds the
 * final contents of x, on exit it holds the adjoint of the original x.
 *
 * Forward mode (-DFORWARD_MODE): in-place updates of a dup
 * array followed by a reduction.  In forward mode the shadow of x holds the
 * tangent of the initial x on entry and of the final x on exit. */
#include "kernel_test.h"

__attribute__((noinline)) double sq_inplace(double *x, const double *c, int n) {
  for (int i = 0; i < n; i++) x[i] = x[i] * x[i];
  for (int i = 0; i < n - 1; i++) x[i] = sin(x[i]) + 0.5 * x[i + 1];
  x[n - 1] = x[n - 1] * x[0];
  double s = 0.0;
  for (int i = 0; i < n; i++) s += c[i] * x[i];
  return s;
}

enum { N = 7 };

#ifdef FORWARD_MODE
double __enzyme_fwddiff(void *, ...);

static double cc[N];
static double w_ret(const double *x, void *ctx) {
  (void)ctx;
  double xx[N];
  memcpy(xx, x, sizeof xx);
  return sq_inplace(xx, cc, N);
}
static void w_final(const double *x, double *out, void *ctx) {
  (void)ctx;
  memcpy(out, x, N * sizeof(double));
  sq_inplace(out, cc, N);
}

int main(void) {
  double x0[N], v[N], x[N], dx[N], want[N], xfinal[N];
  rng_seed(14);
  rng_fill(x0, N, -1.2, 1.2);
  rng_fill(cc, N, -1.0, 1.0);
  rng_fill(v, N, -1.0, 1.0);
  memcpy(x, x0, sizeof x);
  memcpy(dx, v, sizeof dx);
  double t = __enzyme_fwddiff((void *)sq_inplace, enzyme_dup, x, dx, enzyme_const, cc,
                              enzyme_const, N);
  check_close("sq_inplace_jvp", t, fd_dir(w_ret, x0, v, N, NULL), 1e-6, 1e-8);
  fd_dir_vec(w_final, x0, v, N, want, N, NULL);
  check_array("sq_inplace_dx_final", dx, want, N, 1e-6, 1e-8);
  w_final(x0, xfinal, NULL);
  check_array("sq_inplace_primal_effect", x, xfinal, N, 1e-12, 1e-14);
  return test_exit();
}

#else /* reverse mode */
void __enzyme_autodiff(void *, ...);

#ifdef REFERENCE_GRADIENT
/* forward-mode tangent of sq_inplace; returns the tangent of the result */
static double sq_inplace_tan(double *x, double *xd, const double *c, int n) {
  for (int i = 0; i < n; i++) { xd[i] = 2.0 * x[i] * xd[i]; x[i] = x[i] * x[i]; }
  for (int i = 0; i < n - 1; i++) {
    xd[i] = cos(x[i]) * xd[i] + 0.5 * xd[i + 1];
    x[i] = sin(x[i]) + 0.5 * x[i + 1];
  }
  xd[n - 1] = xd[n - 1] * x[0] + x[n - 1] * xd[0];
  x[n - 1] = x[n - 1] * x[0];
  double sd = 0.0;
  for (int i = 0; i < n; i++) sd += c[i] * xd[i];
  return sd;
}
static void ref_grad_sq_inplace(double *x, double *dx, const double *c, int n) {
  double g[N], xx[N], xd[N];
  for (int j = 0; j < n; j++) {
    memcpy(xx, x, sizeof(double) * n);
    zero_array(xd, n);
    xd[j] = 1.0;
    double sd = sq_inplace_tan(xx, xd, c, n);
    for (int i = 0; i < n; i++) sd += dx[i] * xd[i]; /* seed on final x */
    g[j] = sd;
  }
  sq_inplace(x, c, n);
  memcpy(dx, g, sizeof(double) * n);
}
#endif

static void grad_sq_inplace(double *x, double *dx, const double *c, int n) {
#ifdef REFERENCE_GRADIENT
  ref_grad_sq_inplace(x, dx, c, n);
#else
  __enzyme_autodiff((void *)sq_inplace, enzyme_dup, x, dx, enzyme_const, c, n);
#endif
}

static double cc[N], wseed[N];
static double w_ret(const double *x, void *ctx) {
  (void)ctx;
  double xx[N];
  memcpy(xx, x, sizeof xx);
  return sq_inplace(xx, cc, N);
}
static double w_ret_and_x(const double *x, void *ctx) {
  (void)ctx;
  double xx[N];
  memcpy(xx, x, sizeof xx);
  double s = sq_inplace(xx, cc, N);
  for (int i = 0; i < N; i++) s += wseed[i] * xx[i];
  return s;
}

int main(void) {
  double x0[N], x[N], dx[N], fd[N], xfinal[N];
  rng_seed(14);
  rng_fill(x0, N, -1.2, 1.2);
  rng_fill(cc, N, -1.0, 1.0);
  rng_fill(wseed, N, -1.0, 1.0);
  /* zero seed on the final x: plain gradient of the return value */
  memcpy(x, x0, sizeof x);
  zero_array(dx, N);
  grad_sq_inplace(x, dx, cc, N);
  fd_grad_array(w_ret, x0, N, NULL, fd);
  check_array("sq_inplace_grad", dx, fd, N, 1e-6, 1e-8);
  memcpy(xfinal, x0, sizeof xfinal);
  sq_inplace(xfinal, cc, N);
  check_array("sq_inplace_primal_effect", x, xfinal, N, 1e-12, 1e-14);
  /* non-zero seed on the final x */
  memcpy(x, x0, sizeof x);
  memcpy(dx, wseed, sizeof dx);
  grad_sq_inplace(x, dx, cc, N);
  fd_grad_array(w_ret_and_x, x0, N, NULL, fd);
  check_array("sq_inplace_grad_seeded", dx, fd, N, 1e-6, 1e-8);
  return test_exit();
}
#endif /* FORWARD_MODE */
