/* 1-D explicit heat equation iterated in time with two local buffers whose
 * pointers swap every step.  The initial state is dup, the diffusion
 * coefficient an enzyme_out scalar (returned), weights enzyme_const.
 *
 * Forward mode (-DFORWARD_MODE): a 1-D heat equation iterated in
 * time with two local buffers whose pointers swap every step; the initial
 * state and the diffusion coefficient carry tangents, the weights are const. */
#include "kernel_test.h"

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

#ifdef FORWARD_MODE
double __enzyme_fwddiff(void *, ...);

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

#else /* reverse mode */
double __enzyme_autodiff(void *, ...);

#ifdef REFERENCE_GRADIENT
static double heat_tan(const double *u0, const double *u0d, double alpha, double alphad,
                       const double *w, int steps) {
  double u[NX], ud[NX], v[NX], vd[NX];
  memcpy(u, u0, sizeof u);
  memcpy(ud, u0d, sizeof ud);
  for (int t = 0; t < steps; t++) {
    for (int i = 0; i < NX; i++) {
      double l = i > 0 ? u[i - 1] : 0.0, ld = i > 0 ? ud[i - 1] : 0.0;
      double r = i < NX - 1 ? u[i + 1] : 0.0, rd = i < NX - 1 ? ud[i + 1] : 0.0;
      double lap = l - 2.0 * u[i] + r, lapd = ld - 2.0 * ud[i] + rd;
      v[i] = u[i] + alpha * lap;
      vd[i] = ud[i] + alphad * lap + alpha * lapd;
    }
    memcpy(u, v, sizeof u);
    memcpy(ud, vd, sizeof ud);
  }
  double sd = 0.0;
  for (int i = 0; i < NX; i++) sd += 2.0 * w[i] * u[i] * ud[i];
  return sd;
}
static double ref_grad_heat(const double *u0, double *du0, double alpha, const double *w,
                            int steps) {
  double e[NX];
  for (int j = 0; j < NX; j++) {
    zero_array(e, NX);
    e[j] = 1.0;
    du0[j] += heat_tan(u0, e, alpha, 0.0, w, steps);
  }
  zero_array(e, NX);
  return heat_tan(u0, e, alpha, 1.0, w, steps);
}
#endif

static double grad_heat(const double *u0, double *du0, double alpha, const double *w,
                        int steps) {
#ifdef REFERENCE_GRADIENT
  return ref_grad_heat(u0, du0, alpha, w, steps);
#else
  return __enzyme_autodiff((void *)heat, enzyme_dup, u0, du0, enzyme_out, alpha,
                           enzyme_const, w, enzyme_const, steps);
#endif
}

enum { STEPS = 60 };
static double ub[NX], wb[NX], alpha_b = 0.21;
static double w_u(const double *u, void *ctx) { (void)ctx; return heat(u, alpha_b, wb, STEPS); }
static double w_alpha(double a, void *ctx) { (void)ctx; return heat(ub, a, wb, STEPS); }

int main(void) {
  double du[NX], fd[NX];
  rng_seed(17);
  rng_fill(ub, NX, 0.0, 2.0);
  rng_fill(wb, NX, 0.5, 1.5);
  zero_array(du, NX);
  double dalpha = grad_heat(ub, du, alpha_b, wb, STEPS);
  fd_grad_array(w_u, ub, NX, NULL, fd);
  check_array("heat_du0", du, fd, NX, 1e-6, 1e-9);
  check_close("heat_dalpha", dalpha, fd_deriv(w_alpha, alpha_b, NULL), 1e-6, 1e-9);
  return test_exit();
}
#endif /* FORWARD_MODE */
