/* float inputs accumulated in double (fpext) and a double result rounded to
 * float (fptrunc): tangents cross both casts. */
#include "fwd_test.h"

float __enzyme_fwddiff(void *, ...);

__attribute__((noinline)) float wsum(const float *x, double scale, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++) s += (double)x[i] * (double)x[i] * scale + sin((double)x[i]);
  return (float)(s / n);
}

enum { N = 12 };

int main(void) {
  float x[N], dx[N];
  rng_seed(43);
  rng_fill_f(x, N, -1.0, 1.0);
  rng_fill_f(dx, N, -1.0, 1.0);
  double scale = 1.7, ds = 0.3;
  float t = __enzyme_fwddiff((void *)wsum, enzyme_dup, x, dx, enzyme_dup, scale, ds,
                             enzyme_const, N);
  double want = 0.0;
  for (int i = 0; i < N; i++)
    want += (2.0 * x[i] * scale + cos((double)x[i])) * dx[i] + (double)x[i] * x[i] * ds;
  check_close("mixed_precision", (double)t, want / N, 1e-6, 1e-7);
  return test_exit();
}
