/* Classical RK4 for the Lotka-Volterra system
 *   x' = a x - b x y,   y' = d x y - c y
 * over nsteps steps of size h.  The final state goes to the dup output yT (seeded);
 * gradient w.r.t. the initial state y0 (dup) and the prey growth rate a (out);
 * the other rates p = {b, c, d} are const. */
#define FX(x, y) (a * (x) - p[0] * (x) * (y))
#define FY(x, y) (p[2] * (x) * (y) - p[1] * (y))

void lv_rk4(const double *y0, double *yT, double a, const double *p, double h,
            int nsteps) {
  double x = y0[0], y = y0[1];
  for (int s = 0; s < nsteps; s++) {
    double k1x = FX(x, y), k1y = FY(x, y);
    double x2 = x + 0.5 * h * k1x, y2 = y + 0.5 * h * k1y;
    double k2x = FX(x2, y2), k2y = FY(x2, y2);
    double x3 = x + 0.5 * h * k2x, y3 = y + 0.5 * h * k2y;
    double k3x = FX(x3, y3), k3y = FY(x3, y3);
    double x4 = x + h * k3x, y4 = y + h * k3y;
    double k4x = FX(x4, y4), k4y = FY(x4, y4);
    x += h / 6.0 * (k1x + 2.0 * k2x + 2.0 * k3x + k4x);
    y += h / 6.0 * (k1y + 2.0 * k2y + 2.0 * k3y + k4y);
  }
  yT[0] = x;
  yT[1] = y;
}
