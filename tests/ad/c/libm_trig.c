/* libm: sin, cos, tan, atan2, hypot on entries of a dup array.
 *
 * Forward mode (-DFORWARD_MODE): sin, cos, tan, atan2, hypot on
 * entries of a dup array. */
#include "kernel_test.h"

__attribute__((noinline)) double trig(const double *x) {
  return sin(x[0]) * cos(x[1]) + tan(x[2]) + atan2(x[3], x[0]) + hypot(x[1], x[3]) +
         0.5 * sin(x[2] * x[3]);
}

#ifdef FORWARD_MODE
double __enzyme_fwddiff(void *, ...);

static double w_trig(const double *x, void *c) { (void)c; return trig(x); }

int main(void) {
  double x[4], v[4];
  char name[64];
  rng_seed(28);
  for (int t = 0; t < 4; t++) {
    rng_fill(x, 4, -1.2, 1.2);
    rng_fill(v, 4, -1.0, 1.0);
    double d = __enzyme_fwddiff((void *)trig, enzyme_dup, x, v);
    snprintf(name, sizeof name, "trig_jvp_%d", t);
    check_close(name, d, fd_dir(w_trig, x, v, 4, NULL), 1e-6, 1e-8);
  }
  return test_exit();
}

#else /* reverse mode */
void __enzyme_autodiff(void *, ...);

#ifdef REFERENCE_GRADIENT
static void ref_grad_trig(const double *x, double *dx) {
  double r2 = x[0] * x[0] + x[3] * x[3], hy = hypot(x[1], x[3]);
  double c2 = cos(x[2]), c23 = 0.5 * cos(x[2] * x[3]);
  dx[0] += cos(x[0]) * cos(x[1]) - x[3] / r2;
  dx[1] += -sin(x[0]) * sin(x[1]) + x[1] / hy;
  dx[2] += 1.0 / (c2 * c2) + c23 * x[3];
  dx[3] += x[0] / r2 + x[3] / hy + c23 * x[2];
}
#endif

static void grad_trig(const double *x, double *dx) {
#ifdef REFERENCE_GRADIENT
  ref_grad_trig(x, dx);
#else
  __enzyme_autodiff((void *)trig, enzyme_dup, x, dx);
#endif
}

static double w_trig(const double *x, void *c) { (void)c; return trig(x); }

int main(void) {
  double x[4], dx[4], fd[4];
  char name[64];
  rng_seed(28);
  for (int t = 0; t < 4; t++) {
    rng_fill(x, 4, -1.2, 1.2);
    zero_array(dx, 4);
    grad_trig(x, dx);
    fd_grad_array(w_trig, x, 4, NULL, fd);
    snprintf(name, sizeof name, "trig_grad_%d", t);
    check_array(name, dx, fd, 4, 1e-6, 1e-8);
  }
  return test_exit();
}
#endif /* FORWARD_MODE */
