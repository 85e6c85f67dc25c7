/* Recursion over heap data: a binary tree of malloc'd nodes holding doubles is
 * built from x inside the differentiated function, summed by a recursion with
 * two calls, and freed recursively.  No leak: mallinfo2().uordblks is equal
 * before and after the __enzyme_autodiff call. */
#include "enzyme_test.h"
#include <malloc.h>
#include <stdlib.h>

/* Leak check: mallinfo2().uordblks must not change across __enzyme_autodiff.
 * Run with GLIBC_TUNABLES=glibc.malloc.tcache_count=0 (the harness does): glibc
 * counts freed chunks parked in the thread cache as in use. */

double __enzyme_autodiff(void *, ...);

typedef struct node {
  double val;
  struct node *left, *right;
} node;

__attribute__((noinline)) static node *build(const double *x, int lo, int hi) {
  if (lo >= hi) return NULL;
  int mid = (lo + hi) / 2;
  node *t = (node *)malloc(sizeof *t);
  t->val = x[mid] * x[mid];
  t->left = build(x, lo, mid);
  t->right = build(x, mid + 1, hi);
  return t;
}
__attribute__((noinline)) static double tsum(const node *t, int depth) {
  if (!t) return 0.0;
  return sin(t->val) * (depth + 1) + tsum(t->left, depth + 1) + tsum(t->right, depth + 1);
}
__attribute__((noinline)) static void tfree(node *t) {
  if (!t) return;
  tfree(t->left);
  tfree(t->right);
  free(t);
}
__attribute__((noinline)) double loss(const double *x, int n) {
  node *root = build(x, 0, n);
  double s = tsum(root, 0);
  tfree(root);
  return s;
}

#ifdef REFERENCE_GRADIENT
static void ref_rev(const double *x, double *dx, int lo, int hi, int depth) {
  if (lo >= hi) return;
  int mid = (lo + hi) / 2;
  dx[mid] += (depth + 1) * cos(x[mid] * x[mid]) * 2.0 * x[mid];
  ref_rev(x, dx, lo, mid, depth + 1);
  ref_rev(x, dx, mid + 1, hi, depth + 1);
}
static void ref_grad_loss(const double *x, double *dx, int n) { ref_rev(x, dx, 0, n, 0); }
#endif

static void grad_loss(const double *x, double *dx, int n) {
#ifdef REFERENCE_GRADIENT
  (void)loss(x, n); /* the primal allocates and frees, as the real gradient does */
  ref_grad_loss(x, dx, n);
#else
  __enzyme_autodiff((void *)loss, enzyme_dup, x, dx, enzyme_const, n);
#endif
}

enum { N = 12 };
static double w_x(const double *x, void *c) { (void)c; return loss(x, N); }

int main(void) {
  double x[N], dx[N], fd[N];
  rng_seed(108);
  rng_fill(x, N, -1.2, 1.2);
  zero_array(dx, N);
  void *volatile warm = malloc(1); /* the malloc arena and its thread cache */
  free(warm);                      /* exist before heap0 is read */
  size_t heap0 = mallinfo2().uordblks;
  grad_loss(x, dx, N);
  size_t heap1 = mallinfo2().uordblks;
  check_close("heap_tree_no_leak", (double)heap1, (double)heap0, 0.0, 0.0);
  fd_grad_array(w_x, x, N, NULL, fd);
  check_array("heap_tree_dx", dx, fd, N, 1e-6, 1e-9);
  return test_exit();
}
