/* Dense matrix-vector and matrix-matrix products, row-major. */

void dgemv(int m, int n, double alpha, const double *restrict a, const double *restrict x,
           double beta, double *restrict y) {
    for (int i = 0; i < m; ++i) {
        double acc = 0.0;
        for (int j = 0; j < n; ++j)
            acc += a[i * n + j] * x[j];
        y[i] = alpha * acc + beta * y[i];
    }
}

void dgemv_t(int m, int n, const double *restrict a, const double *restrict x,
             double *restrict y) {
    for (int j = 0; j < n; ++j)
        y[j] = 0.0;
    for (int i = 0; i < m; ++i)
        for (int j = 0; j < n; ++j)
            y[j] += a[i * n + j] * x[i];
}

void dgemm(int m, int n, int k, const double *restrict a, const double *restrict b,
           double *restrict c) {
    for (int i = 0; i < m; ++i) {
        for (int j = 0; j < n; ++j)
            c[i * n + j] = 0.0;
        for (int p = 0; p < k; ++p) {
            double aip = a[i * k + p];
            for (int j = 0; j < n; ++j)
                c[i * n + j] += aip * b[p * n + j];
        }
    }
}

void sgemm_4x4(const float a[16], const float b[16], float c[16]) {
    for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 4; ++j) {
            float s = 0.0f;
            for (int k = 0; k < 4; ++k)
                s += a[4 * i + k] * b[4 * k + j];
            c[4 * i + j] = s;
        }
}

void transpose(int m, int n, const double *restrict a, double *restrict at) {
    for (int i = 0; i < m; ++i)
        for (int j = 0; j < n; ++j)
            at[j * m + i] = a[i * n + j];
}

/* Solve L y = b for lower-triangular L. */
void forward_subst(int n, const double *l, const double *b, double *y) {
    for (int i = 0; i < n; ++i) {
        double s = b[i];
        for (int j = 0; j < i; ++j)
            s -= l[i * n + j] * y[j];
        y[i] = s / l[i * n + i];
    }
}

double trace(int n, const double *a) {
    double t = 0.0;
    for (int i = 0; i < n; ++i)
        t += a[i * n + i];
    return t;
}
