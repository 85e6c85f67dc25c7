/* Enzyme-style custom derivative (pointer form, augmented pass returning a
 * tape) for a callee used inside a loop over an array: clamp_sq(src, dest)
 * computes dest = src^2, the registered reverse pass returns 3x the true
 * adjoint on purpose, and must be called once per loop iteration.  As in
 * Enzyme, the reverse pass consumes the adjoint of the output it overwrote
 * (reads *d_dest, then zeroes it): the local y is written by every iteration,
 * so an adjoint left in *d_dest would be counted again by the next call. */
#include "enzyme_test.h"

double __enzyme_autodiff(void *, ...);

__attribute__((noinline)) void clamp_sq(const double *src, double *dest) { *dest = *src * *src; }

int aug_calls = 0, rev_calls = 0;

void *clamp_sq_aug(const double *src, const double *d_src, double *dest, double *d_dest) {
  (void)d_src;
  (void)d_dest;
  aug_calls++;
  *dest = *src * *src;
  return NULL;
}
void clamp_sq_rev(const double *src, double *d_src, const double *dest, double *d_dest,
                  void *tape) {
  (void)dest;
  (void)tape;
  rev_calls++;
  *d_src += 3.0 * 2.0 * *src * *d_dest; /* deliberately 3x */
  *d_dest = 0.0;                        /* consumed: dest was overwritten */
}

void *__enzyme_register_gradient_clamp_sq[3] = {(void *)clamp_sq, (void *)clamp_sq_aug,
                                                 (void *)clamp_sq_rev};

__attribute__((noinline)) double loss(const double *x, const double *w, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++) {
    double y;
    clamp_sq(&x[i], &y);
    s += w[i] * y + x[i];
  }
  return s;
}

#ifdef REFERENCE_GRADIENT
static void ref_grad_loss(const double *x, double *dx, const double *w, int n) {
  void *tapes[64];
  double ys[64], dys[64];
  for (int i = 0; i < n; i++) {
    dys[i] = 0.0;
    tapes[i] = clamp_sq_aug(&x[i], &dx[i], &ys[i], &dys[i]);
  }
  for (int i = n - 1; i >= 0; i--) {
    dx[i] += 1.0;
    dys[i] += w[i];
    clamp_sq_rev(&x[i], &dx[i], &ys[i], &dys[i], tapes[i]);
  }
}
#endif

static void grad_loss(const double *x, double *dx, const double *w, int n) {
#ifdef REFERENCE_GRADIENT
  ref_grad_loss(x, dx, w, n);
#else
  __enzyme_autodiff((void *)loss, enzyme_dup, x, dx, enzyme_const, w, enzyme_const, n);
#endif
}

enum { N = 6 };

int main(void) {
  double x[N], w[N], dx[N], want[N];
  rng_seed(129);
  rng_fill(x, N, -1.0, 1.0);
  rng_fill(w, N, -1.0, 1.0);
  zero_array(dx, N);
  grad_loss(x, dx, w, N);
  for (int i = 0; i < N; i++) want[i] = 3.0 * 2.0 * x[i] * w[i] + 1.0;
  check_array("custom_loop_dx_uses_rule", dx, want, N, 1e-12, 1e-12);
  check_close("custom_loop_rev_calls", rev_calls, N, 0.0, 0.0);
  check_close("custom_loop_aug_calls", aug_calls, N, 0.0, 0.0);
  return test_exit();
}
