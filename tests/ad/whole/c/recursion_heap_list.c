/* Non-tail recursion over a heap linked list built inside the differentiated
 * function: lsum(p) = p->val^2 + 0.5 sin(lsum(p->next)), lsum(NULL) = 0.
 * No leak (mallinfo2). */
#include "enzyme_test.h"
#include <malloc.h>
#include <stdlib.h>

/* Leak check: mallinfo2().uordblks must not change across __enzyme_autodiff.
 * Run with GLIBC_TUNABLES=glibc.malloc.tcache_count=0 (the harness does): glibc
 * counts freed chunks parked in the thread cache as in use. */

double __enzyme_autodiff(void *, ...);

typedef struct lnode {
  double val;
  struct lnode *next;
} lnode;

__attribute__((noinline)) static double lsum(const lnode *p) {
  if (!p) return 0.0;
  return p->val * p->val + 0.5 * sin(lsum(p->next));
}
__attribute__((noinline)) double loss(const double *x, int n) {
  lnode *head = NULL;
  for (int i = n - 1; i >= 0; i--) {
    lnode *p = (lnode *)malloc(sizeof *p);
    p->val = x[i] + 0.1 * x[i] * x[i];
    p->next = head;
    head = p;
  }
  double s = lsum(head);
  while (head) {
    lnode *next = head->next;
    free(head);
    head = next;
  }
  return s;
}

#ifdef REFERENCE_GRADIENT
static void ref_grad_loss(const double *x, double *dx, int n) {
  double v[64], s[65]; /* s[i] = lsum from node i */
  for (int i = 0; i < n; i++) v[i] = x[i] + 0.1 * x[i] * x[i];
  s[n] = 0.0;
  for (int i = n - 1; i >= 0; i--) s[i] = v[i] * v[i] + 0.5 * sin(s[i + 1]);
  double g = 1.0; /* adjoint of s[i] */
  for (int i = 0; i < n; i++) {
    dx[i] += g * 2.0 * v[i] * (1.0 + 0.2 * x[i]);
    g *= 0.5 * cos(s[i + 1]);
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

enum { N = 10 };
static double w_x(const double *x, void *c) { (void)c; return loss(x, N); }

int main(void) {
  double x[N], dx[N], fd[N];
  rng_seed(109);
  rng_fill(x, N, -1.0, 1.0);
  zero_array(dx, N);
  void *volatile warm = malloc(1); /* the malloc arena and its thread cache */
  free(warm);                      /* exist before heap0 is read */
  size_t heap0 = mallinfo2().uordblks;
  grad_loss(x, dx, N);
  size_t heap1 = mallinfo2().uordblks;
  check_close("heap_list_rec_no_leak", (double)heap1, (double)heap0, 0.0, 0.0);
  fd_grad_array(w_x, x, N, NULL, fd);
  check_array("heap_list_rec_dx", dx, fd, N, 1e-6, 1e-9);
  return test_exit();
}
