/* A recursion that returns a pointer into the structure it is given: find()
 * walks a linked list of nodes (in the caller's memory, dup) recursively and
 * returns the node with the largest key; the caller differentiates through the
 * value it points to.  The shadow of the returned pointer is the same node of
 * the shadow list. */
#include "enzyme_test.h"

double __enzyme_autodiff(void *, ...);

typedef struct node {
  double v;
  int key;
  struct node *next;
} node;

__attribute__((noinline)) static node *find(node *t) {
  if (!t->next) return t;
  node *best = find(t->next);
  return best->key > t->key ? best : t;
}

__attribute__((noinline)) double loss(node *l) {
  node *b = find(l);
  double s = 0.0;
  for (node *p = l; p; p = p->next) s += p->v * p->v;
  return sin(b->v) * s;
}

enum { N = 6 };
static node nodes[N];
static const int keys[N] = {3, 9, 1, 7, 4, 2}; /* the largest key is at index 1 */

static double w_x(const double *x, void *c) {
  (void)c;
  for (int i = 0; i < N; i++) nodes[i].v = x[i];
  return loss(&nodes[0]);
}

#ifdef REFERENCE_GRADIENT
static void ref_grad_loss(node *l, node *dl) {
  double s = 0.0;
  for (node *p = l; p; p = p->next) s += p->v * p->v;
  double vb = l[1].v; /* nodes are contiguous; find() returns index 1 */
  for (int i = 0; i < N; i++) dl[i].v += sin(vb) * 2.0 * l[i].v;
  dl[1].v += cos(vb) * s;
}
#endif

int main(void) {
  static node shadow[N];
  double x[N], dx[N], fd[N];
  rng_seed(141);
  rng_fill(x, N, -1.0, 1.0);
  for (int i = 0; i < N; i++) {
    nodes[i] = (node){x[i], keys[i], i + 1 < N ? &nodes[i + 1] : NULL};
    shadow[i] = (node){0.0, keys[i], i + 1 < N ? &shadow[i + 1] : NULL};
  }
#ifdef REFERENCE_GRADIENT
  ref_grad_loss(nodes, shadow);
#else
  __enzyme_autodiff((void *)loss, enzyme_dup, &nodes[0], &shadow[0]);
#endif
  for (int i = 0; i < N; i++) dx[i] = shadow[i].v;
  fd_grad_array(w_x, x, N, NULL, fd);
  check_array("find_node_dx", dx, fd, N, 1e-6, 1e-9);
  return test_exit();
}
