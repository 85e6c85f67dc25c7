/* LSTM objective of ADBench (lstm.h: lstm_objective) and its gradient through Enzyme's C ABI.
 *
 * Same parameters, in the same order, as lstm.primal: main_params (2l x 4b), extra_params
 * (3 x b), state (2l x b, copied, not changed), sequence (c x b), then l, c, b.
 * lstm_gradient adds d/d main_params and d/d extra_params into the two zeroed shadows.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

extern int enzyme_dup, enzyme_const;
extern double __enzyme_autodiff(void *, ...);

static double sigmoid(double x) { return 1 / (1 + exp(-x)); }

/* log(sum(exp(vect)) + 2), as ADBench's LSTM defines it */
static double logsumexp(const double *vect, int64_t sz) {
    double sum = 0.0;
    for (int64_t i = 0; i < sz; ++i)
        sum += exp(vect[i]);
    sum += 2;
    return log(sum);
}

/* One layer: weight = [forget ingate outgate change] (4 hsize), bias likewise. */
static void lstm_model(int64_t hsize, const double *weight, const double *bias,
                       double *hidden, double *cell, const double *input) {
    for (int64_t i = 0; i < hsize; ++i) {
        double forget = sigmoid(input[i] * weight[i] + bias[i]);
        double ingate = sigmoid(hidden[i] * weight[hsize + i] + bias[hsize + i]);
        double outgate = sigmoid(input[i] * weight[2 * hsize + i] + bias[2 * hsize + i]);
        double change = tanh(hidden[i] * weight[3 * hsize + i] + bias[3 * hsize + i]);
        cell[i] = cell[i] * forget + ingate * change;
        hidden[i] = outgate * tanh(cell[i]);
    }
}

static void lstm_predict(int64_t l, int64_t b, const double *main_params,
                         const double *extra_params, double *state, const double *input,
                         double *output) {
    for (int64_t i = 0; i < b; ++i)
        output[i] = input[i] * extra_params[i];
    const double *layer_output = output;
    for (int64_t i = 0; i < l; ++i) {
        const double *weight = &main_params[8 * b * i];
        double *hidden = &state[2 * b * i];
        lstm_model(b, weight, &weight[4 * b], hidden, &hidden[b], layer_output);
        layer_output = hidden;
    }
    for (int64_t i = 0; i < b; ++i)
        output[i] = layer_output[i] * extra_params[b + i] + extra_params[2 * b + i];
}

double lstm_primal(const double *restrict main_params, const double *restrict extra_params,
                   const double *restrict state, const double *restrict sequence, int64_t l,
                   int64_t c, int64_t b) {
    double *st = malloc(sizeof(double) * 2 * l * b);
    memcpy(st, state, sizeof(double) * 2 * l * b);
    double *ypred = malloc(sizeof(double) * b);
    double *ynorm = malloc(sizeof(double) * b);
    double total = 0.0;
    int64_t count = 0;
    for (int64_t t = 0; t < c - 1; ++t) {
        lstm_predict(l, b, main_params, extra_params, st, &sequence[t * b], ypred);
        double lse = logsumexp(ypred, b);
        for (int64_t i = 0; i < b; i++)
            ynorm[i] = ypred[i] - lse;
        const double *ygold = &sequence[(t + 1) * b];
        for (int64_t i = 0; i < b; i++)
            total += ygold[i] * ynorm[i];
        count += b;
    }
    free(st);
    free(ypred);
    free(ynorm);
    return -total / count;
}

void lstm_gradient(const double *main_params, const double *extra_params, const double *state,
                   const double *sequence, int64_t l, int64_t c, int64_t b,
                   double *d_main_params, double *d_extra_params) {
    __enzyme_autodiff((void *)lstm_primal, enzyme_dup, main_params, d_main_params,
                      enzyme_dup, extra_params, d_extra_params, enzyme_const, state,
                      enzyme_const, sequence, enzyme_const, l, enzyme_const, c, enzyme_const,
                      b);
}
