/* RK4 integration of a damped pendulum: tangents with respect to the initial
 * state and the damping parameter through many steps. */
#include "fwd_test.h"

void __enzyme_fwddiff(void *, ...);

static void rhs(double th, double om, double c, double *dth, double *dom) {
  *dth = om;
  *dom = -c * om - sin(th);
}

__attribute__((noinline)) void integrate(const double *y0, double c, double *y, int steps) {
  double th = y0[0], om = y0[1], h = 0.05;
  for (int s = 0; s < steps; s++) {
    double k1t, k1o, k2t, k2o, k3t, k3o, k4t, k4o;
    rhs(th, om, c, &k1t, &k1o);
    rhs(th + 0.5 * h * k1t, om + 0.5 * h * k1o, c, &k2t, &k2o);
    rhs(th + 0.5 * h * k2t, om + 0.5 * h * k2o, c, &k3t, &k3o);
    rhs(th + h * k3t, om + h * k3o, c, &k4t, &k4o);
    th += h / 6.0 * (k1t + 2 * k2t + 2 * k3t + k4t);
    om += h / 6.0 * (k1o + 2 * k2o + 2 * k3o + k4o);
  }
  y[0] = th;
  y[1] = om;
}

enum { STEPS = 60 };
static void w_int(const double *v, double *out, void *ctx) {
  (void)ctx;
  integrate(v, v[2], out, STEPS);
}

int main(void) {
  double p[3] = {1.1, -0.3, 0.4}, v[3] = {0.2, 1.0, -0.7};
  double y[2], dy[2], want[2];
  __enzyme_fwddiff((void *)integrate, enzyme_dup, p, v, enzyme_dup, p[2], v[2], enzyme_dup, y,
                   dy, enzyme_const, STEPS);
  fd_dir_vec(w_int, p, v, 3, want, 2, NULL);
  check_array("rk4_dy", dy, want, 2, 1e-6, 1e-9);
  return test_exit();
}
