/* Forward mode of tests/ad/whole/c/heap_linked_list.c: a linked list of malloc'd nodes
 * built by a noinline push(), traversed twice and freed; no leak. */
#include "fwd_test.h"
#include <malloc.h>
#include <stdlib.h>

/* Leak check: mallinfo2().uordblks must not change across __enzyme_fwddiff.
 * Run with GLIBC_TUNABLES=glibc.malloc.tcache_count=0 (the harness does): glibc
 * counts freed chunks parked in the thread cache as in use. */

double __enzyme_fwddiff(void *, ...);

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

enum { N = 11 };
static double ws[N];
static double w_x(const double *x, void *c) { (void)c; return loss(x, ws, N); }

int main(void) {
  double x[N], v[N];
  char name[64];
  rng_seed(110);
  rng_fill(x, N, -1.0, 1.0);
  rng_fill(ws, N, -1.0, 1.0);
  void *volatile warm = malloc(1); /* the malloc arena exists before heap0 is read */
  free(warm);
  for (int d = 0; d < 2; d++) {
    rng_fill(v, N, -1.0, 1.0);
    size_t heap0 = mallinfo2().uordblks;
    double t = __enzyme_fwddiff((void *)loss, enzyme_dup, x, v, enzyme_const, ws, enzyme_const, N);
    size_t heap1 = mallinfo2().uordblks;
    snprintf(name, sizeof name, "linked_list_no_leak_%d", d);
    check_close(name, (double)heap1, (double)heap0, 0.0, 0.0);
    snprintf(name, sizeof name, "linked_list_jvp_%d", d);
    check_close(name, t, fd_dir(w_x, x, v, N, NULL), 1e-6, 1e-9);
  }
  return test_exit();
}
