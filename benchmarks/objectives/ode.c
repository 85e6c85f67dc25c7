/* ODE objective: classical RK4 on the Lotka-Volterra system
 *   x' = a x - b x y,   y' = d x y - c y,   p = {a, b, c, d}
 * from y0 over nsteps steps of size h; the loss is the squared distance of the final
 * state to target.  Same operations, same order as benchmarks/objectives/ode.py. */
#include <stdint.h>

extern int enzyme_dup, enzyme_const, enzyme_out;
extern double __enzyme_autodiff(void *, ...);

double ode_primal(const double *p, const double *y0, const double *target, double h,
                  int64_t nsteps) {
  double a = p[0], b = p[1], c = p[2], d = p[3];
  double x = y0[0], y = y0[1];
  for (int64_t s = 0; s < nsteps; s++) {
    double k1x = a * x - b * x * y, k1y = d * x * y - c * y;
    double x2 = x + 0.5 * h * k1x, y2 = y + 0.5 * h * k1y;
    double k2x = a * x2 - b * x2 * y2, k2y = d * x2 * y2 - c * y2;
    double x3 = x + 0.5 * h * k2x, y3 = y + 0.5 * h * k2y;
    double k3x = a * x3 - b * x3 * y3, k3y = d * x3 * y3 - c * y3;
    double x4 = x + h * k3x, y4 = y + h * k3y;
    double k4x = a * x4 - b * x4 * y4, k4y = d * x4 * y4 - c * y4;
    x = x + h / 6.0 * (k1x + 2.0 * k2x + 2.0 * k3x + k4x);
    y = y + h / 6.0 * (k1y + 2.0 * k2y + 2.0 * k3y + k4y);
  }
  double ex = x - target[0], ey = y - target[1];
  return ex * ex + ey * ey;
}

/* d_p (zeroed by the caller) receives the gradient with respect to p. */
void ode_gradient(const double *p, const double *y0, const double *target, double h,
                  int64_t nsteps, double *d_p) {
  __enzyme_autodiff((void *)ode_primal, enzyme_dup, p, d_p, enzyme_const, y0, enzyme_const,
                    target, enzyme_const, h, enzyme_const, nsteps);
}
