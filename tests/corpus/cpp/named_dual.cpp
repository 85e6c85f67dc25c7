// Compiled with -fno-discard-value-names: a reverse-mode tape with readable IR names.
#include <cmath>
#include <vector>

struct TapeEntry {
    int lhs, rhs;
    double dlhs, drhs;
};

class Tape {
    std::vector<TapeEntry> entries_;
    std::vector<double> values_;

public:
    int variable(double v) {
        values_.push_back(v);
        entries_.push_back({-1, -1, 0.0, 0.0});
        return static_cast<int>(values_.size()) - 1;
    }
    int push(double v, int a, double da, int b, double db) {
        values_.push_back(v);
        entries_.push_back({a, b, da, db});
        return static_cast<int>(values_.size()) - 1;
    }
    int mul(int a, int b) { return push(values_[a] * values_[b], a, values_[b], b, values_[a]); }
    int add(int a, int b) { return push(values_[a] + values_[b], a, 1.0, b, 1.0); }
    int sin(int a) { return push(std::sin(values_[a]), a, std::cos(values_[a]), -1, 0.0); }
    double value(int i) const { return values_[i]; }

    std::vector<double> gradient(int output) const {
        std::vector<double> adjoint(values_.size(), 0.0);
        adjoint[output] = 1.0;
        for (int node = output; node >= 0; --node) {
            const TapeEntry &entry = entries_[node];
            double seed = adjoint[node];
            if (entry.lhs >= 0)
                adjoint[entry.lhs] += entry.dlhs * seed;
            if (entry.rhs >= 0)
                adjoint[entry.rhs] += entry.drhs * seed;
        }
        return adjoint;
    }
};

double named_tape_gradient(double x_value, double y_value, double *dx, double *dy) {
    Tape tape;
    int x = tape.variable(x_value);
    int y = tape.variable(y_value);
    int product = tape.mul(x, y);
    int wave = tape.sin(x);
    int result = tape.add(product, wave);
    std::vector<double> grads = tape.gradient(result);
    *dx = grads[x];
    *dy = grads[y];
    return tape.value(result);
}
