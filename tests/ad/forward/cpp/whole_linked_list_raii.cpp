// Forward mode of tests/ad/whole/cpp/linked_list_raii.cpp: a linked list class with new /
// delete and a destructor (RAII), built from active values, traversed by a const method and
// destroyed at scope exit; x and decay vary together.  No leak (mallinfo2).
#include "fwd_test.h"
#include <malloc.h>
#include <stdlib.h>

// Leak check: mallinfo2().uordblks must not change across __enzyme_fwddiff.
// Run with GLIBC_TUNABLES=glibc.malloc.tcache_count=0 (the harness does): glibc
// counts freed chunks parked in the thread cache as in use.

extern "C" double __enzyme_fwddiff(void *, ...);

class List {
  struct Node {
    double val;
    Node *next;
  };
  Node *head = nullptr;

 public:
  List() = default;
  List(const List &) = delete;
  List &operator=(const List &) = delete;
  ~List() {
    while (head) {
      Node *n = head->next;
      delete head;
      head = n;
    }
  }
  __attribute__((noinline)) void push(double v) { head = new Node{v, head}; }
  __attribute__((noinline)) double weighted(double decay) const {
    double s = 0.0, w = 1.0;
    for (const Node *p = head; p; p = p->next) {
      s += w * p->val;
      w *= decay;
    }
    return s;
  }
};

__attribute__((noinline)) double loss(const double *x, double decay, int n) {
  List l;
  for (int i = 0; i < n; i++) l.push(sin(x[i]) + x[i] * x[i]);
  double s = l.weighted(decay);
  return s * s;
}

enum { N = 8 };
static double w_all(const double *z, void *) { return loss(z, z[N], N); }

int main() {
  double z[N + 1], v[N + 1];
  char name[64];
  rng_seed(214);
  rng_fill(z, N, -1.0, 1.0);
  z[N] = 0.8;
  void *volatile warm = malloc(1); // the malloc arena exists before heap0 is read
  free(warm);
  for (int d = 0; d < 2; d++) {
    rng_fill(v, N + 1, -1.0, 1.0);
    size_t heap0 = mallinfo2().uordblks;
    double t = __enzyme_fwddiff((void *)loss, enzyme_dup, z, v, enzyme_dup, z[N], v[N],
                                enzyme_const, N);
    size_t heap1 = mallinfo2().uordblks;
    snprintf(name, sizeof name, "list_raii_no_leak_%d", d);
    check_close(name, (double)heap1, (double)heap0, 0.0, 0.0);
    snprintf(name, sizeof name, "list_raii_jvp_%d", d);
    check_close(name, t, fd_dir(w_all, z, v, N + 1, nullptr), 1e-6, 1e-9);
  }
  return test_exit();
}
