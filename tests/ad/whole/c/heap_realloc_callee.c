/* A growable vector of doubles in a struct: a noinline push() reallocs the
 * buffer it is given (a block allocated by the caller), doubling its capacity.
 * The differentiated function fills it from x, reads it back and frees it.
 * Inlined, the old block's size is known; called (--no-inline), it is what
 * malloc_usable_size says.  No leak. */
#include "enzyme_test.h"
#include <malloc.h>
#include <stdlib.h>

/* Leak check: mallinfo2().uordblks must not change across __enzyme_autodiff.
 * Run with GLIBC_TUNABLES=glibc.malloc.tcache_count=0 (the harness does): glibc
 * counts freed chunks parked in the thread cache as in use. */

double __enzyme_autodiff(void *, ...);

typedef struct {
  double *data;
  int n, cap;
} dvec;

__attribute__((noinline)) static void push(dvec *v, double x) {
  if (v->n == v->cap) {
    v->cap = 2 * v->cap;
    v->data = (double *)realloc(v->data, sizeof(double) * (size_t)v->cap);
  }
  v->data[v->n++] = x;
}

__attribute__((noinline)) double loss(const double *x, int n) {
  dvec v = {(double *)malloc(sizeof(double)), 0, 1};
  for (int i = 0; i < n; i++) push(&v, x[i] * x[(i + 2) % n]);
  double s = 0.0;
  for (int i = 0; i < v.n; i++) s += sin(v.data[i]) * (i + 1);
  free(v.data);
  return s;
}

#ifdef REFERENCE_GRADIENT
static void ref_grad_loss(const double *x, double *dx, int n) {
  for (int i = 0; i < n; i++) {
    int j = (i + 2) % n;
    double g = cos(x[i] * x[j]) * (i + 1);
    dx[i] += g * x[j];
    dx[j] += g * x[i];
  }
}
#endif

static void grad_loss(const double *x, double *dx, int n) {
#ifdef REFERENCE_GRADIENT
  (void)loss(x, n); /* the primal allocates and frees, as the real gradient does */
  ref_grad_loss(x, dx, n);
#else
  __enzyme_autodiff((void *)loss, enzyme_dup, x, dx, enzyme_const, n);
#endif
}

enum { N = 13 };
static double w_x(const double *x, void *c) { (void)c; return loss(x, N); }

int main(void) {
  double x[N], dx[N], fd[N];
  rng_seed(137);
  rng_fill(x, N, -1.2, 1.2);
  zero_array(dx, N);
  void *volatile warm = malloc(1); /* the malloc arena and its thread cache */
  free(warm);                      /* exist before heap0 is read */
  size_t heap0 = mallinfo2().uordblks;
  grad_loss(x, dx, N);
  size_t heap1 = mallinfo2().uordblks;
  check_close("realloc_callee_no_leak", (double)heap1, (double)heap0, 0.0, 0.0);
  fd_grad_array(w_x, x, N, NULL, fd);
  check_array("realloc_callee_dx", dx, fd, N, 1e-6, 1e-9);
  return test_exit();
}
