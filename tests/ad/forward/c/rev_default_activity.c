/* Forward mode of tests/ad/c/default_activity.c: arguments without activity
 * annotations.  In forward mode an unmarked double is active (its tangent
 * follows it), an unmarked pointer is dup and an int is constant. */
#include "fwd_test.h"

double __enzyme_fwddiff(void *, ...);

__attribute__((noinline)) double damped(double t, const double *c, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++) s += c[i] * exp(-t * (i + 1)) * cos(t + i);
  return s;
}

enum { N = 9 };
static double w_damped(const double *p, void *x) { (void)x; return damped(p[0], p + 1, N); }

int main(void) {
  double p[N + 1], v[N + 1], g[N + 1];
  rng_seed(27);
  p[0] = 0.35;
  rng_fill(p + 1, N, -1.0, 1.0);
  rng_fill(v, N + 1, -1.0, 1.0);
  double t = __enzyme_fwddiff((void *)damped, p[0], v[0], p + 1, v + 1, N);
  check_close("damped_jvp", t, fd_dir(w_damped, p, v, N + 1, NULL), 1e-6, 1e-9);
  g[0] = 0.0;
  for (int i = 0; i < N; i++) {
    double e = exp(-p[0] * (i + 1)), co = cos(p[0] + i);
    g[0] += p[1 + i] * (-(i + 1) * e * co - e * sin(p[0] + i));
    g[1 + i] = e * co;
  }
  check_close("damped_grad_dot_v", t, dot_dir(g, v, N + 1), 1e-12, 1e-13);
  return test_exit();
}
