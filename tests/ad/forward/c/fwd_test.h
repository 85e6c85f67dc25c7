/* Helpers for the forward-mode (__enzyme_fwddiff) test programs, on top of the
 * reverse-mode programs' enzyme_test.h (compile with -I tests/ad/c).
 *
 * A jvp is checked against the central difference of the primal along the
 * tangent direction: (f(x + h v) - f(x - h v)) / (2 h).
 */
#ifndef FWD_TEST_H
#define FWD_TEST_H

#include "enzyme_test.h"

extern int enzyme_width;

ET_HELPER int fd_step_dir_guard(int n) {
  if (n <= ET_FD_MAX) return 1;
  printf("FAIL fd_dir n=%d too large\n", n);
  et_failures++;
  return 0;
}

/* Step along direction v at point x (n values). */
ET_HELPER double fd_dir_step(const double *x, int n) {
  double m = 1.0;
  for (int i = 0; i < n; i++)
    if (fabs(x[i]) > m) m = fabs(x[i]);
  return 1e-6 * m;
}

/* d/dt f(x + t v) at t = 0 for a scalar function of an array. */
ET_HELPER double fd_dir(fd_array_fn f, const double *x, const double *v, int n, void *ctx) {
  double xp[ET_FD_MAX], xm[ET_FD_MAX];
  double h = fd_step_dir_guard(n) ? fd_dir_step(x, n) : 0.0;
  for (int i = 0; i < n; i++) {
    xp[i] = x[i] + h * v[i];
    xm[i] = x[i] - h * v[i];
  }
  return (f(xp, ctx) - f(xm, ctx)) / (2 * h);
}

/* An array-valued function: writes m outputs from n inputs. */
typedef void (*fd_vec_fn)(const double *x, double *out, void *ctx);

/* d/dt g(x + t v) at t = 0 into out_t (m values). */
ET_HELPER void fd_dir_vec(fd_vec_fn g, const double *x, const double *v, int n, double *out_t,
                          int m, void *ctx) {
  double xp[ET_FD_MAX], xm[ET_FD_MAX], op[ET_FD_MAX], om[ET_FD_MAX];
  double h = fd_step_dir_guard(n) && m <= ET_FD_MAX ? fd_dir_step(x, n) : 0.0;
  for (int i = 0; i < n; i++) {
    xp[i] = x[i] + h * v[i];
    xm[i] = x[i] - h * v[i];
  }
  g(xp, op, ctx);
  g(xm, om, ctx);
  for (int i = 0; i < m; i++) out_t[i] = (op[i] - om[i]) / (2 * h);
}

/* Float version of fd_dir: f evaluates in float with the larger float step; the
 * quotient is taken in double. */
ET_HELPER double fd_dir_f(fd_array_fn_f f, const float *x, const float *v, int n, void *ctx) {
  float xp[ET_FD_MAX], xm[ET_FD_MAX];
  double m = 1.0;
  for (int i = 0; i < n && i < ET_FD_MAX; i++)
    if (fabs(x[i]) > m) m = fabs(x[i]);
  double h = fd_step_dir_guard(n) ? 1e-3 * m : 0.0;
  for (int i = 0; i < n; i++) {
    xp[i] = (float)(x[i] + h * v[i]);
    xm[i] = (float)(x[i] - h * v[i]);
  }
  return ((double)f(xp, ctx) - (double)f(xm, ctx)) / (2 * h);
}

/* <g, v>: the directional derivative that a gradient g predicts along v. */
ET_HELPER double dot_dir(const double *g, const double *v, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++) s += g[i] * v[i];
  return s;
}

#endif /* FWD_TEST_H */
