/* While loops with data-dependent exits: Newton and fixed-point iterations. */
#include <math.h>

double newton_sqrt(double a) {
    if (a <= 0.0)
        return 0.0;
    double x = a > 1.0 ? a : 1.0;
    double prev;
    do {
        prev = x;
        x = 0.5 * (x + a / x);
    } while (fabs(x - prev) > 1e-15 * x);
    return x;
}

double newton_cbrt(double a, int *iters) {
    double x = a, dx = 1.0;
    int k = 0;
    while (fabs(dx) > 1e-14 && k < 100) {
        dx = (x * x * x - a) / (3.0 * x * x);
        x -= dx;
        ++k;
    }
    *iters = k;
    return x;
}

double kepler_E(double M, double e) {
    double E = M;
    for (;;) {
        double f = E - e * sin(E) - M;
        double fp = 1.0 - e * cos(E);
        double d = f / fp;
        E -= d;
        if (fabs(d) < 1e-13)
            break;
    }
    return E;
}

double fixed_point_cos(double x0) {
    double x = x0;
    int n = 0;
    while (n++ < 1000) {
        double y = cos(x);
        if (fabs(y - x) < 1e-12)
            return y;
        x = y;
    }
    return x;
}

int collatz_len(unsigned long n) {
    int len = 0;
    while (n != 1) {
        n = (n & 1) ? 3 * n + 1 : n / 2;
        ++len;
    }
    return len;
}

double secant(double (*f)(double), double x0, double x1, double tol) {
    double f0 = f(x0), f1 = f(x1);
    while (fabs(x1 - x0) > tol && f1 != f0) {
        double x2 = x1 - f1 * (x1 - x0) / (f1 - f0);
        x0 = x1;
        f0 = f1;
        x1 = x2;
        f1 = f(x1);
    }
    return x1;
}

int find_first_negative(const double *x, int n) {
    int i = 0;
    while (i < n && x[i] >= 0.0)
        ++i;
    return i < n ? i : -1;
}

double golden_section_min(double (*f)(double), double a, double b) {
    const double r = 0.6180339887498949;
    double c = b - r * (b - a), d = a + r * (b - a);
    while (fabs(b - a) > 1e-10) {
        if (f(c) < f(d))
            b = d;
        else
            a = c;
        c = b - r * (b - a);
        d = a + r * (b - a);
    }
    return 0.5 * (a + b);
}
