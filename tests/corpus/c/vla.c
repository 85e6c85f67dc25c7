/* Variable-length arrays: dynamic alloca and VLA parameters. */

double vla_sum_sq(int n, const double *x) {
    double tmp[n];
    for (int i = 0; i < n; ++i)
        tmp[i] = x[i] * x[i];
    double s = 0.0;
    for (int i = 0; i < n; ++i)
        s += tmp[i];
    return s;
}

void matmul_vla(int n, int m, int p, const double a[n][m], const double b[m][p], double c[n][p]) {
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < p; ++j) {
            double s = 0.0;
            for (int k = 0; k < m; ++k)
                s += a[i][k] * b[k][j];
            c[i][j] = s;
        }
}

double stencil_vla(int ny, int nx, double u[ny][nx]) {
    double out[ny][nx];
    for (int j = 0; j < ny; ++j)
        for (int i = 0; i < nx; ++i)
            out[j][i] = u[j][i];
    for (int j = 1; j < ny - 1; ++j)
        for (int i = 1; i < nx - 1; ++i)
            out[j][i] = 0.25 * (u[j - 1][i] + u[j + 1][i] + u[j][i - 1] + u[j][i + 1]);
    double s = 0.0;
    for (int j = 0; j < ny; ++j)
        for (int i = 0; i < nx; ++i)
            s += out[j][i];
    return s;
}

void solve_tridiag(int n, const double *a, const double *b, const double *c, const double *d,
                   double *x) {
    double cp[n], dp[n];
    cp[0] = c[0] / b[0];
    dp[0] = d[0] / b[0];
    for (int i = 1; i < n; ++i) {
        double m = b[i] - a[i] * cp[i - 1];
        cp[i] = c[i] / m;
        dp[i] = (d[i] - a[i] * dp[i - 1]) / m;
    }
    x[n - 1] = dp[n - 1];
    for (int i = n - 2; i >= 0; --i)
        x[i] = dp[i] - cp[i] * x[i + 1];
}

double loop_scoped_vla(int rounds, int n) {
    double total = 0.0;
    for (int r = 0; r < rounds; ++r) {
        double buf[n + r];
        for (int i = 0; i < n + r; ++i)
            buf[i] = (double)(i * r);
        total += buf[n + r - 1];
    }
    return total;
}
