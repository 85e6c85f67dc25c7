/* A loop with continue (skip negative entries) and a data-dependent break
 * (stop once the running sum passes a limit).
 *
 * Forward mode (-DFORWARD_MODE): a loop with continue
 * (skip negative entries) and a data-dependent break, with and without the
 * break taken. */
#include "kernel_test.h"

__attribute__((noinline)) double capped_sum(const double *x, int n, double limit) {
  double s = 0.0;
  for (int i = 0; i < n; i++) {
    if (x[i] < 0.0) continue;
    s += x[i] * x[i] + sin(x[i]);
    if (s > limit) break;
  }
  return s * s;
}

#ifdef FORWARD_MODE
double __enzyme_fwddiff(void *, ...);

enum { N = 24 };
static double w_capped(const double *x, void *ctx) { return capped_sum(x, N, *(double *)ctx); }

int main(void) {
  double x[N], v[N];
  rng_seed(12);
  rng_fill(x, N, -1.0, 1.0);
  rng_fill(v, N, -1.0, 1.0);
  /* the limit lies halfway between two consecutive partial sums, so the exit
   * iteration does not move under the finite-difference perturbation */
  double s = 0.0, prev = 0.0, limit = 1e300;
  int seen = 0;
  for (int i = 0; i < N; i++) {
    if (x[i] < 0.0) continue;
    prev = s;
    s += x[i] * x[i] + sin(x[i]);
    if (++seen == 6) { limit = 0.5 * (prev + s); break; }
  }
  char name[64];
  double limits[2] = {limit, 1e300};
  for (int k = 0; k < 2; k++) {
    double t = __enzyme_fwddiff((void *)capped_sum, enzyme_dup, x, v, enzyme_const, N,
                                enzyme_const, limits[k]);
    snprintf(name, sizeof name, "capped_sum_jvp_%s", k ? "nobreak" : "break");
    check_close(name, t, fd_dir(w_capped, x, v, N, &limits[k]), 1e-6, 1e-8);
  }
  return test_exit();
}

#else /* reverse mode */
void __enzyme_autodiff(void *, ...);

#ifdef REFERENCE_GRADIENT
static void ref_grad_capped_sum(const double *x, double *dx, int n, double limit) {
  double s = 0.0;
  int last = n - 1;
  for (int i = 0; i < n; i++) {
    if (x[i] < 0.0) continue;
    s += x[i] * x[i] + sin(x[i]);
    if (s > limit) { last = i; break; }
  }
  for (int i = 0; i <= last; i++)
    if (!(x[i] < 0.0)) dx[i] += 2.0 * s * (2.0 * x[i] + cos(x[i]));
}
#endif

static void grad_capped_sum(const double *x, double *dx, int n, double limit) {
#ifdef REFERENCE_GRADIENT
  ref_grad_capped_sum(x, dx, n, limit);
#else
  __enzyme_autodiff((void *)capped_sum, enzyme_dup, x, dx, enzyme_const, n, enzyme_const,
                    limit);
#endif
}

enum { N = 24 };
static double w_capped(const double *x, void *ctx) { return capped_sum(x, N, *(double *)ctx); }

int main(void) {
  double x[N], dx[N], fd[N];
  rng_seed(12);
  rng_fill(x, N, -1.0, 1.0);
  /* place the limit halfway between two consecutive partial sums so that the
   * exit iteration does not move under the finite-difference perturbation */
  double s = 0.0, prev = 0.0, limit = 1e300;
  int seen = 0;
  for (int i = 0; i < N; i++) {
    if (x[i] < 0.0) continue;
    prev = s;
    s += x[i] * x[i] + sin(x[i]);
    if (++seen == 6) { limit = 0.5 * (prev + s); break; }
  }
  char name[64];
  double limits[2] = {limit, 1e300};
  for (int k = 0; k < 2; k++) {
    zero_array(dx, N);
    grad_capped_sum(x, dx, N, limits[k]);
    fd_grad_array(w_capped, x, N, &limits[k], fd);
    snprintf(name, sizeof name, "capped_sum_grad_%s", k ? "nobreak" : "break");
    check_array(name, dx, fd, N, 1e-6, 1e-8);
  }
  return test_exit();
}
#endif /* FORWARD_MODE */
