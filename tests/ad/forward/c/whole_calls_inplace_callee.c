/* Forward mode of tests/ad/whole/c/calls_inplace_callee.c: u is relaxed, scaled and relaxed
 * again in place by noinline callees, then reduced; the tangent of the overwritten u (its
 * shadow, updated in place) is checked as well as the tangent of the result. */
#include "fwd_test.h"
#include <string.h>

double __enzyme_fwddiff(void *, ...);

__attribute__((noinline)) void relax(double *u, const double *k, int n) {
  for (int i = 0; i < n; i++) u[i] = u[i] + k[i] * sin(u[i]);
}
__attribute__((noinline)) void scale_inplace(double *u, double s, int n) {
  for (int i = 0; i < n; i++) u[i] *= s;
}
__attribute__((noinline)) double energy(const double *u, int n) {
  double e = 0.0;
  for (int i = 0; i < n; i++) e += u[i] * u[i];
  return e;
}
__attribute__((noinline)) double loss(double *u, const double *k, double s, int n) {
  relax(u, k, n);
  scale_inplace(u, s, n);
  relax(u, k, n);
  return energy(u, n);
}

enum { N = 10 };
static double u0[N], ks[N], s0 = 1.3;
/* f(u, s) with both in one array: x = (u[0..N-1], s) */
static double w_us(const double *x, void *c) {
  (void)c;
  double uu[N];
  memcpy(uu, x, sizeof uu);
  return loss(uu, ks, x[N], N);
}
static void w_u_out(const double *x, double *out, void *c) {
  (void)c;
  memcpy(out, x, sizeof(double) * N);
  loss(out, ks, x[N], N);
}

int main(void) {
  double u[N], du[N], x[N + 1], v[N + 1], fdu[N], uref[N];
  char name[64];
  rng_seed(103);
  rng_fill(u0, N, -1.0, 1.0);
  rng_fill(ks, N, -0.5, 0.5);
  memcpy(x, u0, sizeof u0);
  x[N] = s0;
  for (int d = 0; d < 2; d++) {
    rng_fill(v, N + 1, -1.0, 1.0);
    memcpy(u, u0, sizeof u);
    memcpy(du, v, sizeof du);
    memcpy(uref, u0, sizeof uref);
    loss(uref, ks, s0, N);
    double t = __enzyme_fwddiff((void *)loss, enzyme_dup, u, du, enzyme_const, ks,
                                enzyme_dup, s0, v[N], enzyme_const, N);
    snprintf(name, sizeof name, "inplace_jvp_%d", d);
    check_close(name, t, fd_dir(w_us, x, v, N + 1, NULL), 1e-6, 1e-9);
    fd_dir_vec(w_u_out, x, v, N + 1, fdu, N, NULL);
    snprintf(name, sizeof name, "inplace_du_%d", d);
    check_array(name, du, fdu, N, 1e-6, 1e-9);
    snprintf(name, sizeof name, "inplace_primal_u_%d", d);
    check_array(name, u, uref, N, 1e-12, 1e-14);
  }
  return test_exit();
}
