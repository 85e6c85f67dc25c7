/* 1-D explicit heat equation with zero Dirichlet boundaries, iterated in time with two
 * caller-owned buffers whose roles swap every step (in-place updates: each step
 * overwrites the state of two steps ago).  Returns the energy sum u^2 of the final
 * state; gradient w.r.t. the initial state u (dup; v is dup scratch) and the
 * diffusion coefficient alpha (out). */
double heat(double *u, double *v, double alpha, int n, int steps) {
  for (int t = 0; t < steps; t++) {
    v[0] = 0.0;
    v[n - 1] = 0.0;
    for (int i = 1; i < n - 1; i++)
      v[i] = u[i] + alpha * (u[i - 1] - 2.0 * u[i] + u[i + 1]);
    double *tmp = u;
    u = v;
    v = tmp;
  }
  double s = 0.0;
  for (int i = 0; i < n; i++) s += u[i] * u[i];
  return s;
}
