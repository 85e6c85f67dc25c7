/* memmove with overlapping source and destination on active in-place data.
 *
 * Forward mode (-DFORWARD_MODE): memmove with overlapping source
 * and destination on active in-place data; the shadow moves with it. */
#include "kernel_test.h"

__attribute__((noinline)) void shift_mix(double *a, int n) {
  memmove(a + 1, a, (n - 1) * sizeof(double)); /* shift right by one */
  a[0] = a[1] * a[n - 1];
  memmove(a, a + 2, (n - 2) * sizeof(double)); /* shift left by two */
  for (int i = 0; i < n; i++) a[i] = a[i] * a[i] + 0.5 * a[i];
}

enum { N = 9 };

#ifdef FORWARD_MODE
void __enzyme_fwddiff(void *, ...);

static void w_shift(const double *a, double *out, void *ctx) {
  (void)ctx;
  memcpy(out, a, N * sizeof(double));
  shift_mix(out, N);
}

int main(void) {
  double a0[N], v[N], a[N], da[N], want[N];
  rng_seed(21);
  rng_fill(a0, N, -1.0, 1.0);
  rng_fill(v, N, -1.0, 1.0);
  memcpy(a, a0, sizeof a);
  memcpy(da, v, sizeof da);
  __enzyme_fwddiff((void *)shift_mix, enzyme_dup, a, da, enzyme_const, N);
  fd_dir_vec(w_shift, a0, v, N, want, N, NULL);
  check_array("shift_mix_da", da, want, N, 1e-6, 1e-8);
  return test_exit();
}

#else /* reverse mode */
void __enzyme_autodiff(void *, ...);

#ifdef REFERENCE_GRADIENT
static void shift_mix_tan(double *a, double *ad, int n) {
  memmove(a + 1, a, (n - 1) * sizeof(double));
  memmove(ad + 1, ad, (n - 1) * sizeof(double));
  ad[0] = ad[1] * a[n - 1] + a[1] * ad[n - 1];
  a[0] = a[1] * a[n - 1];
  memmove(a, a + 2, (n - 2) * sizeof(double));
  memmove(ad, ad + 2, (n - 2) * sizeof(double));
  for (int i = 0; i < n; i++) {
    ad[i] = (2.0 * a[i] + 0.5) * ad[i];
    a[i] = a[i] * a[i] + 0.5 * a[i];
  }
}
static void ref_grad_shift_mix(double *a, double *da, int n) {
  double g[N], aa[N], ad[N];
  for (int j = 0; j < n; j++) {
    memcpy(aa, a, sizeof(double) * n);
    zero_array(ad, n);
    ad[j] = 1.0;
    shift_mix_tan(aa, ad, n);
    g[j] = 0.0;
    for (int i = 0; i < n; i++) g[j] += da[i] * ad[i];
  }
  shift_mix(a, n);
  memcpy(da, g, sizeof(double) * n);
}
#endif

static void grad_shift_mix(double *a, double *da, int n) {
#ifdef REFERENCE_GRADIENT
  ref_grad_shift_mix(a, da, n);
#else
  __enzyme_autodiff((void *)shift_mix, enzyme_dup, a, da, enzyme_const, n);
#endif
}

static double seed[N];
static double w_shift(const double *a, void *ctx) {
  (void)ctx;
  double b[N], s = 0.0;
  memcpy(b, a, sizeof b);
  shift_mix(b, N);
  for (int i = 0; i < N; i++) s += seed[i] * b[i];
  return s;
}

int main(void) {
  double a0[N], a[N], da[N], fd[N];
  rng_seed(21);
  rng_fill(a0, N, -1.0, 1.0);
  rng_fill(seed, N, -1.0, 1.0);
  memcpy(a, a0, sizeof a);
  memcpy(da, seed, sizeof da);
  grad_shift_mix(a, da, N);
  fd_grad_array(w_shift, a0, N, NULL, fd);
  check_array("shift_mix_grad", da, fd, N, 1e-6, 1e-8);
  return test_exit();
}
#endif /* FORWARD_MODE */
