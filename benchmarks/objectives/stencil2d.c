/* 2-D stencil objective: explicit heat equation with variable diffusivity kappa on the
 * interior of an n x n grid,
 *   u_ij <- u_ij + r kappa_ij (u_{i-1,j} + u_{i+1,j} + u_{i,j-1} + u_{i,j+1} - 4 u_ij),
 * steps (even) time steps ping-ponging between two work buffers; the loss is sum(w * u).
 * Same operations, same order as benchmarks/objectives/stencil2d.py. */
#include <stdint.h>
#include <stdlib.h>

extern int enzyme_dup, enzyme_const, enzyme_out;
extern double __enzyme_autodiff(void *, ...);

static void step2d(const double *src, double *dst, const double *kappa, double r,
                   int64_t n) {
  for (int64_t i = 1; i < n - 1; i++)
    for (int64_t j = 1; j < n - 1; j++) {
      int64_t k = i * n + j;
      dst[k] = src[k] + r * kappa[k] *
               (src[k - n] + src[k + n] + src[k - 1] + src[k + 1] - 4.0 * src[k]);
    }
}

double stencil2d_primal(const double *u0, const double *kappa, const double *w, double r,
                        int64_t n, int64_t steps) {
  double *u = malloc(n * n * sizeof(double)), *v = malloc(n * n * sizeof(double));
  for (int64_t k = 0; k < n * n; k++) {
    u[k] = u0[k];
    v[k] = u0[k];
  }
  for (int64_t t = 0; t < steps / 2; t++) {
    step2d(u, v, kappa, r, n);
    step2d(v, u, kappa, r, n);
  }
  double s = 0.0;
  for (int64_t k = 0; k < n * n; k++) s += w[k] * u[k];
  free(u);
  free(v);
  return s;
}

/* d_u0 and d_kappa (n x n, zeroed by the caller) receive the gradient. */
void stencil2d_gradient(const double *u0, const double *kappa, const double *w, double r,
                        int64_t n, int64_t steps, double *d_u0, double *d_kappa) {
  __enzyme_autodiff((void *)stencil2d_primal, enzyme_dup, u0, d_u0, enzyme_dup, kappa,
                    d_kappa, enzyme_const, w, enzyme_const, r, enzyme_const, n,
                    enzyme_const, steps);
}
