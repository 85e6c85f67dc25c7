/* Ternaries inside a loop (become selects, vectorized at -O2); an
 * enzyme_const double threshold and a runtime trip count.
 *
 * Forward mode (-DFORWARD_MODE): ternaries inside a loop
 * (selects, vectorized at -O2), an enzyme_const double threshold and a
 * runtime trip count. */
#include "kernel_test.h"

__attribute__((noinline)) double relu_mix(const double *x, double c, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++) {
    double v = x[i] > c ? x[i] * x[i] : 3.0 * x[i];
    double u = x[i] < 0.0 ? 0.0 : x[i];
    s += v + 0.25 * u;
  }
  return s;
}

#ifdef FORWARD_MODE
double __enzyme_fwddiff(void *, ...);

static void grad_relu_mix(const double *x, double *g, double c, int n) {
  for (int i = 0; i < n; i++) g[i] = (x[i] > c ? 2.0 * x[i] : 3.0) + (x[i] < 0.0 ? 0.0 : 0.25);
}

struct ctx { double c; int n; };
static double w_relu_mix(const double *x, void *p) {
  struct ctx *k = p;
  return relu_mix(x, k->c, k->n);
}

int main(void) {
  enum { N = 29 };
  double x[N], v[N], g[N];
  rng_seed(5);
  for (int i = 0; i < N; i++) {
    /* keep every input at least 0.05 away from the kinks at 0 and c */
    double r = rng_uniform(0.05, 0.45);
    x[i] = (i % 3 == 0) ? -r : (i % 3 == 1) ? r : 0.5 + r;
  }
  rng_fill(v, N, -1.0, 1.0);
  struct ctx k = {0.5, N};
  double t = __enzyme_fwddiff((void *)relu_mix, enzyme_dup, x, v, enzyme_const, k.c,
                              enzyme_const, N);
  check_close("relu_mix_jvp", t, fd_dir(w_relu_mix, x, v, N, &k), 1e-6, 1e-8);
  grad_relu_mix(x, g, k.c, N);
  check_close("relu_mix_grad_dot_v", t, dot_dir(g, v, N), 1e-12, 1e-13);
  return test_exit();
}

#else /* reverse mode */
void __enzyme_autodiff(void *, ...);

#ifdef REFERENCE_GRADIENT
static void ref_grad_relu_mix(const double *x, double *dx, double c, int n) {
  for (int i = 0; i < n; i++) {
    dx[i] += (x[i] > c ? 2.0 * x[i] : 3.0) + (x[i] < 0.0 ? 0.0 : 0.25);
  }
}
#endif

static void grad_relu_mix(const double *x, double *dx, double c, int n) {
#ifdef REFERENCE_GRADIENT
  ref_grad_relu_mix(x, dx, c, n);
#else
  __enzyme_autodiff((void *)relu_mix, enzyme_dup, x, dx, enzyme_const, c, enzyme_const, n);
#endif
}

struct ctx { double c; int n; };
static double w_relu_mix(const double *x, void *p) {
  struct ctx *k = p;
  return relu_mix(x, k->c, k->n);
}

int main(void) {
  enum { N = 29 };
  double x[N], dx[N], fd[N];
  rng_seed(5);
  for (int i = 0; i < N; i++) {
    /* keep every input at least 0.05 away from the kinks at 0 and c */
    double v = rng_uniform(0.05, 0.45);
    x[i] = (i % 3 == 0) ? -v : (i % 3 == 1) ? v : 0.5 + v;
  }
  struct ctx k = {0.5, N};
  zero_array(dx, N);
  grad_relu_mix(x, dx, k.c, N);
  fd_grad_array(w_relu_mix, x, N, &k, fd);
  check_array("relu_mix_grad", dx, fd, N, 1e-6, 1e-8);
  return test_exit();
}
#endif /* FORWARD_MODE */
