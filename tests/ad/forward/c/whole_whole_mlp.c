/* Forward mode of tests/ad/whole/c/whole_mlp.c: a two-layer perceptron whose layers are
 * structs with pointer fields {W, b, in, out} (dup: the shadow layers point at the tangent
 * weights); each noinline layer_forward() mallocs and returns its activations, which the loss
 * frees; the input varies too; no leak. */
#include "fwd_test.h"
#include <malloc.h>
#include <stdlib.h>
#include <string.h>

/* Leak check: mallinfo2().uordblks must not change across __enzyme_fwddiff.
 * Run with GLIBC_TUNABLES=glibc.malloc.tcache_count=0 (the harness does): glibc
 * counts freed chunks parked in the thread cache as in use. */

double __enzyme_fwddiff(void *, ...);

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
enum { NP = NH * NI + NH + NO * NH + NO }; /* all parameters, in one flat array */
static double ts[NO];
static void make_net(double *flat, layer *net) {
  net[0] = (layer){flat, flat + NH * NI, NI, NH};
  net[1] = (layer){flat + NH * NI + NH, flat + NH * NI + NH + NO * NH, NH, NO};
}
/* z = (parameters, input) */
static double w_all(const double *z, void *c) {
  (void)c;
  double flat[NP];
  layer net[2];
  memcpy(flat, z, sizeof flat);
  make_net(flat, net);
  return loss(net, z + NP, ts);
}

int main(void) {
  double z[NP + NI], dz[NP + NI];
  layer net[2], dnet[2];
  char name[64];
  rng_seed(133);
  rng_fill(z, NP, -0.8, 0.8);
  rng_fill(z + NP, NI, -1.0, 1.0);
  rng_fill(ts, NO, -1.0, 1.0);
  make_net(z, net);
  make_net(dz, dnet);
  void *volatile warm = malloc(1); /* the malloc arena exists before heap0 is read */
  free(warm);
  for (int d = 0; d < 2; d++) {
    rng_fill(dz, NP + NI, -1.0, 1.0);
    size_t heap0 = mallinfo2().uordblks;
    double t = __enzyme_fwddiff((void *)loss, enzyme_dup, net, dnet, enzyme_dup, z + NP,
                                dz + NP, enzyme_const, ts);
    size_t heap1 = mallinfo2().uordblks;
    snprintf(name, sizeof name, "mlp_no_leak_%d", d);
    check_close(name, (double)heap1, (double)heap0, 0.0, 0.0);
    snprintf(name, sizeof name, "mlp_jvp_%d", d);
    check_close(name, t, fd_dir(w_all, z, dz, NP + NI, NULL), 1e-6, 1e-9);
  }
  return test_exit();
}
