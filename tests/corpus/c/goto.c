/* goto-based control flow and computed goto (indirectbr / blockaddress). */

int find_pair(const int *a, int n, int target, int *oi, int *oj) {
    for (int i = 0; i < n; ++i)
        for (int j = i + 1; j < n; ++j)
            if (a[i] + a[j] == target) {
                *oi = i;
                *oj = j;
                goto found;
            }
    return 0;
found:
    return 1;
}

int parse_and_cleanup(const char *s, double *out) {
    int status = -1;
    double v = 0.0;
    if (!s)
        goto fail;
    while (*s) {
        if (*s < '0' || *s > '9')
            goto fail;
        v = v * 10.0 + (*s - '0');
        ++s;
    }
    *out = v;
    status = 0;
fail:
    return status;
}

/* A tiny stack-machine interpreter using GNU labels-as-values. */
enum { OP_PUSH, OP_ADD, OP_MUL, OP_NEG, OP_DUP, OP_HALT };

double run_bytecode(const int *code, const double *consts) {
    static void *dispatch[] = {&&op_push, &&op_add, &&op_mul, &&op_neg, &&op_dup, &&op_halt};
    double stack[64];
    int sp = 0;
    const int *pc = code;
#define NEXT goto *dispatch[*pc++]
    NEXT;
op_push:
    stack[sp++] = consts[*pc++];
    NEXT;
op_add:
    --sp;
    stack[sp - 1] += stack[sp];
    NEXT;
op_mul:
    --sp;
    stack[sp - 1] *= stack[sp];
    NEXT;
op_neg:
    stack[sp - 1] = -stack[sp - 1];
    NEXT;
op_dup:
    stack[sp] = stack[sp - 1];
    ++sp;
    NEXT;
op_halt:
    return sp ? stack[sp - 1] : 0.0;
#undef NEXT
}

double piecewise(double x) {
    void *target = x < 0 ? &&negative : (x < 1 ? &&unit : &&large);
    goto *target;
negative:
    return -x;
unit:
    return x * x;
large:
    return 2.0 * x - 1.0;
}

int retry_loop(int (*attempt)(int), int max) {
    int tries = 0;
again:
    if (attempt(tries) == 0)
        return tries;
    if (++tries < max)
        goto again;
    return -1;
}
