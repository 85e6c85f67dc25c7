/* The demo's example: a weighted sum of squares over an array. */
double sum_squares(const double *x, const double *w, long n) {
    double total = 0.0;
    for (long i = 0; i < n; i++) {
        double xi = x[i];
        total += w[i] * xi * xi;
    }
    return total;
}
