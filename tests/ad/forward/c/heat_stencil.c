/* Explicit heat equation, time stepping between two local buffers whose
 * roles swap each step (pointer phis: their shadows swap alike). */
#include "fwd_test.h"

void __enzyme_fwddiff(void *, ...);

__attribute__((noinline)) void heat(const double *u0, double *u, double kappa, int n,
                                    int steps) {
  double a[64], b[64];
  for (int i = 0; i < n; i++) a[i] = u0[i];
  double *cur = a, *nxt = b;
  for (int t = 0; t < steps; t++) {
    nxt[0] = cur[0];
    nxt[n - 1] = cur[n - 1];
    for (int i = 1; i < n - 1; i++)
      nxt[i] = cur[i] + kappa * (cur[i - 1] - 2.0 * cur[i] + cur[i + 1]);
    double *tmp = cur;
    cur = nxt;
    nxt = tmp;
  }
  for (int i = 0; i < n; i++) u[i] = cur[i];
}

enum { N = 21, S = 9, P = N + 1 };
static void w_heat(const double *v, double *out, void *ctx) {
  (void)ctx;
  heat(v, out, v[N], N, S);
}

int main(void) {
  double p[P], v[P], u[N], du[N], want[N];
  rng_seed(29);
  rng_fill(p, N, 0.0, 1.0);
  p[N] = 0.2;
  rng_fill(v, P, -1.0, 1.0);
  __enzyme_fwddiff((void *)heat, enzyme_dup, p, v, enzyme_dup, u, du, enzyme_dup, p[N], v[N],
                   enzyme_const, N, enzyme_const, S);
  fd_dir_vec(w_heat, p, v, P, want, N, NULL);
  check_array("heat_du", du, want, N, 1e-7, 1e-9);
  return test_exit();
}
