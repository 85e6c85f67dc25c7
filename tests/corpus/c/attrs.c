/* __builtin_expect, restrict, alignment attributes, noinline, static inline. */
#include <stddef.h>

typedef struct __attribute__((aligned(32))) {
    double v[4];
} aligned4;

double buffer64[256] __attribute__((aligned(64)));

static inline double clamp01(double x) { return x < 0.0 ? 0.0 : (x > 1.0 ? 1.0 : x); }

__attribute__((noinline)) double slow_path(double x) { return x * x * x - 2.0 * x; }

__attribute__((noinline, cold)) void report_error(int code) {
    volatile int sink = code;
    (void)sink;
}

double fast_or_slow(double x) {
    if (__builtin_expect(x >= 0.0 && x <= 1.0, 1))
        return clamp01(x) * 2.0;
    return slow_path(x);
}

int checked_div(int a, int b, int *out) {
    if (__builtin_expect(b == 0, 0)) {
        report_error(1);
        return -1;
    }
    *out = a / b;
    return 0;
}

void scale_aligned(aligned4 *restrict dst, const aligned4 *restrict src, double s, int n) {
    for (int i = 0; i < n; ++i)
        for (int k = 0; k < 4; ++k)
            dst[i].v[k] = s * src[i].v[k];
}

void add_assumed_aligned(double *restrict a, const double *restrict b, size_t n) {
    double *pa = __builtin_assume_aligned(a, 64);
    const double *pb = __builtin_assume_aligned(b, 64);
    for (size_t i = 0; i < n; ++i)
        pa[i] += pb[i];
}

double sum_buffer(void) {
    double s = 0.0;
    for (int i = 0; i < 256; ++i)
        s += clamp01(buffer64[i]);
    return s;
}

__attribute__((always_inline)) static inline int sign(double x) { return (x > 0) - (x < 0); }

int sign_changes(const double *restrict x, int n) {
    int c = 0;
    for (int i = 1; i < n; ++i)
        c += sign(x[i]) != sign(x[i - 1]);
    return c;
}

__attribute__((pure)) double pure_norm1(const double *x, int n) {
    double s = 0.0;
    for (int i = 0; i < n; ++i)
        s += x[i] < 0 ? -x[i] : x[i];
    return s;
}

__attribute__((const)) int ilog2(unsigned v) { return v ? 31 - __builtin_clz(v) : -1; }

int popcnt_sum(const unsigned *x, int n) {
    int s = 0;
    for (int i = 0; i < n; ++i)
        s += __builtin_popcount(x[i]) + __builtin_ctz(x[i] | 1u);
    return s;
}

void unreachable_default(int k, double *out) {
    switch (k) {
    case 0: *out = 1.0; break;
    case 1: *out = 2.0; break;
    default: __builtin_unreachable();
    }
}
