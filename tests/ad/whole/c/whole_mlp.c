/* A small whole program: a two-layer perceptron whose layers are structs with
 * pointer fields {W, b, in, out}; the network is an array of layer structs
 * (dup, the shadow layers point at shadow weights).  Each noinline
 * layer_forward() mallocs and returns its activations; the loss frees them.
 * Checks every weight gradient and that nothing leaks (mallinfo2). */
#include "enzyme_test.h"
#include <malloc.h>
#include <stdlib.h>

/* Leak check: mallinfo2().uordblks must not change across __enzyme_autodiff.
 * Run with GLIBC_TUNABLES=glibc.malloc.tcache_count=0 (the harness does): glibc
 * counts freed chunks parked in the thread cache as in use. */

double __enzyme_autodiff(void *, ...);

typedef struct {
  double *W, *b;
  int in, out;
} layer;

__attribute__((noinline)) double *layer_forward(const layer *L, const double *x, int relu) {
  double *y = (double *)malloc(sizeof(double) * (size_t)L->out);
  for (int j = 0; j < L->out; j++) {
    double s = L->b[j];
    for (int i = 0; i < L->in; i++) s += L->W[j * L->in + i] * x[i];
    y[j] = relu ? log(1.0 + exp(s)) : s; /* softplus */
  }
  return y;
}
__attribute__((noinline)) double mse(const double *y, const double *t, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++) s += (y[i] - t[i]) * (y[i] - t[i]);
  return s / n;
}
__attribute__((noinline)) double loss(const layer *net, const double *x, const double *t) {
  double *h = layer_forward(&net[0], x, 1);
  double *y = layer_forward(&net[1], h, 0);
  double l = mse(y, t, net[1].out);
  free(h);
  free(y);
  return l;
}

enum { NI = 4, NH = 5, NO = 3 };

#ifdef REFERENCE_GRADIENT
static void ref_grad_loss(const layer *net, layer *dnet, const double *x, const double *t) {
  double s1[NH], h[NH], y[NO], gy[NO], gh[NH];
  (void)loss(net, x, t); /* the primal allocates and frees, as the real gradient does */
  for (int j = 0; j < NH; j++) {
    s1[j] = net[0].b[j];
    for (int i = 0; i < NI; i++) s1[j] += net[0].W[j * NI + i] * x[i];
    h[j] = log(1.0 + exp(s1[j]));
  }
  for (int k = 0; k < NO; k++) {
    y[k] = net[1].b[k];
    for (int j = 0; j < NH; j++) y[k] += net[1].W[k * NH + j] * h[j];
    gy[k] = 2.0 * (y[k] - t[k]) / NO;
  }
  for (int j = 0; j < NH; j++) gh[j] = 0.0;
  for (int k = 0; k < NO; k++) {
    dnet[1].b[k] += gy[k];
    for (int j = 0; j < NH; j++) {
      dnet[1].W[k * NH + j] += gy[k] * h[j];
      gh[j] += gy[k] * net[1].W[k * NH + j];
    }
  }
  for (int j = 0; j < NH; j++) {
    double gs = gh[j] / (1.0 + exp(-s1[j]));
    dnet[0].b[j] += gs;
    for (int i = 0; i < NI; i++) dnet[0].W[j * NI + i] += gs * x[i];
  }
}
#endif

static void grad_loss(const layer *net, layer *dnet, const double *x, const double *t) {
#ifdef REFERENCE_GRADIENT
  ref_grad_loss(net, dnet, x, t);
#else
  __enzyme_autodiff((void *)loss, enzyme_dup, net, dnet, enzyme_const, x, enzyme_const, t);
#endif
}

enum { NP = NH * NI + NH + NO * NH + NO }; /* all parameters, in one flat array */
static double xs[NI], ts[NO];
static void make_net(double *flat, layer *net) {
  net[0] = (layer){flat, flat + NH * NI, NI, NH};
  net[1] = (layer){flat + NH * NI + NH, flat + NH * NI + NH + NO * NH, NH, NO};
}
static double w_params(const double *p, void *c) {
  (void)c;
  double flat[NP];
  layer net[2];
  memcpy(flat, p, sizeof flat);
  make_net(flat, net);
  return loss(net, xs, ts);
}

int main(void) {
  double flat[NP], dflat[NP], fd[NP];
  layer net[2], dnet[2];
  rng_seed(133);
  rng_fill(flat, NP, -0.8, 0.8);
  rng_fill(xs, NI, -1.0, 1.0);
  rng_fill(ts, NO, -1.0, 1.0);
  zero_array(dflat, NP);
  make_net(flat, net);
  make_net(dflat, dnet);
  void *volatile warm = malloc(1); /* the malloc arena and its thread cache */
  free(warm);                      /* exist before heap0 is read */
  size_t heap0 = mallinfo2().uordblks;
  grad_loss(net, dnet, xs, ts);
  size_t heap1 = mallinfo2().uordblks;
  check_close("mlp_no_leak", (double)heap1, (double)heap0, 0.0, 0.0);
  fd_grad_array(w_params, flat, NP, NULL, fd);
  check_array("mlp_dparams", dflat, fd, NP, 1e-6, 1e-9);
  return test_exit();
}
