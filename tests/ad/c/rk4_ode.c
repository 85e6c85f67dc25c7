/* Classical RK4 for the van der Pol oscillator y0' = y1,
 * y1' = mu (1 - y0^2) y1 - y0 over 200 steps.  The final state goes to a dup
 * output array (seeded); the gradient flows to the dup initial state and the
 * enzyme_out parameter mu (returned).
 *
 * Forward mode (-DFORWARD_MODE): classical RK4 for the van der Pol
 * oscillator over 200 steps; tangents on the initial state and on mu land in
 * the shadow of the final state. */
#include "kernel_test.h"

#define RHS1(a, b) (mu * (1.0 - (a) * (a)) * (b) - (a))

__attribute__((noinline)) void rk4_vdp(const double *y0, double *yT, double mu, double h,
                                       int nsteps) {
  double a = y0[0], b = y0[1];
  for (int s = 0; s < nsteps; s++) {
    double k1a = b, k1b = RHS1(a, b);
    double a2 = a + 0.5 * h * k1a, b2 = b + 0.5 * h * k1b;
    double k2a = b2, k2b = RHS1(a2, b2);
    double a3 = a + 0.5 * h * k2a, b3 = b + 0.5 * h * k2b;
    double k3a = b3, k3b = RHS1(a3, b3);
    double a4 = a + h * k3a, b4 = b + h * k3b;
    double k4a = b4, k4b = RHS1(a4, b4);
    a += h / 6.0 * (k1a + 2.0 * k2a + 2.0 * k3a + k4a);
    b += h / 6.0 * (k1b + 2.0 * k2b + 2.0 * k3b + k4b);
  }
  yT[0] = a;
  yT[1] = b;
}

#ifdef FORWARD_MODE
void __enzyme_fwddiff(void *, ...);

enum { NSTEPS = 200 };
static const double H = 0.02;
/* p = y0[0], y0[1], mu */
static void w_rk4(const double *p, double *yT, void *c) {
  (void)c;
  rk4_vdp(p, yT, p[2], H, NSTEPS);
}

int main(void) {
  double p[3] = {1.2, -0.4, 0.8}, v[3], yT[2], dyT[2], want[2];
  char name[32];
  rng_seed(48);
  for (int d = 0; d < 2; d++) {
    rng_fill(v, 3, -1.0, 1.0);
    zero_array(dyT, 2);
    __enzyme_fwddiff((void *)rk4_vdp, enzyme_dup, p, v, enzyme_dup, yT, dyT, enzyme_dup, p[2],
                     v[2], enzyme_const, H, enzyme_const, NSTEPS);
    fd_dir_vec(w_rk4, p, v, 3, want, 2, NULL);
    snprintf(name, sizeof name, "rk4_dyT_%d", d);
    check_array(name, dyT, want, 2, 1e-6, 1e-9);
  }
  return test_exit();
}

#else /* reverse mode */
double __enzyme_autodiff(void *, ...);

#ifdef REFERENCE_GRADIENT
/* tangent of the right-hand side's second component */
#define RHS1_T(a, b, ad, bd) \
  (mud * (1.0 - (a) * (a)) * (b) - 2.0 * mu * (a) * (ad) * (b) + mu * (1.0 - (a) * (a)) * (bd) - (ad))

static void rk4_vdp_tan(const double *y0, const double *y0d, double mu, double mud, double h,
                        int nsteps, double *yTd) {
  double a = y0[0], b = y0[1], ad = y0d[0], bd = y0d[1];
  for (int s = 0; s < nsteps; s++) {
    double k1a = b, k1b = RHS1(a, b);
    double k1ad = bd, k1bd = RHS1_T(a, b, ad, bd);
    double a2 = a + 0.5 * h * k1a, b2 = b + 0.5 * h * k1b;
    double a2d = ad + 0.5 * h * k1ad, b2d = bd + 0.5 * h * k1bd;
    double k2a = b2, k2b = RHS1(a2, b2);
    double k2ad = b2d, k2bd = RHS1_T(a2, b2, a2d, b2d);
    double a3 = a + 0.5 * h * k2a, b3 = b + 0.5 * h * k2b;
    double a3d = ad + 0.5 * h * k2ad, b3d = bd + 0.5 * h * k2bd;
    double k3a = b3, k3b = RHS1(a3, b3);
    double k3ad = b3d, k3bd = RHS1_T(a3, b3, a3d, b3d);
    double a4 = a + h * k3a, b4 = b + h * k3b;
    double a4d = ad + h * k3ad, b4d = bd + h * k3bd;
    double k4a = b4, k4b = RHS1(a4, b4);
    double k4ad = b4d, k4bd = RHS1_T(a4, b4, a4d, b4d);
    a += h / 6.0 * (k1a + 2.0 * k2a + 2.0 * k3a + k4a);
    b += h / 6.0 * (k1b + 2.0 * k2b + 2.0 * k3b + k4b);
    ad += h / 6.0 * (k1ad + 2.0 * k2ad + 2.0 * k3ad + k4ad);
    bd += h / 6.0 * (k1bd + 2.0 * k2bd + 2.0 * k3bd + k4bd);
  }
  yTd[0] = ad;
  yTd[1] = bd;
}

static double ref_grad_rk4(const double *y0, double *dy0, double *yT, double *dyT, double mu,
                           double h, int nsteps) {
  static const double dirs[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
  double g[3];
  for (int j = 0; j < 3; j++) {
    double td[2];
    rk4_vdp_tan(y0, dirs[j], mu, dirs[j][2], h, nsteps, td);
    g[j] = dyT[0] * td[0] + dyT[1] * td[1];
  }
  rk4_vdp(y0, yT, mu, h, nsteps);
  dy0[0] += g[0];
  dy0[1] += g[1];
  dyT[0] = dyT[1] = 0.0;
  return g[2];
}
#endif

static double grad_rk4(const double *y0, double *dy0, double *yT, double *dyT, double mu,
                       double h, int nsteps) {
#ifdef REFERENCE_GRADIENT
  return ref_grad_rk4(y0, dy0, yT, dyT, mu, h, nsteps);
#else
  return __enzyme_autodiff((void *)rk4_vdp, enzyme_dup, y0, dy0, enzyme_dup, yT, dyT,
                           enzyme_out, mu, enzyme_const, h, enzyme_const, nsteps);
#endif
}

enum { NSTEPS = 200 };
static const double H = 0.02;
static double y0b[2] = {1.2, -0.4}, mub = 0.8, seed[2] = {0.7, -1.3};
static double seeded(const double *y0, double mu) {
  double yT[2];
  rk4_vdp(y0, yT, mu, H, NSTEPS);
  return seed[0] * yT[0] + seed[1] * yT[1];
}
static double w_y0(const double *y0, void *c) { (void)c; return seeded(y0, mub); }
static double w_mu(double mu, void *c) { (void)c; return seeded(y0b, mu); }

int main(void) {
  double dy0[2] = {0, 0}, yT[2], dyT[2], fd[2], zeros[2] = {0, 0};
  memcpy(dyT, seed, sizeof dyT);
  double dmu = grad_rk4(y0b, dy0, yT, dyT, mub, H, NSTEPS);
  fd_grad_array(w_y0, y0b, 2, NULL, fd);
  check_array("rk4_dy0", dy0, fd, 2, 1e-6, 1e-9);
  check_close("rk4_dmu", dmu, fd_deriv(w_mu, mub, NULL), 1e-6, 1e-9);
  check_array("rk4_dyT_zeroed", dyT, zeros, 2, 0.0, 0.0);
  return test_exit();
}
#endif /* FORWARD_MODE */
