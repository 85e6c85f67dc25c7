/* Fixed-size local arrays (allocas) written and re-read, including a
 * loop-carried update of the local array itself.
 *
 * Forward mode (-DFORWARD_MODE): fixed-size local arrays written
 * and re-read, including a loop-carried update of the local array itself. */
#include "kernel_test.h"

__attribute__((noinline)) double local_mix(const double *x) {
  double t[8], u[4];
  for (int i = 0; i < 8; i++) t[i] = x[i] * x[7 - i];
  for (int i = 1; i < 8; i++) t[i] += 0.3 * t[i - 1];
  for (int i = 0; i < 4; i++) u[i] = t[2 * i] - exp(0.2 * t[2 * i + 1]);
  double s = 0.0;
  for (int i = 0; i < 8; i++) s += t[i] * t[i];
  for (int i = 0; i < 4; i++) s += u[i] * x[i];
  return s;
}

#ifdef FORWARD_MODE
double __enzyme_fwddiff(void *, ...);

static double w_local(const double *x, void *ctx) { (void)ctx; return local_mix(x); }

int main(void) {
  double x[8], v[8];
  char name[32];
  rng_seed(19);
  rng_fill(x, 8, -1.0, 1.0);
  for (int d = 0; d < 2; d++) {
    rng_fill(v, 8, -1.0, 1.0);
    double t = __enzyme_fwddiff((void *)local_mix, enzyme_dup, x, v);
    snprintf(name, sizeof name, "local_mix_jvp_%d", d);
    check_close(name, t, fd_dir(w_local, x, v, 8, NULL), 1e-6, 1e-8);
  }
  return test_exit();
}

#else /* reverse mode */
void __enzyme_autodiff(void *, ...);

#ifdef REFERENCE_GRADIENT
static double local_mix_tan(const double *x, const double *xd) {
  double t[8], td[8], u[4], ud[4];
  for (int i = 0; i < 8; i++) {
    t[i] = x[i] * x[7 - i];
    td[i] = xd[i] * x[7 - i] + x[i] * xd[7 - i];
  }
  for (int i = 1; i < 8; i++) { t[i] += 0.3 * t[i - 1]; td[i] += 0.3 * td[i - 1]; }
  for (int i = 0; i < 4; i++) {
    double e = exp(0.2 * t[2 * i + 1]);
    u[i] = t[2 * i] - e;
    ud[i] = td[2 * i] - 0.2 * e * td[2 * i + 1];
  }
  double sd = 0.0;
  for (int i = 0; i < 8; i++) sd += 2.0 * t[i] * td[i];
  for (int i = 0; i < 4; i++) sd += ud[i] * x[i] + u[i] * xd[i];
  return sd;
}
static void ref_grad_local_mix(const double *x, double *dx) {
  double e[8];
  for (int j = 0; j < 8; j++) {
    zero_array(e, 8);
    e[j] = 1.0;
    dx[j] += local_mix_tan(x, e);
  }
}
#endif

static void grad_local_mix(const double *x, double *dx) {
#ifdef REFERENCE_GRADIENT
  ref_grad_local_mix(x, dx);
#else
  __enzyme_autodiff((void *)local_mix, enzyme_dup, x, dx);
#endif
}

static double w_local(const double *x, void *ctx) { (void)ctx; return local_mix(x); }

int main(void) {
  double x[8], dx[8], fd[8];
  rng_seed(19);
  rng_fill(x, 8, -1.0, 1.0);
  zero_array(dx, 8);
  grad_local_mix(x, dx);
  fd_grad_array(w_local, x, 8, NULL, fd);
  check_array("local_mix_grad", dx, fd, 8, 1e-6, 1e-8);
  return test_exit();
}
#endif /* FORWARD_MODE */
