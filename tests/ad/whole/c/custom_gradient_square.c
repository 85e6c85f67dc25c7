/* A custom derivative registered the way Enzyme documents it (Enzyme's
 * "Custom Derivatives"): square() takes its input and output by pointer,
 * augment_square() is the augmented forward pass returning a tape (NULL here),
 * gradient_square() the reverse pass.  The registered gradient is 3x the true
 * derivative ON PURPOSE, so the result proves that it was called:
 *   loss(x) = sin(square(x)) + x,  expected d loss = 3 cos(x^2) 2x + 1. */
#include "enzyme_test.h"

double __enzyme_autodiff(void *, ...);

__attribute__((noinline)) void square(const double *src, double *dest) { *dest = *src * *src; }

int augment_calls = 0, gradient_calls = 0;

void *augment_square(const double *src, const double *d_src, double *dest, double *d_dest) {
  (void)d_src;
  (void)d_dest;
  augment_calls++;
  *dest = *src * *src;
  return NULL;
}

void gradient_square(const double *src, double *d_src, const double *dest,
                     const double *d_dest, void *tape) {
  (void)dest;
  (void)tape;
  gradient_calls++;
  *d_src += 3.0 * (2.0 * *src * *d_dest); /* deliberately 3x the true adjoint */
}

void *__enzyme_register_gradient_square[3] = {(void *)square, (void *)augment_square,
                                               (void *)gradient_square};

double loss(double x) {
  double y;
  square(&x, &y);
  return sin(y) + x;
}

#ifdef REFERENCE_GRADIENT
/* what Enzyme does with the registration: augmented call, then reverse call */
static double ref_grad_loss(double x) {
  double dx = 0.0, y, dy = 0.0;
  void *tape = augment_square(&x, &dx, &y, &dy);
  dy += cos(y);
  gradient_square(&x, &dx, &y, &dy, tape);
  return dx + 1.0;
}
#endif

static double grad_loss(double x) {
#ifdef REFERENCE_GRADIENT
  return ref_grad_loss(x);
#else
  return __enzyme_autodiff((void *)loss, x);
#endif
}

static double w_x(double x, void *c) { (void)c; return loss(x); }

int main(void) {
  static const double xs[] = {0.6, -1.1, 1.7};
  char name[64];
  for (int t = 0; t < 3; t++) {
    double x = xs[t];
    int a0 = augment_calls, g0 = gradient_calls;
    double got = grad_loss(x);
    double truth = fd_deriv(w_x, x, NULL); /* true derivative of the primal */
    snprintf(name, sizeof name, "fd_matches_analytic_%d", t);
    check_close(name, truth, cos(x * x) * 2.0 * x + 1.0, 1e-6, 1e-9);
    snprintf(name, sizeof name, "custom_gradient_used_%d", t);
    check_close(name, got, 3.0 * (truth - 1.0) + 1.0, 1e-6, 1e-9);
    snprintf(name, sizeof name, "gradient_square_called_once_%d", t);
    check_close(name, gradient_calls - g0, 1.0, 0.0, 0.0);
    snprintf(name, sizeof name, "augment_square_called_once_%d", t);
    check_close(name, augment_calls - a0, 1.0, 0.0, 0.0);
  }
  return test_exit();
}
