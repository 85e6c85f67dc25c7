/* Forward mode of tests/ad/whole/c/recursion_find_node.c: a recursion returning
 * a pointer into the list it is given; the tangent flows through that node. */
#include "fwd_test.h"

double __enzyme_fwddiff(void *, ...);

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
static const int keys[N] = {3, 9, 1, 7, 4, 2};

static double w_x(const double *x, void *c) {
  (void)c;
  for (int i = 0; i < N; i++) nodes[i].v = x[i];
  return loss(&nodes[0]);
}

int main(void) {
  static node tangent[N];
  double x[N], v[N];
  char name[64];
  rng_seed(141);
  rng_fill(x, N, -1.0, 1.0);
  for (int d = 0; d < 2; d++) {
    rng_fill(v, N, -1.0, 1.0);
    for (int i = 0; i < N; i++) {
      nodes[i] = (node){x[i], keys[i], i + 1 < N ? &nodes[i + 1] : NULL};
      tangent[i] = (node){v[i], keys[i], i + 1 < N ? &tangent[i + 1] : NULL};
    }
    double t = __enzyme_fwddiff((void *)loss, enzyme_dup, &nodes[0], &tangent[0]);
    snprintf(name, sizeof name, "find_node_jvp_%d", d);
    check_close(name, t, fd_dir(w_x, x, v, N, NULL), 1e-6, 1e-9);
  }
  return test_exit();
}
