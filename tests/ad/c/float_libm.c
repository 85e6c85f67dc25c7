/* float libm: sinf cosf tanf expf logf powf sqrtf tanhf fabsf fmaxf fminf
 * atan2f hypotf erff expm1f log1pf cbrtf, active float return.
 *
 * Forward mode (-DFORWARD_MODE): the float libm functions sinf cosf
 * tanf expf logf powf sqrtf tanhf fabsf fmaxf fminf atan2f hypotf erff expm1f
 * log1pf cbrtf, with a float tangent return. */
#include "kernel_test.h"

__attribute__((noinline)) float libmf(const float *x) {
  float a = x[0], b = x[1], c = x[2], d = x[3];
  return sinf(a) * cosf(b) + tanf(0.5f * c) + expf(d) * logf(b) + powf(b, a) + sqrtf(b + c) +
         tanhf(a * d) + fabsf(a - d) + fmaxf(a, c) + fminf(b, d) + atan2f(d, b) +
         hypotf(a, c) + erff(d) + expm1f(0.5f * a) + log1pf(c) + cbrtf(b);
}

#ifdef FORWARD_MODE
float __enzyme_fwddiff(void *, ...);

static float w_libmf(const float *x, void *p) { (void)p; return libmf(x); }

int main(void) {
  static const float pts[][4] = {
      {0.4f, 1.3f, 0.8f, -0.6f}, {1.1f, 0.6f, 0.2f, 0.9f}, {-0.7f, 2.0f, 1.4f, 0.3f}};
  float v[4];
  char name[64];
  rng_seed(46);
  for (int k = 0; k < 3; k++) {
    rng_fill_f(v, 4, -1.0, 1.0);
    float t = __enzyme_fwddiff((void *)libmf, enzyme_dup, pts[k], v);
    snprintf(name, sizeof name, "libmf_jvp_%d", k);
    check_close(name, t, fd_dir_f(w_libmf, pts[k], v, 4, NULL), 5e-3, 5e-3);
  }
  return test_exit();
}

#else /* reverse mode */
void __enzyme_autodiff(void *, ...);

#ifdef REFERENCE_GRADIENT
static void ref_grad_libmf(const float *x, float *dx) {
  double a = x[0], b = x[1], c = x[2], d = x[3];
  double g[4] = {0, 0, 0, 0};
  g[0] += cos(a) * cos(b);
  g[1] += -sin(a) * sin(b);
  double tc = cos(0.5 * c);
  g[2] += 0.5 / (tc * tc);
  g[3] += exp(d) * log(b);
  g[1] += exp(d) / b;
  double pw = pow(b, a);
  g[1] += a * pow(b, a - 1.0);
  g[0] += pw * log(b);
  g[1] += 0.5 / sqrt(b + c);
  g[2] += 0.5 / sqrt(b + c);
  double th = tanh(a * d);
  g[0] += (1.0 - th * th) * d;
  g[3] += (1.0 - th * th) * a;
  g[0] += a > d ? 1.0 : -1.0;
  g[3] += a > d ? -1.0 : 1.0;
  if (a > c) g[0] += 1.0; else g[2] += 1.0;
  if (b < d) g[1] += 1.0; else g[3] += 1.0;
  double r2 = b * b + d * d;
  g[3] += b / r2;
  g[1] += -d / r2;
  double hy = hypot(a, c);
  g[0] += a / hy;
  g[2] += c / hy;
  g[3] += 2.0 / sqrt(M_PI) * exp(-d * d);
  g[0] += 0.5 * exp(0.5 * a);
  g[2] += 1.0 / (1.0 + c);
  double cb = cbrt(b);
  g[1] += 1.0 / (3.0 * cb * cb);
  for (int i = 0; i < 4; i++) dx[i] += (float)g[i];
}
#endif

static void grad_libmf(const float *x, float *dx) {
#ifdef REFERENCE_GRADIENT
  ref_grad_libmf(x, dx);
#else
  __enzyme_autodiff((void *)libmf, enzyme_dup, x, dx);
#endif
}

static float w_libmf(const float *x, void *p) { (void)p; return libmf(x); }

int main(void) {
  static const float pts[][4] = {
      {0.4f, 1.3f, 0.8f, -0.6f}, {1.1f, 0.6f, 0.2f, 0.9f}, {-0.7f, 2.0f, 1.4f, 0.3f}};
  float dx[4];
  double fd[4];
  char name[64];
  for (int k = 0; k < 3; k++) {
    zero_array_f(dx, 4);
    grad_libmf(pts[k], dx);
    fd_grad_array_f(w_libmf, pts[k], 4, NULL, fd);
    snprintf(name, sizeof name, "libmf_grad_%d", k);
    check_array_f(name, dx, fd, 4, 5e-3, 5e-3);
  }
  return test_exit();
}
#endif /* FORWARD_MODE */
