/* Variadic functions with va_list/va_arg, and calls to printf. */
#include <stdarg.h>
#include <stdio.h>

double sum_doubles(int count, ...) {
    va_list ap;
    va_start(ap, count);
    double s = 0.0;
    for (int i = 0; i < count; ++i)
        s += va_arg(ap, double);
    va_end(ap);
    return s;
}

int max_ints(int count, ...) {
    va_list ap;
    va_start(ap, count);
    int m = va_arg(ap, int);
    for (int i = 1; i < count; ++i) {
        int v = va_arg(ap, int);
        if (v > m)
            m = v;
    }
    va_end(ap);
    return m;
}

double weighted_mean(int count, ...) {
    va_list ap, ap2;
    va_start(ap, count);
    va_copy(ap2, ap);
    double w = 0.0, s = 0.0;
    for (int i = 0; i < count; ++i) {
        double x = va_arg(ap, double);
        double wi = va_arg(ap, double);
        s += x * wi;
    }
    for (int i = 0; i < count; ++i) {
        (void)va_arg(ap2, double);
        w += va_arg(ap2, double);
    }
    va_end(ap2);
    va_end(ap);
    return s / w;
}

int log_message(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int n = fprintf(stderr, "[enzyme] ");
    n += vfprintf(stderr, fmt, ap);
    va_end(ap);
    return n;
}

void print_vector(const double *x, int n) {
    printf("[");
    for (int i = 0; i < n; ++i)
        printf(i ? ", %g" : "%g", x[i]);
    printf("]\n");
}

void report(double loss, int iter) {
    printf("iter %d: loss=%.6e grad=%s\n", iter, loss, loss < 1e-8 ? "converged" : "running");
}

double average3(void) { return sum_doubles(3, 1.0, 2.5, 4.0) / 3.0 + max_ints(4, 3, 9, 2, 7); }
