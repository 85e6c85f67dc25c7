// std::array for fixed-size small vectors and matrices.
#include <array>
#include <cstddef>

using Vec4 = std::array<double, 4>;
using Mat4 = std::array<Vec4, 4>;

Vec4 mat4_mul_vec(const Mat4 &m, const Vec4 &v) {
    Vec4 r{};
    for (std::size_t i = 0; i < 4; ++i)
        for (std::size_t j = 0; j < 4; ++j)
            r[i] += m[i][j] * v[j];
    return r;
}

Mat4 mat4_mul(const Mat4 &a, const Mat4 &b) {
    Mat4 c{};
    for (std::size_t i = 0; i < 4; ++i)
        for (std::size_t k = 0; k < 4; ++k)
            for (std::size_t j = 0; j < 4; ++j)
                c[i][j] += a[i][k] * b[k][j];
    return c;
}

double array_sum(const std::array<double, 16> &a) {
    double s = 0.0;
    for (double x : a)
        s += x;
    return s;
}

std::array<float, 8> butterfly(const std::array<float, 8> &in) {
    std::array<float, 8> out;
    for (std::size_t i = 0; i < 4; ++i) {
        out[i] = in[i] + in[i + 4];
        out[i + 4] = in[i] - in[i + 4];
    }
    return out;
}

static constexpr std::array<double, 5> gauss_w = {0.2369268850561891, 0.4786286704993665,
                                                  0.5688888888888889, 0.4786286704993665,
                                                  0.2369268850561891};
static constexpr std::array<double, 5> gauss_x = {-0.9061798459386640, -0.5384693101056831, 0.0,
                                                  0.5384693101056831, 0.9061798459386640};

double gauss_legendre5(double (*f)(double), double a, double b) {
    double s = 0.0, half = 0.5 * (b - a), mid = 0.5 * (a + b);
    for (std::size_t i = 0; i < gauss_w.size(); ++i)
        s += gauss_w[i] * f(mid + half * gauss_x[i]);
    return half * s;
}

double mat4_trace(const Mat4 &m) {
    double t = 0;
    for (std::size_t i = 0; i < m.size(); ++i)
        t += m.at(i).at(i);
    return t;
}

Vec4 array_fill(double v) {
    Vec4 a;
    a.fill(v);
    a.back() = -v;
    return a;
}
