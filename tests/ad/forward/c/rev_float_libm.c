/* Forward mode of tests/ad/c/float_libm.c: the float libm functions sinf cosf
 * tanf expf logf powf sqrtf tanhf fabsf fmaxf fminf atan2f hypotf erff expm1f
 * log1pf cbrtf, with a float tangent return. */
#include "fwd_test.h"

float __enzyme_fwddiff(void *, ...);

__attribute__((noinline)) float libmf(const float *x) {
  float a = x[0], b = x[1], c = x[2], d = x[3];
  return sinf(a) * cosf(b) + tanf(0.5f * c) + expf(d) * logf(b) + powf(b, a) + sqrtf(b + c) +
         tanhf(a * d) + fabsf(a - d) + fmaxf(a, c) + fminf(b, d) + atan2f(d, b) +
         hypotf(a, c) + erff(d) + expm1f(0.5f * a) + log1pf(c) + cbrtf(b);
}

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
