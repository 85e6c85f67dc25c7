/* Dense row-major matrix-vector product y = A x (A is m x n); gradient w.r.t. A and x
 * (dup) for a seed on the dup output y. */
void matvec(const double *restrict A, const double *restrict x, double *restrict y, int m,
            int n) {
  for (int i = 0; i < m; i++) {
    double s = 0.0;
    for (int j = 0; j < n; j++) s += A[(long)i * n + j] * x[j];
    y[i] = s;
  }
}
