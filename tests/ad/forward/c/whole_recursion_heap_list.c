/* Forward mode of tests/ad/whole/c/recursion_heap_list.c: non-tail recursion over a heap
 * linked list built inside the differentiated function; no leak. */
#include "fwd_test.h"
#include <malloc.h>
#include <stdlib.h>

/* Leak check: mallinfo2().uordblks must not change across __enzyme_fwddiff.
 * Run with GLIBC_TUNABLES=glibc.malloc.tcache_count=0 (the harness does): glibc
 * counts freed chunks parked in the thread cache as in use. */

double __enzyme_fwddiff(void *, ...);

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

enum { N = 10 };
static double w_x(const double *x, void *c) { (void)c; return loss(x, N); }

int main(void) {
  double x[N], v[N];
  char name[64];
  rng_seed(109);
  rng_fill(x, N, -1.0, 1.0);
  void *volatile warm = malloc(1); /* the malloc arena exists before heap0 is read */
  free(warm);
  for (int d = 0; d < 2; d++) {
    rng_fill(v, N, -1.0, 1.0);
    size_t heap0 = mallinfo2().uordblks;
    double t = __enzyme_fwddiff((void *)loss, enzyme_dup, x, v, enzyme_const, N);
    size_t heap1 = mallinfo2().uordblks;
    snprintf(name, sizeof name, "heap_list_no_leak_%d", d);
    check_close(name, (double)heap1, (double)heap0, 0.0, 0.0);
    snprintf(name, sizeof name, "heap_list_jvp_%d", d);
    check_close(name, t, fd_dir(w_x, x, v, N, NULL), 1e-6, 1e-9);
  }
  return test_exit();
}
