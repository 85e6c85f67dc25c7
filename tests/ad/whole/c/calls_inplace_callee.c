/* In-place updates inside noinline callees: u is relaxed, scaled and relaxed
 * again in place, then reduced.  On exit du holds the adjoint of the
 * original u (Enzyme semantics for an overwritten dup argument). */
#include "enzyme_test.h"

double __enzyme_autodiff(void *, ...);

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

#ifdef REFERENCE_GRADIENT
static double ref_grad_loss(double *u, double *du, const double *k, double s, int n) {
  double ds = 0.0;
  for (int i = 0; i < n; i++) {
    double u1 = u[i] + k[i] * sin(u[i]);
    double u2 = s * u1;
    double u3 = u2 + k[i] * sin(u2);
    double g3 = 2.0 * u3 + du[i]; /* du seeds the final u */
    double g2 = g3 * (1.0 + k[i] * cos(u2));
    ds += g2 * u1;
    du[i] = g2 * s * (1.0 + k[i] * cos(u[i]));
    u[i] = u3;
  }
  return ds;
}
#endif

static double grad_loss(double *u, double *du, const double *k, double s, int n) {
#ifdef REFERENCE_GRADIENT
  return ref_grad_loss(u, du, k, s, n);
#else
  return __enzyme_autodiff((void *)loss, enzyme_dup, u, du, enzyme_const, k, enzyme_out, s,
                           enzyme_const, n);
#endif
}

enum { N = 10 };
static double u0[N], ks[N], s0 = 1.3;
static double w_u(const double *u, void *c) {
  (void)c;
  double uu[N];
  memcpy(uu, u, sizeof uu);
  return loss(uu, ks, s0, N);
}
static double w_s(double s, void *c) {
  (void)c;
  double uu[N];
  memcpy(uu, u0, sizeof uu);
  return loss(uu, ks, s, N);
}

int main(void) {
  double u[N], du[N], fd[N], uref[N];
  rng_seed(103);
  rng_fill(u0, N, -1.0, 1.0);
  rng_fill(ks, N, -0.5, 0.5);
  memcpy(u, u0, sizeof u);
  memcpy(uref, u0, sizeof u);
  loss(uref, ks, s0, N);
  zero_array(du, N);
  double ds = grad_loss(u, du, ks, s0, N);
  fd_grad_array(w_u, u0, N, NULL, fd);
  check_array("inplace_du", du, fd, N, 1e-6, 1e-9);
  check_close("inplace_ds", ds, fd_deriv(w_s, s0, NULL), 1e-6, 1e-9);
  check_array("inplace_primal_u", u, uref, N, 1e-12, 1e-14);
  return test_exit();
}
