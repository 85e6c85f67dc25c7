/* Forward mode of tests/ad/whole/c/recursion_heap_tree.c: a binary tree of malloc'd nodes
 * built from x by recursion, summed by recursion and freed; no leak. */
#include "fwd_test.h"
#include <malloc.h>
#include <stdlib.h>

/* Leak check: mallinfo2().uordblks must not change across __enzyme_fwddiff.
 * Run with GLIBC_TUNABLES=glibc.malloc.tcache_count=0 (the harness does): glibc
 * counts freed chunks parked in the thread cache as in use. */

double __enzyme_fwddiff(void *, ...);

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

enum { N = 12 };
static double w_x(const double *x, void *c) { (void)c; return loss(x, N); }

int main(void) {
  double x[N], v[N];
  char name[64];
  rng_seed(108);
  rng_fill(x, N, -1.2, 1.2);
  void *volatile warm = malloc(1); /* the malloc arena exists before heap0 is read */
  free(warm);
  for (int d = 0; d < 2; d++) {
    rng_fill(v, N, -1.0, 1.0);
    size_t heap0 = mallinfo2().uordblks;
    double t = __enzyme_fwddiff((void *)loss, enzyme_dup, x, v, enzyme_const, N);
    size_t heap1 = mallinfo2().uordblks;
    snprintf(name, sizeof name, "heap_tree_no_leak_%d", d);
    check_close(name, (double)heap1, (double)heap0, 0.0, 0.0);
    snprintf(name, sizeof name, "heap_tree_jvp_%d", d);
    check_close(name, t, fd_dir(w_x, x, v, N, NULL), 1e-6, 1e-9);
  }
  return test_exit();
}
