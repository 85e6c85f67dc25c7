/* Forward mode of tests/ad/whole/c/custom_gradient_loop.c: custom forward derivatives
 * (Enzyme's `__enzyme_register_derivative_NAME = {f, f_fwd}`) for callees used inside a loop
 * over an array.  clamp_sq(src, dest) computes dest = src^2 (pointer form: f_fwd takes each
 * pointer followed by its shadow); cube(v) returns v^3 (float form: f_fwd takes v and its
 * tangent and returns {primal, tangent}).  Both rules are wrong ON PURPOSE (3x and 5x the
 * true tangent) and must be called once per iteration. */
#include "fwd_test.h"

double __enzyme_fwddiff(void *, ...);

__attribute__((noinline)) void clamp_sq(const double *src, double *dest) { *dest = *src * *src; }
__attribute__((noinline)) double cube(double v) { return v * v * v; }

int sq_calls = 0, cube_calls = 0;

void clamp_sq_fwd(const double *src, const double *d_src, double *dest, double *d_dest) {
  sq_calls++;
  *dest = *src * *src;
  *d_dest = 3.0 * 2.0 * *src * *d_src; /* deliberately 3x */
}
typedef struct {
  double primal, tangent;
} dual;
dual cube_fwd(double v, double dv) {
  cube_calls++;
  dual r = {v * v * v, 5.0 * 3.0 * v * v * dv}; /* deliberately 5x */
  return r;
}

void *__enzyme_register_derivative_clamp_sq[2] = {(void *)clamp_sq, (void *)clamp_sq_fwd};
void *__enzyme_register_derivative_cube[2] = {(void *)cube, (void *)cube_fwd};

__attribute__((noinline)) double loss(const double *x, const double *w, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++) {
    double y;
    clamp_sq(&x[i], &y);
    s += w[i] * y + x[i] + cube(x[i]);
  }
  return s;
}

enum { N = 6 };

int main(void) {
  double x[N], w[N], v[N];
  char name[64];
  rng_seed(129);
  rng_fill(x, N, -1.0, 1.0);
  rng_fill(w, N, -1.0, 1.0);
  for (int d = 0; d < 2; d++) {
    rng_fill(v, N, -1.0, 1.0);
    int s0 = sq_calls, c0 = cube_calls;
    double t = __enzyme_fwddiff((void *)loss, enzyme_dup, x, v, enzyme_const, w, enzyme_const, N);
    double want = 0.0; /* what the registered (wrong) rules give */
    for (int i = 0; i < N; i++)
      want += (3.0 * 2.0 * x[i] * w[i] + 1.0 + 5.0 * 3.0 * x[i] * x[i]) * v[i];
    snprintf(name, sizeof name, "custom_loop_jvp_uses_rules_%d", d);
    check_close(name, t, want, 1e-12, 1e-12);
    snprintf(name, sizeof name, "custom_loop_sq_calls_%d", d);
    check_close(name, sq_calls - s0, N, 0.0, 0.0);
    snprintf(name, sizeof name, "custom_loop_cube_calls_%d", d);
    check_close(name, cube_calls - c0, N, 0.0, 0.0);
  }
  return test_exit();
}
