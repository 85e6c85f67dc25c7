/* Straight-line code reading a dup array; also checks that a second call
 * accumulates into the shadow (Enzyme semantics: d_x += grad).
 *
 * Forward mode (-DFORWARD_MODE): straight-line code reading a dup
 * array; the tangent is linear in the direction (checked with 2v). */
#include "kernel_test.h"

__attribute__((noinline)) double mix4(const double *x) {
  double a = x[0] * x[1];
  double b = x[2] / x[3];
  double c = (x[1] - x[2]) * (x[1] + x[2]);
  return a + b - x[0] * x[0] * x[3] + c * a;
}

#ifdef FORWARD_MODE
double __enzyme_fwddiff(void *, ...);

static double w_mix4(const double *x, void *ctx) { (void)ctx; return mix4(x); }

int main(void) {
  double x[4], v[4], v2[4];
  rng_seed(11);
  rng_fill(x, 4, 0.5, 2.0);
  rng_fill(v, 4, -1.0, 1.0);
  double t = __enzyme_fwddiff((void *)mix4, enzyme_dup, x, v);
  check_close("mix4_jvp", t, fd_dir(w_mix4, x, v, 4, NULL), 1e-6, 1e-8);
  for (int i = 0; i < 4; i++) v2[i] = 2.0 * v[i];
  double t2 = __enzyme_fwddiff((void *)mix4, enzyme_dup, x, v2);
  check_close("mix4_jvp_linear", t2, 2.0 * t, 1e-14, 1e-15);
  return test_exit();
}

#else /* reverse mode */
void __enzyme_autodiff(void *, ...);

#ifdef REFERENCE_GRADIENT
static void ref_grad_mix4(const double *x, double *dx) {
  double a = x[0] * x[1];
  double c = (x[1] - x[2]) * (x[1] + x[2]);
  /* f = a + b - x0^2 x3 + c a */
  double da = 1.0 + c, dc = a;
  dx[0] += da * x[1] - 2.0 * x[0] * x[3];
  dx[1] += da * x[0] + dc * 2.0 * x[1];
  dx[2] += 1.0 / x[3] - dc * 2.0 * x[2];
  dx[3] += -x[2] / (x[3] * x[3]) - x[0] * x[0];
}
#endif

static void grad_mix4(double *x, double *dx) {
#ifdef REFERENCE_GRADIENT
  ref_grad_mix4(x, dx);
#else
  __enzyme_autodiff((void *)mix4, enzyme_dup, x, dx);
#endif
}

static double w_mix4(const double *x, void *ctx) { (void)ctx; return mix4(x); }

int main(void) {
  rng_seed(11);
  double x[4], dx[4], fd[4], twice[4];
  rng_fill(x, 4, 0.5, 2.0);
  zero_array(dx, 4);
  grad_mix4(x, dx);
  fd_grad_array(w_mix4, x, 4, NULL, fd);
  check_array("mix4_grad", dx, fd, 4, 1e-6, 1e-8);
  grad_mix4(x, dx); /* accumulate */
  for (int i = 0; i < 4; i++) twice[i] = 2.0 * fd[i];
  check_array("mix4_grad_accumulates", dx, twice, 4, 1e-6, 1e-8);
  return test_exit();
}
#endif /* FORWARD_MODE */
