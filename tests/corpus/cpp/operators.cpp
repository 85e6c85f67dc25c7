// Operator overloading: a dual-number type for forward-mode AD and a 3-vector.
#include <cmath>

struct Dual {
    double val, der;
    Dual(double v = 0, double d = 0) : val(v), der(d) {}
};

inline Dual operator+(Dual a, Dual b) { return {a.val + b.val, a.der + b.der}; }
inline Dual operator-(Dual a, Dual b) { return {a.val - b.val, a.der - b.der}; }
inline Dual operator*(Dual a, Dual b) { return {a.val * b.val, a.der * b.val + a.val * b.der}; }
inline Dual operator/(Dual a, Dual b) {
    return {a.val / b.val, (a.der * b.val - a.val * b.der) / (b.val * b.val)};
}
inline Dual operator-(Dual a) { return {-a.val, -a.der}; }
inline bool operator<(Dual a, Dual b) { return a.val < b.val; }
Dual sin(Dual a) { return {std::sin(a.val), a.der * std::cos(a.val)}; }
Dual exp(Dual a) {
    double e = std::exp(a.val);
    return {e, a.der * e};
}

Dual &operator+=(Dual &a, Dual b) {
    a.val += b.val;
    a.der += b.der;
    return a;
}

template <typename T>
T model(T x) { return x * x * sin(x) + exp(-x) / (x + T(1.0)); }

double model_derivative(double x) { return model(Dual(x, 1.0)).der; }

struct Vec3 {
    double x, y, z;
    Vec3 operator+(const Vec3 &o) const { return {x + o.x, y + o.y, z + o.z}; }
    Vec3 operator-(const Vec3 &o) const { return {x - o.x, y - o.y, z - o.z}; }
    Vec3 operator*(double s) const { return {x * s, y * s, z * s}; }
    double operator|(const Vec3 &o) const { return x * o.x + y * o.y + z * o.z; }
    Vec3 operator^(const Vec3 &o) const {
        return {y * o.z - z * o.y, z * o.x - x * o.z, x * o.y - y * o.x};
    }
    double &operator[](int i) { return i == 0 ? x : (i == 1 ? y : z); }
    bool operator==(const Vec3 &o) const { return x == o.x && y == o.y && z == o.z; }
};

Vec3 operator*(double s, const Vec3 &v) { return v * s; }

double triple_product(const Vec3 &a, const Vec3 &b, const Vec3 &c) { return a | (b ^ c); }

Vec3 reflect(const Vec3 &d, const Vec3 &n) { return d - 2.0 * (d | n) * n; }

Dual poly_dual(const Dual *coef, int n, Dual x) {
    Dual r = coef[n - 1];
    for (int i = n - 2; i >= 0; --i)
        r = r * x + coef[i];
    return r;
}

double dual_sum_der(const double *xs, int n) {
    Dual acc;
    for (int i = 0; i < n; ++i)
        acc += Dual(xs[i], 1.0) * Dual(xs[i], 1.0);
    return acc.der;
}

struct Counter {
    int n = 0;
    Counter &operator++() {
        ++n;
        return *this;
    }
    Counter operator++(int) {
        Counter old = *this;
        ++n;
        return old;
    }
    explicit operator bool() const { return n != 0; }
    int operator()(int k) const { return n * k; }
};

int counter_demo(int k) {
    Counter c;
    ++c;
    c++;
    return c ? c(k) : -1;
}
