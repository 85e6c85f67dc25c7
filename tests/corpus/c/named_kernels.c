/* Kernels compiled with -fno-discard-value-names so IR values keep source names. */
#include <math.h>

double named_loss(const double *pred, const double *target, int n) {
    double total = 0.0;
    for (int idx = 0; idx < n; ++idx) {
        double residual = pred[idx] - target[idx];
        total += residual * residual;
    }
    return total / n;
}

void named_softmax(const double *logits, double *probs, int n) {
    double peak = logits[0];
    for (int i = 1; i < n; ++i)
        peak = logits[i] > peak ? logits[i] : peak;
    double denom = 0.0;
    for (int i = 0; i < n; ++i) {
        probs[i] = exp(logits[i] - peak);
        denom += probs[i];
    }
    for (int i = 0; i < n; ++i)
        probs[i] /= denom;
}

struct layer {
    int in_dim, out_dim;
    const double *weights;
    const double *bias;
};

void named_dense_forward(const struct layer *layer, const double *input, double *output) {
    for (int row = 0; row < layer->out_dim; ++row) {
        double acc = layer->bias[row];
        for (int col = 0; col < layer->in_dim; ++col)
            acc += layer->weights[row * layer->in_dim + col] * input[col];
        output[row] = tanh(acc);
    }
}

double named_cross_entropy(const double *probs, const int *labels, int n) {
    double loss = 0.0;
    for (int sample = 0; sample < n; ++sample) {
        double p = probs[sample];
        loss -= labels[sample] ? log(p) : log(1.0 - p);
    }
    return loss;
}

double named_adam_update(double *param, double grad, double *m1, double *m2, int step) {
    const double beta1 = 0.9, beta2 = 0.999, lr = 1e-3, eps = 1e-8;
    *m1 = beta1 * *m1 + (1.0 - beta1) * grad;
    *m2 = beta2 * *m2 + (1.0 - beta2) * grad * grad;
    double m_hat = *m1 / (1.0 - pow(beta1, step));
    double v_hat = *m2 / (1.0 - pow(beta2, step));
    double delta = lr * m_hat / (sqrt(v_hat) + eps);
    *param -= delta;
    return delta;
}
