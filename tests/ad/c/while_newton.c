/* Newton iteration with a data-dependent exit: the real root of
 * y^3 + p y - q = 0 (p > 0), differentiated w.r.t. p and q (two enzyme_out
 * scalars, struct return).
 *
 * Forward mode (-DFORWARD_MODE): Newton iteration with a
 * data-dependent exit for the real root of y^3 + p y - q = 0, with tangents
 * on p and q. */
#include "kernel_test.h"

__attribute__((noinline)) double cubic_root(double p, double q) {
  double y = q / (p + 1.5); /* never the exact root at the test points */
  int it = 0;
  double g = y * y * y + p * y - q;
  while (fabs(g) > 1e-14 * (1.0 + fabs(q)) && it < 100) {
    y = y - g / (3.0 * y * y + p);
    g = y * y * y + p * y - q;
    it++;
  }
  return y;
}

#ifdef FORWARD_MODE
double __enzyme_fwddiff(void *, ...);

static double w_root(const double *pq, void *ctx) { (void)ctx; return cubic_root(pq[0], pq[1]); }

int main(void) {
  static const double pq[][2] = {{1.0, 2.0}, {0.5, -3.0}, {3.0, 0.7}, {2.0, 10.0}};
  double v[2];
  char name[64];
  rng_seed(50);
  for (int k = 0; k < 4; k++) {
    rng_fill(v, 2, -1.0, 1.0);
    double t = __enzyme_fwddiff((void *)cubic_root, enzyme_dup, pq[k][0], v[0], enzyme_dup,
                                pq[k][1], v[1]);
    snprintf(name, sizeof name, "cubic_root_jvp_%d", k);
    check_close(name, t, fd_dir(w_root, pq[k], v, 2, NULL), 1e-6, 1e-9);
    /* implicit function theorem: dy = (dq - y dp) / (3 y^2 + p) */
    double y = cubic_root(pq[k][0], pq[k][1]);
    snprintf(name, sizeof name, "cubic_root_ift_%d", k);
    check_close(name, t, (v[1] - y * v[0]) / (3.0 * y * y + pq[k][0]), 1e-8, 1e-12);
  }
  return test_exit();
}

#else /* reverse mode */
typedef struct { double dp, dq; } grad2;
grad2 __enzyme_autodiff(void *, ...);

#ifdef REFERENCE_GRADIENT
static grad2 ref_grad_cubic_root(double p, double q) {
  /* implicit function theorem on g(y, p, q) = 0 */
  double y = cubic_root(p, q);
  double gy = 3.0 * y * y + p;
  grad2 r = {-y / gy, 1.0 / gy};
  return r;
}
#endif

static grad2 grad_cubic_root(double p, double q) {
#ifdef REFERENCE_GRADIENT
  return ref_grad_cubic_root(p, q);
#else
  return __enzyme_autodiff((void *)cubic_root, enzyme_out, p, enzyme_out, q);
#endif
}

static double w_p(double p, void *ctx) { return cubic_root(p, *(double *)ctx); }
static double w_q(double q, void *ctx) { return cubic_root(*(double *)ctx, q); }

int main(void) {
  static const double pq[][2] = {{1.0, 2.0}, {0.5, -3.0}, {3.0, 0.7}, {2.0, 10.0}};
  char name[64];
  for (int k = 0; k < 4; k++) {
    double p = pq[k][0], q = pq[k][1];
    grad2 g = grad_cubic_root(p, q);
    snprintf(name, sizeof name, "cubic_root_dp_%d", k);
    check_close(name, g.dp, fd_deriv(w_p, p, &q), 1e-6, 1e-9);
    snprintf(name, sizeof name, "cubic_root_dq_%d", k);
    check_close(name, g.dq, fd_deriv(w_q, q, &p), 1e-6, 1e-9);
  }
  return test_exit();
}
#endif /* FORWARD_MODE */
