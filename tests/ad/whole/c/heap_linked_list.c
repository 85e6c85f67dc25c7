/* A linked list of heap nodes holding doubles: built by a noinline push()
 * that mallocs and returns the new head, traversed twice (values, then
 * neighbour couplings), freed by a noinline callee.  No leak (mallinfo2). */
#include "enzyme_test.h"
#include <malloc.h>
#include <stdlib.h>

/* Leak check: mallinfo2().uordblks must not change across __enzyme_autodiff.
 * Run with GLIBC_TUNABLES=glibc.malloc.tcache_count=0 (the harness does): glibc
 * counts freed chunks parked in the thread cache as in use. */

double __enzyme_autodiff(void *, ...);

typedef struct lnode {
  double val;
  int idx;
  struct lnode *next;
} lnode;

__attribute__((noinline)) lnode *push(lnode *head, double v, int idx) {
  lnode *p = (lnode *)malloc(sizeof *p);
  p->val = v;
  p->idx = idx;
  p->next = head;
  return p;
}
__attribute__((noinline)) void free_list(lnode *head) {
  while (head) {
    lnode *next = head->next;
    free(head);
    head = next;
  }
}
__attribute__((noinline)) double loss(const double *x, const double *w, int n) {
  lnode *head = NULL;
  for (int i = 0; i < n; i++) head = push(head, x[i] * x[i] + sin(x[i]), i);
  double s = 0.0;
  for (const lnode *p = head; p; p = p->next) s += w[p->idx] * p->val;
  for (const lnode *p = head; p && p->next; p = p->next) s += 0.1 * p->val * p->next->val;
  free_list(head);
  return s;
}

#ifdef REFERENCE_GRADIENT
static void ref_grad_loss(const double *x, double *dx, const double *w, int n) {
  double v[64];
  for (int i = 0; i < n; i++) v[i] = x[i] * x[i] + sin(x[i]);
  for (int i = 0; i < n; i++) {
    double g = w[i];
    if (i > 0) g += 0.1 * v[i - 1];
    if (i < n - 1) g += 0.1 * v[i + 1];
    dx[i] += g * (2.0 * x[i] + cos(x[i]));
  }
}
#endif

static void grad_loss(const double *x, double *dx, const double *w, int n) {
#ifdef REFERENCE_GRADIENT
  (void)loss(x, w, n); /* the primal allocates and frees, as the real gradient does */
  ref_grad_loss(x, dx, w, n);
#else
  __enzyme_autodiff((void *)loss, enzyme_dup, x, dx, enzyme_const, w, enzyme_const, n);
#endif
}

enum { N = 11 };
static double ws[N];
static double w_x(const double *x, void *c) { (void)c; return loss(x, ws, N); }

int main(void) {
  double x[N], dx[N], fd[N];
  rng_seed(110);
  rng_fill(x, N, -1.0, 1.0);
  rng_fill(ws, N, -1.0, 1.0);
  zero_array(dx, N);
  void *volatile warm = malloc(1); /* the malloc arena and its thread cache */
  free(warm);                      /* exist before heap0 is read */
  size_t heap0 = mallinfo2().uordblks;
  grad_loss(x, dx, ws, N);
  size_t heap1 = mallinfo2().uordblks;
  check_close("linked_list_no_leak", (double)heap1, (double)heap0, 0.0, 0.0);
  fd_grad_array(w_x, x, N, NULL, fd);
  check_array("linked_list_dx", dx, fd, N, 1e-6, 1e-9);
  return test_exit();
}
