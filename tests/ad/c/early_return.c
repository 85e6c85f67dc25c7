/* Several return statements: guard clauses and a return from inside a loop.
 *
 * Forward mode (-DFORWARD_MODE): guard clauses and a return from
 * inside a loop; each exit path is taken once. */
#include "kernel_test.h"

__attribute__((noinline)) double early(const double *x, int n) {
  if (n <= 1) return x[0] * x[0];
  if (x[0] < 0.0) return -x[0] * x[1] * 3.0;
  double s = 0.0;
  for (int i = 1; i < n; i++) {
    if (x[i] > 2.0) return s * x[i] + x[0];
    s += x[i] * x[i - 1];
  }
  return s + sqrt(x[0]);
}

#ifdef FORWARD_MODE
double __enzyme_fwddiff(void *, ...);

enum { N = 10 };
static int nn;
static double w_early(const double *x, void *p) { (void)p; return early(x, nn); }

int main(void) {
  double x[N], v[N];
  char name[64];
  rng_seed(36);
  for (int t = 0; t < 4; t++) {
    rng_fill(x, N, 0.2, 1.5);
    rng_fill(v, N, -1.0, 1.0);
    nn = N;
    if (t == 0) nn = 1;
    if (t == 1) x[0] = -0.8;
    if (t == 2) x[6] = 2.7;
    double d = __enzyme_fwddiff((void *)early, enzyme_dup, x, v, enzyme_const, nn);
    snprintf(name, sizeof name, "early_jvp_case%d", t);
    check_close(name, d, fd_dir(w_early, x, v, N, NULL), 1e-6, 1e-8);
  }
  return test_exit();
}

#else /* reverse mode */
void __enzyme_autodiff(void *, ...);

#ifdef REFERENCE_GRADIENT
static void ref_grad_early(const double *x, double *dx, int n) {
  if (n <= 1) { dx[0] += 2.0 * x[0]; return; }
  if (x[0] < 0.0) { dx[0] += -3.0 * x[1]; dx[1] += -3.0 * x[0]; return; }
  double s = 0.0;
  int stop = n;
  for (int i = 1; i < n; i++) {
    if (x[i] > 2.0) { stop = i; break; }
    s += x[i] * x[i - 1];
  }
  double ds;
  if (stop < n) {
    dx[stop] += s;
    dx[0] += 1.0;
    ds = x[stop];
  } else {
    dx[0] += 0.5 / sqrt(x[0]);
    ds = 1.0;
  }
  for (int i = 1; i < stop; i++) {
    dx[i] += ds * x[i - 1];
    dx[i - 1] += ds * x[i];
  }
}
#endif

static void grad_early(const double *x, double *dx, int n) {
#ifdef REFERENCE_GRADIENT
  ref_grad_early(x, dx, n);
#else
  __enzyme_autodiff((void *)early, enzyme_dup, x, dx, enzyme_const, n);
#endif
}

enum { N = 10 };
static int nn;
static double w_early(const double *x, void *p) { (void)p; return early(x, nn); }

int main(void) {
  double x[N], dx[N], fd[N];
  char name[64];
  rng_seed(36);
  for (int t = 0; t < 4; t++) {
    rng_fill(x, N, 0.2, 1.5);
    nn = N;
    if (t == 0) nn = 1;
    if (t == 1) x[0] = -0.8;
    if (t == 2) x[6] = 2.7;
    zero_array(dx, N);
    grad_early(x, dx, nn);
    fd_grad_array(w_early, x, N, NULL, fd);
    snprintf(name, sizeof name, "early_grad_case%d", t);
    check_array(name, dx, fd, N, 1e-6, 1e-8);
  }
  return test_exit();
}
#endif /* FORWARD_MODE */
