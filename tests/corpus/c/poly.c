/* Polynomial evaluation schemes. */

double horner(const double *c, int degree, double x) {
    double r = c[degree];
    for (int i = degree - 1; i >= 0; --i)
        r = r * x + c[i];
    return r;
}

double horner_deriv(const double *c, int degree, double x, double *dp) {
    double p = c[degree], d = 0.0;
    for (int i = degree - 1; i >= 0; --i) {
        d = d * x + p;
        p = p * x + c[i];
    }
    *dp = d;
    return p;
}

float poly5f(float x) {
    return ((((0.008333f * x + 0.041667f) * x + 0.166667f) * x + 0.5f) * x + 1.0f) * x + 1.0f;
}

double chebyshev(const double *c, int n, double x) {
    double b0 = 0.0, b1 = 0.0, b2 = 0.0;
    for (int k = n - 1; k >= 0; --k) {
        b2 = b1;
        b1 = b0;
        b0 = 2.0 * x * b1 - b2 + c[k];
    }
    return 0.5 * (b0 - b2 + c[0]);
}

void poly_eval_many(const double *c, int degree, const double *xs, double *ys, int n) {
    for (int j = 0; j < n; ++j) {
        double r = c[degree];
        for (int i = degree - 1; i >= 0; --i)
            r = r * xs[j] + c[i];
        ys[j] = r;
    }
}

double legendre(int n, double x) {
    if (n == 0)
        return 1.0;
    double p0 = 1.0, p1 = x;
    for (int k = 2; k <= n; ++k) {
        double p2 = ((2 * k - 1) * x * p1 - (k - 1) * p0) / k;
        p0 = p1;
        p1 = p2;
    }
    return p1;
}

void poly_mul(const double *a, int na, const double *b, int nb, double *out) {
    for (int i = 0; i < na + nb - 1; ++i)
        out[i] = 0.0;
    for (int i = 0; i < na; ++i)
        for (int j = 0; j < nb; ++j)
            out[i + j] += a[i] * b[j];
}

double lagrange(const double *xs, const double *ys, int n, double x) {
    double sum = 0.0;
    for (int i = 0; i < n; ++i) {
        double term = ys[i];
        for (int j = 0; j < n; ++j)
            if (j != i)
                term *= (x - xs[j]) / (xs[i] - xs[j]);
        sum += term;
    }
    return sum;
}
