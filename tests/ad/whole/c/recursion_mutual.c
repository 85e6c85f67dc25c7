/* Mutual recursion (not tail calls) over an array:
 *   ping(i) = x[i] * pong(i-1) + 0.5        ping(-1) = 1
 *   pong(i) = sin(ping(i-1)) + x[i]         pong(-1) = 0.3 */
#include "enzyme_test.h"

double __enzyme_autodiff(void *, ...);

__attribute__((noinline)) double pong(const double *x, int i);

__attribute__((noinline)) double ping(const double *x, int i) {
  if (i < 0) return 1.0;
  return x[i] * pong(x, i - 1) + 0.5;
}
__attribute__((noinline)) double pong(const double *x, int i) {
  if (i < 0) return 0.3;
  return sin(ping(x, i - 1)) + x[i];
}

#ifdef REFERENCE_GRADIENT
/* hand-written tangents: value and d/dx[j] */
static double pong_t(const double *x, int i, int j, double *d);
static double ping_t(const double *x, int i, int j, double *d) {
  if (i < 0) { *d = 0.0; return 1.0; }
  double dq, q = pong_t(x, i - 1, j, &dq);
  *d = (i == j ? q : 0.0) + x[i] * dq;
  return x[i] * q + 0.5;
}
static double pong_t(const double *x, int i, int j, double *d) {
  if (i < 0) { *d = 0.0; return 0.3; }
  double dp, p = ping_t(x, i - 1, j, &dp);
  *d = cos(p) * dp + (i == j ? 1.0 : 0.0);
  return sin(p) + x[i];
}
static void ref_grad_ping(const double *x, double *dx, int n) {
  for (int j = 0; j < n; j++) {
    double d;
    ping_t(x, n - 1, j, &d);
    dx[j] += d;
  }
}
#endif

static void grad_ping(const double *x, double *dx, int n) {
#ifdef REFERENCE_GRADIENT
  ref_grad_ping(x, dx, n);
#else
  __enzyme_autodiff((void *)ping, enzyme_dup, x, dx, enzyme_const, n - 1);
#endif
}

enum { N = 9 };
static double w_x(const double *x, void *c) { (void)c; return ping(x, N - 1); }

int main(void) {
  double x[N], dx[N], fd[N];
  rng_seed(106);
  rng_fill(x, N, -1.0, 1.0);
  zero_array(dx, N);
  grad_ping(x, dx, N);
  fd_grad_array(w_x, x, N, NULL, fd);
  check_array("mutual_ping_dx", dx, fd, N, 1e-6, 1e-9);
  return test_exit();
}
