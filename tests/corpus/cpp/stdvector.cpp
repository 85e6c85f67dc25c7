// std::vector<double> with push_back, indexing, and iteration.
#include <cstddef>
#include <vector>

std::vector<double> linspace(double a, double b, int n) {
    std::vector<double> v;
    v.reserve(n);
    for (int i = 0; i < n; ++i)
        v.push_back(a + (b - a) * i / (n - 1));
    return v;
}

double vec_sum(const std::vector<double> &v) {
    double s = 0.0;
    for (std::size_t i = 0; i < v.size(); ++i)
        s += v[i];
    return s;
}

double vec_dot(const std::vector<double> &a, const std::vector<double> &b) {
    double s = 0.0;
    for (std::size_t i = 0; i < a.size(); ++i)
        s += a[i] * b[i];
    return s;
}

void vec_scale(std::vector<double> &v, double s) {
    for (double &x : v)
        x *= s;
}

std::vector<double> cumulative(const std::vector<double> &v) {
    std::vector<double> out;
    double s = 0.0;
    for (double x : v) {
        s += x;
        out.push_back(s);
    }
    return out;
}

std::vector<double> filter_positive(const double *x, int n) {
    std::vector<double> out;
    for (int i = 0; i < n; ++i)
        if (x[i] > 0.0)
            out.push_back(x[i]);
    return out;
}

double trapezoid_area(int n) {
    std::vector<double> xs = linspace(0.0, 1.0, n);
    std::vector<double> ys(xs.size());
    for (std::size_t i = 0; i < xs.size(); ++i)
        ys[i] = xs[i] * xs[i];
    double area = 0.0;
    for (std::size_t i = 1; i < xs.size(); ++i)
        area += 0.5 * (ys[i] + ys[i - 1]) * (xs[i] - xs[i - 1]);
    return area;
}

std::size_t grow_and_shrink(int n) {
    std::vector<double> v(4, 1.0);
    for (int i = 0; i < n; ++i)
        v.push_back(i);
    v.resize(v.size() / 2);
    v.pop_back();
    return v.size() + (v.empty() ? 0 : static_cast<std::size_t>(v.back()));
}

std::vector<std::vector<double>> identity(int n) {
    std::vector<std::vector<double>> m(n, std::vector<double>(n, 0.0));
    for (int i = 0; i < n; ++i)
        m[i][i] = 1.0;
    return m;
}
