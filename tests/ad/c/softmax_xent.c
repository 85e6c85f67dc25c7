/* Mean softmax cross-entropy over a small batch: logits dup (B x C row-major),
 * labels an enzyme_const int array.  Gradient: (softmax - onehot) / B.
 *
 * Forward mode (-DFORWARD_MODE): mean softmax cross-entropy over a
 * small batch, logits dup, labels an enzyme_const int array; the tangent is
 * <(softmax - onehot) / B, v>. */
#include "kernel_test.h"

__attribute__((noinline)) double xent(const double *logits, const int *labels, int b, int c) {
  double loss = 0.0;
  for (int r = 0; r < b; r++) {
    const double *z = logits + r * c;
    double m = z[0];
    for (int k = 1; k < c; k++) m = fmax(m, z[k]);
    double s = 0.0;
    for (int k = 0; k < c; k++) s += exp(z[k] - m);
    loss += m + log(s) - z[labels[r]];
  }
  return loss / b;
}

#ifdef FORWARD_MODE
double __enzyme_fwddiff(void *, ...);

enum { B = 4, C = 7 };
static int lab[B] = {3, 0, 6, 3};
static double w_xent(const double *z, void *p) { (void)p; return xent(z, lab, B, C); }

int main(void) {
  double z[B * C], v[B * C], g[B * C];
  rng_seed(32);
  rng_fill(z, B * C, -2.0, 2.0);
  rng_fill(v, B * C, -1.0, 1.0);
  double t = __enzyme_fwddiff((void *)xent, enzyme_dup, z, v, enzyme_const, lab, enzyme_const,
                              B, enzyme_const, C);
  check_close("xent_jvp", t, fd_dir(w_xent, z, v, B * C, NULL), 1e-6, 1e-9);
  for (int r = 0; r < B; r++) {
    double s = 0.0;
    for (int k = 0; k < C; k++) s += exp(z[r * C + k]);
    for (int k = 0; k < C; k++) g[r * C + k] = (exp(z[r * C + k]) / s - (k == lab[r])) / B;
  }
  check_close("xent_grad_dot_v", t, dot_dir(g, v, B * C), 1e-12, 1e-13);
  return test_exit();
}

#else /* reverse mode */
void __enzyme_autodiff(void *, ...);

#ifdef REFERENCE_GRADIENT
static void ref_grad_xent(const double *logits, double *dlogits, const int *labels, int b,
                          int c) {
  for (int r = 0; r < b; r++) {
    const double *z = logits + r * c;
    double m = z[0];
    for (int k = 1; k < c; k++) m = fmax(m, z[k]);
    double s = 0.0;
    for (int k = 0; k < c; k++) s += exp(z[k] - m);
    for (int k = 0; k < c; k++)
      dlogits[r * c + k] += (exp(z[k] - m) / s - (k == labels[r] ? 1.0 : 0.0)) / b;
  }
}
#endif

static void grad_xent(const double *logits, double *dlogits, const int *labels, int b, int c) {
#ifdef REFERENCE_GRADIENT
  ref_grad_xent(logits, dlogits, labels, b, c);
#else
  __enzyme_autodiff((void *)xent, enzyme_dup, logits, dlogits, enzyme_const, labels, b, c);
#endif
}

enum { B = 4, C = 7 };
static int lab[B] = {3, 0, 6, 3};
static double w_xent(const double *z, void *p) { (void)p; return xent(z, lab, B, C); }

int main(void) {
  double z[B * C], dz[B * C], fd[B * C];
  rng_seed(32);
  rng_fill(z, B * C, -2.0, 2.0);
  zero_array(dz, B * C);
  grad_xent(z, dz, lab, B, C);
  fd_grad_array(w_xent, z, B * C, NULL, fd);
  check_array("xent_grad", dz, fd, B * C, 1e-6, 1e-9);
  return test_exit();
}
#endif /* FORWARD_MODE */
