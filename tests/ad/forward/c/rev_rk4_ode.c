/* Forward mode of tests/ad/c/rk4_ode.c: classical RK4 for the van der Pol
 * oscillator over 200 steps; tangents on the initial state and on mu land in
 * the shadow of the final state. */
#include "fwd_test.h"

void __enzyme_fwddiff(void *, ...);

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
