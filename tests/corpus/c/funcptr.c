/* Callbacks, tables of function pointers, qsort. */
#include <stdlib.h>
#include <math.h>

typedef double (*unary_fn)(double);

double square(double x) { return x * x; }
double cube(double x) { return x * x * x; }
double negate(double x) { return -x; }

static const unary_fn ops[] = {square, cube, negate, sin, exp};

double apply_table(int k, double x) { return ops[k % 5](x); }

double integrate_trapz(unary_fn f, double a, double b, int n) {
    double h = (b - a) / n;
    double s = 0.5 * (f(a) + f(b));
    for (int i = 1; i < n; ++i)
        s += f(a + i * h);
    return s * h;
}

double simpson_square(double a, double b) { return integrate_trapz(square, a, b, 128); }

void map_inplace(double *x, int n, unary_fn f) {
    for (int i = 0; i < n; ++i)
        x[i] = f(x[i]);
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double median(double *x, int n) {
    qsort(x, (size_t)n, sizeof(double), cmp_double);
    return n % 2 ? x[n / 2] : 0.5 * (x[n / 2 - 1] + x[n / 2]);
}

typedef struct {
    const char *name;
    double (*eval)(double, void *);
    void *params;
} model;

double eval_model(const model *m, double x) { return m->eval(x, m->params); }

double linear_eval(double x, void *p) {
    const double *ab = p;
    return ab[0] * x + ab[1];
}

double fit_residual(const model *m, const double *xs, const double *ys, int n) {
    double r = 0.0;
    for (int i = 0; i < n; ++i) {
        double d = eval_model(m, xs[i]) - ys[i];
        r += d * d;
    }
    return r;
}

unary_fn pick(int which) { return which ? cube : square; }

double compose(unary_fn f, unary_fn g, double x) { return f(g(x)); }

double bisect(double (*f)(double), double lo, double hi, double tol) {
    while (hi - lo > tol) {
        double mid = 0.5 * (lo + hi);
        if ((f(lo) < 0) == (f(mid) < 0))
            lo = mid;
        else
            hi = mid;
    }
    return 0.5 * (lo + hi);
}
