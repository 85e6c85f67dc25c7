/* In-place recurrences: a prefix sum a[i] = a[i-1] + a[i] and a nonlinear
 * a[i] = 0.5 a[i-1] + sin(a[i]).  void functions, outputs only through
 * memory; the seed sits in d_a and is replaced by the adjoint of the input.
 *
 * Forward mode (-DFORWARD_MODE): in-place recurrences, a
 * prefix sum and a[i] = 0.5 a[i-1] + sin(a[i]); the shadow of a carries the
 * input tangent in and the output tangent out. */
#include "kernel_test.h"

__attribute__((noinline)) void prefix(double *a, int n) {
  for (int i = 1; i < n; i++) a[i] = a[i - 1] + a[i];
}

__attribute__((noinline)) void recur(double *a, int n) {
  for (int i = 1; i < n; i++) a[i] = 0.5 * a[i - 1] + sin(a[i]);
}

enum { N = 19 };

#ifdef FORWARD_MODE
void __enzyme_fwddiff(void *, ...);

static void w_prefix(const double *a, double *out, void *ctx) {
  (void)ctx;
  memcpy(out, a, N * sizeof(double));
  prefix(out, N);
}
static void w_recur(const double *a, double *out, void *ctx) {
  (void)ctx;
  memcpy(out, a, N * sizeof(double));
  recur(out, N);
}

int main(void) {
  double a0[N], v[N], a[N], da[N], want[N];
  rng_seed(15);
  rng_fill(a0, N, -1.0, 1.0);
  rng_fill(v, N, -1.0, 1.0);
  memcpy(a, a0, sizeof a);
  memcpy(da, v, sizeof da);
  __enzyme_fwddiff((void *)prefix, enzyme_dup, a, da, enzyme_const, N);
  fd_dir_vec(w_prefix, a0, v, N, want, N, NULL);
  check_array("prefix_da", da, want, N, 1e-6, 1e-8);
  w_prefix(v, want, NULL); /* linear: the tangent is the prefix sum of v */
  check_array("prefix_da_exact", da, want, N, 1e-13, 1e-14);
  memcpy(a, a0, sizeof a);
  memcpy(da, v, sizeof da);
  __enzyme_fwddiff((void *)recur, enzyme_dup, a, da, enzyme_const, N);
  fd_dir_vec(w_recur, a0, v, N, want, N, NULL);
  check_array("recur_da", da, want, N, 1e-6, 1e-8);
  return test_exit();
}

#else /* reverse mode */
void __enzyme_autodiff(void *, ...);

#ifdef REFERENCE_GRADIENT
static void ref_grad_prefix(double *a, double *da, int n) {
  prefix(a, n);
  for (int j = n - 2; j >= 0; j--) da[j] += da[j + 1]; /* suffix sums of the seed */
}
static void ref_grad_recur(double *a, double *da, int n) {
  double a0[N];
  memcpy(a0, a, sizeof(double) * n);
  recur(a, n);
  for (int i = n - 1; i >= 1; i--) {
    double v = da[i];
    da[i] = v * cos(a0[i]);
    da[i - 1] += 0.5 * v;
  }
}
#endif

static void grad_prefix(double *a, double *da, int n) {
#ifdef REFERENCE_GRADIENT
  ref_grad_prefix(a, da, n);
#else
  __enzyme_autodiff((void *)prefix, enzyme_dup, a, da, enzyme_const, n);
#endif
}
static void grad_recur(double *a, double *da, int n) {
#ifdef REFERENCE_GRADIENT
  ref_grad_recur(a, da, n);
#else
  __enzyme_autodiff((void *)recur, enzyme_dup, a, da, n);
#endif
}

static double seed[N];
static double w_prefix(const double *a, void *ctx) {
  (void)ctx;
  double b[N], s = 0.0;
  memcpy(b, a, sizeof b);
  prefix(b, N);
  for (int i = 0; i < N; i++) s += seed[i] * b[i];
  return s;
}
static double w_recur(const double *a, void *ctx) {
  (void)ctx;
  double b[N], s = 0.0;
  memcpy(b, a, sizeof b);
  recur(b, N);
  for (int i = 0; i < N; i++) s += seed[i] * b[i];
  return s;
}

int main(void) {
  double a0[N], a[N], da[N], fd[N], want[N];
  rng_seed(15);
  rng_fill(a0, N, -1.0, 1.0);
  rng_fill(seed, N, -1.0, 1.0);

  memcpy(a, a0, sizeof a);
  memcpy(da, seed, sizeof da);
  grad_prefix(a, da, N);
  fd_grad_array(w_prefix, a0, N, NULL, fd);
  check_array("prefix_grad", da, fd, N, 1e-6, 1e-8);
  memcpy(want, a0, sizeof want);
  prefix(want, N);
  check_array("prefix_primal_effect", a, want, N, 1e-12, 1e-14);

  memcpy(a, a0, sizeof a);
  memcpy(da, seed, sizeof da);
  grad_recur(a, da, N);
  fd_grad_array(w_recur, a0, N, NULL, fd);
  check_array("recur_grad", da, fd, N, 1e-6, 1e-8);
  return test_exit();
}
#endif /* FORWARD_MODE */
