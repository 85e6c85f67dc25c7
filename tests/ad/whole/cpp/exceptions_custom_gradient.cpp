// WHOLE-FLAGS: -fexceptions
// Built WITH exceptions: a function with a registered gradient in Enzyme's tape
// form ({f, f_aug, f_rev}, f returns void) is invoked inside try/catch in a
// loop; the augmented function replaces the invoke with the same edges, and the
// registered reverse (3x the true adjoint on purpose) runs once per iteration.
#include "enzyme_test.h"
#include <stdexcept>

extern "C" double __enzyme_autodiff(void *, ...);

int aug_calls = 0, rev_calls = 0, failures = 0;

__attribute__((noinline)) void sq(const double *x, double *y) {
  if (*x > 1e9) throw std::overflow_error("too large");
  *y = *x * *x;
}
extern "C" void *sq_aug(const double *x, double *dx, double *y, double *dy) {
  (void)dx;
  (void)dy;
  aug_calls++;
  *y = *x * *x;
  return nullptr;
}
extern "C" void sq_rev(const double *x, double *dx, double *y, double *dy, void *tape) {
  (void)y;
  (void)tape;
  rev_calls++;
  *dx += 3.0 * 2.0 * *x * *dy; /* deliberately 3x */
  *dy = 0.0;                   /* consumed: y was overwritten */
}
void *__enzyme_register_gradient_sq[3] = {(void *)sq, (void *)sq_aug, (void *)sq_rev};

__attribute__((noinline)) double loss(const double *x, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++) {
    double y;
    try {
      sq(&x[i], &y);
      s += y * (i + 1);
    } catch (const std::exception &) {
      failures++;
    }
  }
  return s;
}

#ifdef REFERENCE_GRADIENT
static void ref_grad_loss(const double *x, double *dx, int n) {
  for (int i = 0; i < n; i++) {
    double y, dy = 0.0;
    sq_aug(&x[i], &dx[i], &y, &dy);
  }
  for (int i = n - 1; i >= 0; i--) {
    double y = x[i] * x[i], dy = i + 1.0;
    sq_rev(&x[i], &dx[i], &y, &dy, nullptr);
  }
}
#endif

static void grad_loss(const double *x, double *dx, int n) {
#ifdef REFERENCE_GRADIENT
  ref_grad_loss(x, dx, n);
#else
  __enzyme_autodiff((void *)loss, enzyme_dup, x, dx, enzyme_const, n);
#endif
}

enum { N = 5 };

int main() {
  double x[N], dx[N], want[N];
  rng_seed(147);
  rng_fill(x, N, -1.0, 1.0);
  zero_array(dx, N);
  grad_loss(x, dx, N);
  for (int i = 0; i < N; i++) want[i] = 3.0 * 2.0 * x[i] * (i + 1);
  check_array("exceptions_custom_dx_uses_rule", dx, want, N, 1e-12, 1e-12);
  check_close("exceptions_custom_rev_calls", rev_calls, N, 0.0, 0.0);
  check_close("exceptions_custom_aug_calls", aug_calls, N, 0.0, 0.0);
  check_close("exceptions_custom_no_throw", failures, 0.0, 0.0, 0.0);
  return test_exit();
}
