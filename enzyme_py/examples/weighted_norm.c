/* The demo's C example: the gradient of a weighted squared norm through Enzyme's C ABI.
 * Build it with: clang-22 -O2 -S -emit-llvm weighted_norm.c -o wn.ll
 *                enzyme-py transform wn.ll -o wn_grad.ll && clang-22 -O2 wn_grad.ll -lm */
#include <math.h>
#include <stdio.h>

extern int enzyme_dup, enzyme_const;
extern void __enzyme_autodiff(void *, ...);

double weighted_norm(const double *x, const double *w, int n) {
    double s = 0.0;
    for (int i = 0; i < n; i++) s += w[i] * x[i] * x[i];
    return sqrt(s);
}

int main(void) {
    double x[5] = {1, -2, 3, -4, 5}, w[5] = {1, 2, 3, 4, 5}, dx[5] = {0};
    __enzyme_autodiff((void *)weighted_norm, enzyme_dup, x, dx, enzyme_const, w,
                      enzyme_const, 5);
    double norm = weighted_norm(x, w, 5), worst = 0.0;
    for (int i = 0; i < 5; i++) {
        double exact = w[i] * x[i] / norm; /* d/dx_i sqrt(sum w x^2) */
        printf("  d/dx[%d] = %+.12f   (exact %+.12f)\n", i, dx[i], exact);
        worst = fmax(worst, fabs(dx[i] - exact));
    }
    printf("  largest difference from the exact gradient: %.2e\n", worst);
    return worst < 1e-12 ? 0 : 1;
}
