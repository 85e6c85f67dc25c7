// References: lvalue refs, const refs, rvalue refs, ref-returning accessors, structured bindings.
#include <utility>

struct Stats {
    double sum = 0, sum_sq = 0;
    int n = 0;
};

void accumulate(Stats &s, double x) {
    s.sum += x;
    s.sum_sq += x * x;
    ++s.n;
}

double variance(const Stats &s) {
    double m = s.sum / s.n;
    return s.sum_sq / s.n - m * m;
}

void swap_doubles(double &a, double &b) {
    double t = a;
    a = b;
    b = t;
}

double &max_ref(double &a, double &b) { return a > b ? a : b; }

void clamp_larger(double &a, double &b, double limit) {
    double &m = max_ref(a, b);
    if (m > limit)
        m = limit;
}

std::pair<double, double> minmax(const double *x, int n) {
    double lo = x[0], hi = x[0];
    for (int i = 1; i < n; ++i) {
        if (x[i] < lo)
            lo = x[i];
        if (x[i] > hi)
            hi = x[i];
    }
    return {lo, hi};
}

double range(const double *x, int n) {
    auto [lo, hi] = minmax(x, n);
    return hi - lo;
}

struct Big {
    double data[8];
};

double consume(Big &&b) {
    double s = 0;
    for (double &d : b.data)
        s += d;
    return s;
}

double forward_big(double v) {
    Big b{};
    for (double &d : b.data)
        d = v;
    return consume(std::move(b));
}

void sincos_out(double x, double &s, double &c) {
    s = x - x * x * x / 6.0;
    c = 1.0 - x * x / 2.0;
}

double use_out_params(double x) {
    double s, c;
    sincos_out(x, s, c);
    return s * s + c * c;
}

const double &pick(const double *table, int i) { return table[i]; }
