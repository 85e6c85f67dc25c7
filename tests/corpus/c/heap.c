/* Heap memory: malloc/calloc/realloc/free, linked lists, binary trees. */
#include <stdlib.h>

typedef struct list {
    double value;
    struct list *next;
} list;

list *list_push(list *head, double v) {
    list *n = malloc(sizeof *n);
    if (!n)
        return head;
    n->value = v;
    n->next = head;
    return n;
}

double list_sum(const list *l) {
    double s = 0.0;
    for (; l; l = l->next)
        s += l->value;
    return s;
}

void list_free(list *l) {
    while (l) {
        list *next = l->next;
        free(l);
        l = next;
    }
}

typedef struct {
    double *data;
    size_t len, cap;
} dvec;

int dvec_push(dvec *v, double x) {
    if (v->len == v->cap) {
        size_t nc = v->cap ? 2 * v->cap : 8;
        double *nd = realloc(v->data, nc * sizeof *nd);
        if (!nd)
            return -1;
        v->data = nd;
        v->cap = nc;
    }
    v->data[v->len++] = x;
    return 0;
}

double *zeros(size_t n) { return calloc(n, sizeof(double)); }

typedef struct bst {
    double key;
    struct bst *lo, *hi;
} bst;

bst *bst_insert(bst *t, double key) {
    if (!t) {
        t = calloc(1, sizeof *t);
        t->key = key;
        return t;
    }
    if (key < t->key)
        t->lo = bst_insert(t->lo, key);
    else
        t->hi = bst_insert(t->hi, key);
    return t;
}

int bst_contains(const bst *t, double key) {
    while (t) {
        if (key == t->key)
            return 1;
        t = key < t->key ? t->lo : t->hi;
    }
    return 0;
}

void bst_free(bst *t) {
    if (!t)
        return;
    bst_free(t->lo);
    bst_free(t->hi);
    free(t);
}

double *cumsum_alloc(const double *x, size_t n) {
    double *out = malloc(n * sizeof *out);
    double s = 0.0;
    for (size_t i = 0; i < n; ++i) {
        s += x[i];
        out[i] = s;
    }
    return out;
}

double heap_roundtrip(size_t n) {
    double *tmp = zeros(n);
    for (size_t i = 0; i < n; ++i)
        tmp[i] = (double)i;
    double *c = cumsum_alloc(tmp, n);
    double r = n ? c[n - 1] : 0.0;
    free(c);
    free(tmp);
    return r;
}
