// Function and class templates over numeric types.
#include <cstddef>

template <typename T>
T dot(const T *a, const T *b, std::size_t n) {
    T s = T(0);
    for (std::size_t i = 0; i < n; ++i)
        s += a[i] * b[i];
    return s;
}

template <typename T, int N>
struct Vec {
    T v[N];
    T &operator[](int i) { return v[i]; }
    const T &operator[](int i) const { return v[i]; }
    T norm_sq() const {
        T s = T(0);
        for (int i = 0; i < N; ++i)
            s += v[i] * v[i];
        return s;
    }
};

template <typename T, int N>
Vec<T, N> axpy(T a, const Vec<T, N> &x, const Vec<T, N> &y) {
    Vec<T, N> r;
    for (int i = 0; i < N; ++i)
        r[i] = a * x[i] + y[i];
    return r;
}

template <typename T>
T power(T x, unsigned n) {
    T r = T(1);
    while (n) {
        if (n & 1)
            r *= x;
        x *= x;
        n >>= 1;
    }
    return r;
}

template <typename T>
class Matrix {
    T *data_;
    int rows_, cols_;

public:
    Matrix(T *data, int r, int c) : data_(data), rows_(r), cols_(c) {}
    T &at(int i, int j) { return data_[i * cols_ + j]; }
    T at(int i, int j) const { return data_[i * cols_ + j]; }
    void matvec(const T *x, T *y) const {
        for (int i = 0; i < rows_; ++i) {
            T s = T(0);
            for (int j = 0; j < cols_; ++j)
                s += at(i, j) * x[j];
            y[i] = s;
        }
    }
};

template <typename T>
T max_of(T a, T b) { return a > b ? a : b; }

template <typename T, typename... Rest>
T max_of(T a, T b, Rest... rest) { return max_of(max_of(a, b), rest...); }

double dot_d(const double *a, const double *b, std::size_t n) { return dot(a, b, n); }
float dot_f(const float *a, const float *b, std::size_t n) { return dot(a, b, n); }
long dot_l(const long *a, const long *b, std::size_t n) { return dot(a, b, n); }

double vec_demo(double a) {
    Vec<double, 3> x{{1.0, 2.0, 3.0}}, y{{0.5, 0.5, 0.5}};
    return axpy(a, x, y).norm_sq();
}

float vec4f_norm(const Vec<float, 4> &v) { return v.norm_sq(); }

double power_d(double x, unsigned n) { return power(x, n); }
long power_l(long x, unsigned n) { return power(x, n); }

void matvec_f(float *data, int r, int c, const float *x, float *y) {
    Matrix<float> m(data, r, c);
    m.matvec(x, y);
}

double max5(double a, double b, double c, double d, double e) { return max_of(a, b, c, d, e); }

template double dot<double>(const double *, const double *, std::size_t);
template class Matrix<double>;
