/* Dot-of-transcendentals objective: sum_i sin(x_i) cos(y_i) exp(-x_i^2), summed in index
 * order.  Same operations, same order as benchmarks/objectives/dotsin.py. */
#include <math.h>
#include <stdint.h>

extern int enzyme_dup, enzyme_const, enzyme_out;
extern double __enzyme_autodiff(void *, ...);

double dotsin_primal(const double *x, const double *y, int64_t n) {
  double s = 0.0;
  for (int64_t i = 0; i < n; i++) s += sin(x[i]) * cos(y[i]) * exp(-(x[i] * x[i]));
  return s;
}

/* d_x and d_y (zeroed by the caller) receive the gradient. */
void dotsin_gradient(const double *x, const double *y, int64_t n, double *d_x, double *d_y) {
  __enzyme_autodiff((void *)dotsin_primal, enzyme_dup, x, d_x, enzyme_dup, y, d_y,
                    enzyme_const, n);
}
