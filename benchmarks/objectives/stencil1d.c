/* 1-D stencil objective: explicit heat equation with variable diffusivity kappa,
 *   u_i <- u_i + r kappa_i (u_{i-1} - 2 u_i + u_{i+1}),  i = 1 .. n-2,
 * steps (even) time steps ping-ponging between two work buffers; the loss is w . u.
 * Same operations, same order as benchmarks/objectives/stencil1d.py. */
#include <stdint.h>
#include <stdlib.h>

extern int enzyme_dup, enzyme_const, enzyme_out;
extern double __enzyme_autodiff(void *, ...);

static void step1d(const double *src, double *dst, const double *kappa, double r,
                   int64_t n) {
  for (int64_t i = 1; i < n - 1; i++)
    dst[i] = src[i] + r * kappa[i] * (src[i - 1] - 2.0 * src[i] + src[i + 1]);
}

double stencil1d_primal(const double *u0, const double *kappa, const double *w, double r,
                        int64_t n, int64_t steps) {
  double *u = malloc(n * sizeof(double)), *v = malloc(n * sizeof(double));
  for (int64_t i = 0; i < n; i++) {
    u[i] = u0[i];
    v[i] = u0[i];
  }
  for (int64_t t = 0; t < steps / 2; t++) {
    step1d(u, v, kappa, r, n);
    step1d(v, u, kappa, r, n);
  }
  double s = 0.0;
  for (int64_t i = 0; i < n; i++) s += w[i] * u[i];
  free(u);
  free(v);
  return s;
}

/* d_u0 and d_kappa (zeroed by the caller) receive the gradient. */
void stencil1d_gradient(const double *u0, const double *kappa, const double *w, double r,
                        int64_t n, int64_t steps, double *d_u0, double *d_kappa) {
  __enzyme_autodiff((void *)stencil1d_primal, enzyme_dup, u0, d_u0, enzyme_dup, kappa,
                    d_kappa, enzyme_const, w, enzyme_const, r, enzyme_const, n,
                    enzyme_const, steps);
}
