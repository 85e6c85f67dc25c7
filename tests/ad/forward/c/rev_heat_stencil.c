/* Forward mode of tests/ad/c/heat_stencil.c: a 1-D heat equation iterated in
 * time with two local buffers whose pointers swap every step; the initial
 * state and the diffusion coefficient carry tangents, the weights are const. */
#include "fwd_test.h"

double __enzyme_fwddiff(void *, ...);

#define NX 16

__attribute__((noinline)) double heat(const double *u0, double alpha, const double *w,
                                      int steps) {
  double a[NX], b[NX];
  double *u = a, *v = b;
  for (int i = 0; i < NX; i++) u[i] = u0[i];
  for (int t = 0; t < steps; t++) {
    for (int i = 0; i < NX; i++) {
      double l = i > 0 ? u[i - 1] : 0.0;
      double r = i < NX - 1 ? u[i + 1] : 0.0;
      v[i] = u[i] + alpha * (l - 2.0 * u[i] + r);
    }
    double *tmp = u;
    u = v;
    v = tmp;
  }
  double s = 0.0;
  for (int i = 0; i < NX; i++) s += w[i] * u[i] * u[i];
  return s;
}

enum { STEPS = 60 };
static double wb[NX];
/* p = u0, alpha */
static double w_heat(const double *p, void *ctx) { (void)ctx; return heat(p, p[NX], wb, STEPS); }

int main(void) {
  double p[NX + 1], v[NX + 1];
  rng_seed(17);
  rng_fill(p, NX, 0.0, 2.0);
  p[NX] = 0.21;
  rng_fill(wb, NX, 0.5, 1.5);
  rng_fill(v, NX + 1, -1.0, 1.0);
  double t = __enzyme_fwddiff((void *)heat, enzyme_dup, p, v, enzyme_dup, p[NX], v[NX],
                              enzyme_const, wb, enzyme_const, STEPS);
  check_close("heat_jvp", t, fd_dir(w_heat, p, v, NX + 1, NULL), 1e-6, 1e-9);
  /* only alpha moves */
  double ta = __enzyme_fwddiff((void *)heat, enzyme_const, p, enzyme_dup, p[NX], 1.0,
                               enzyme_const, wb, enzyme_const, STEPS);
  double e[NX + 1];
  zero_array(e, NX + 1);
  e[NX] = 1.0;
  check_close("heat_dalpha", ta, fd_dir(w_heat, p, e, NX + 1, NULL), 1e-6, 1e-9);
  return test_exit();
}
