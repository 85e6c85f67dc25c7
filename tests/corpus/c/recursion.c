/* Recursion: fib, ackermann, tree recursion, mutual recursion. */

long fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

unsigned long ackermann(unsigned long m, unsigned long n) {
    if (m == 0)
        return n + 1;
    if (n == 0)
        return ackermann(m - 1, 1);
    return ackermann(m - 1, ackermann(m, n - 1));
}

double power_rec(double x, unsigned n) {
    if (n == 0)
        return 1.0;
    double h = power_rec(x, n / 2);
    return n % 2 ? h * h * x : h * h;
}

int is_even(unsigned n);
int is_odd(unsigned n) { return n == 0 ? 0 : is_even(n - 1); }
int is_even(unsigned n) { return n == 0 ? 1 : is_odd(n - 1); }

struct node {
    double value;
    struct node *left, *right;
};

double tree_sum(const struct node *t) {
    if (!t)
        return 0.0;
    return t->value + tree_sum(t->left) + tree_sum(t->right);
}

int tree_depth(const struct node *t) {
    if (!t)
        return 0;
    int l = tree_depth(t->left), r = tree_depth(t->right);
    return 1 + (l > r ? l : r);
}

double adaptive_simpson(double (*f)(double), double a, double b, double eps, double whole,
                        int depth) {
    double c = 0.5 * (a + b);
    double fa = f(a), fb = f(b), fc = f(c);
    double left = (c - a) / 6.0 * (fa + 4.0 * f(0.5 * (a + c)) + fc);
    double right = (b - c) / 6.0 * (fc + 4.0 * f(0.5 * (c + b)) + fb);
    if (depth <= 0 || (left + right - whole < 15 * eps && whole - left - right < 15 * eps))
        return left + right + (left + right - whole) / 15.0;
    return adaptive_simpson(f, a, c, eps / 2, left, depth - 1) +
           adaptive_simpson(f, c, b, eps / 2, right, depth - 1);
}

void quicksort(double *a, int lo, int hi) {
    if (lo >= hi)
        return;
    double p = a[(lo + hi) / 2];
    int i = lo, j = hi;
    while (i <= j) {
        while (a[i] < p)
            ++i;
        while (a[j] > p)
            --j;
        if (i <= j) {
            double t = a[i];
            a[i++] = a[j];
            a[j--] = t;
        }
    }
    quicksort(a, lo, j);
    quicksort(a, i, hi);
}

long gcd(long a, long b) { return b == 0 ? a : gcd(b, a % b); }

double det_rec(int n, const double *m) {
    if (n == 1)
        return m[0];
    double sub[64], d = 0.0, sign = 1.0;
    for (int c = 0; c < n; ++c) {
        int k = 0;
        for (int i = 1; i < n; ++i)
            for (int j = 0; j < n; ++j)
                if (j != c)
                    sub[k++] = m[i * n + j];
        d += sign * m[c] * det_rec(n - 1, sub);
        sign = -sign;
    }
    return d;
}
