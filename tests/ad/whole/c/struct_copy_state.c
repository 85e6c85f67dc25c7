/* Struct state copied by value through a loop: a noinline step() takes the
 * state by value and returns the next state (sret), a pendulum with
 * symplectic Euler; the parameters (k, damping) live in a dup struct. */
#include "enzyme_test.h"

double __enzyme_autodiff(void *, ...);

typedef struct {
  double q, p, t, energy;
} state;
typedef struct {
  double k, gamma;
} coeffs;

__attribute__((noinline)) state step(state s, const coeffs *c, double h) {
  state r = s;
  r.p = s.p - h * (c->k * sin(s.q) + c->gamma * s.p);
  r.q = s.q + h * r.p;
  r.t = s.t + h;
  r.energy = 0.5 * r.p * r.p + c->k * (1.0 - cos(r.q));
  return r;
}
__attribute__((noinline)) double simulate(const state *init, const coeffs *c, int steps) {
  state s = *init;
  double acc = 0.0;
  for (int i = 0; i < steps; i++) {
    state nxt = step(s, c, 0.05);
    s = nxt;
    acc += s.energy * 0.05;
  }
  return acc + s.q * s.q;
}

#ifdef REFERENCE_GRADIENT
enum { MAXS = 64 };
/* hand-written reverse sweep over stored states */
static void ref_grad_simulate(const state *init, state *dinit, const coeffs *c, coeffs *dc,
                              int steps) {
  double q[MAXS + 1], p[MAXS + 1], h = 0.05;
  q[0] = init->q; p[0] = init->p;
  for (int i = 0; i < steps; i++) {
    p[i + 1] = p[i] - h * (c->k * sin(q[i]) + c->gamma * p[i]);
    q[i + 1] = q[i] + h * p[i + 1];
  }
  double gq = 2.0 * q[steps], gp = 0.0, gk = 0.0, gg = 0.0;
  for (int i = steps - 1; i >= 0; i--) {
    /* acc += h * (0.5 p1^2 + k (1 - cos q1)) */
    gp += h * p[i + 1];
    gq += h * c->k * sin(q[i + 1]);
    gk += h * (1.0 - cos(q[i + 1]));
    /* q1 = q0 + h p1 */
    double gq0 = gq, gp1 = gp + h * gq;
    /* p1 = p0 - h (k sin q0 + gamma p0) */
    gq0 += gp1 * (-h * c->k * cos(q[i]));
    double gp0 = gp1 * (1.0 - h * c->gamma);
    gk += gp1 * (-h * sin(q[i]));
    gg += gp1 * (-h * p[i]);
    gq = gq0;
    gp = gp0;
  }
  dinit->q += gq;
  dinit->p += gp;
  dc->k += gk;
  dc->gamma += gg;
}
#endif

static void grad_simulate(const state *s, state *ds, const coeffs *c, coeffs *dc, int steps) {
#ifdef REFERENCE_GRADIENT
  ref_grad_simulate(s, ds, c, dc, steps);
#else
  __enzyme_autodiff((void *)simulate, enzyme_dup, s, ds, enzyme_dup, c, dc, enzyme_const, steps);
#endif
}

enum { STEPS = 40 };
static state s0 = {0.9, -0.2, 0.0, 0.0};
static coeffs c0 = {2.5, 0.3};
static double w_s(const double *v, void *ctx) {
  (void)ctx;
  state s = s0;
  s.q = v[0];
  s.p = v[1];
  return simulate(&s, &c0, STEPS);
}
static double w_c(const double *v, void *ctx) {
  (void)ctx;
  coeffs c = {v[0], v[1]};
  return simulate(&s0, &c, STEPS);
}

int main(void) {
  state ds = {0, 0, 0, 0};
  coeffs dc = {0, 0};
  double fd[2];
  grad_simulate(&s0, &ds, &c0, &dc, STEPS);
  double v[2] = {s0.q, s0.p}, got[2] = {ds.q, ds.p};
  fd_grad_array(w_s, v, 2, NULL, fd);
  check_array("copy_state_dinit", got, fd, 2, 1e-6, 1e-9);
  double vc[2] = {c0.k, c0.gamma}, gotc[2] = {dc.k, dc.gamma};
  fd_grad_array(w_c, vc, 2, NULL, fd);
  check_array("copy_state_dcoeffs", gotc, fd, 2, 1e-6, 1e-9);
  return test_exit();
}
