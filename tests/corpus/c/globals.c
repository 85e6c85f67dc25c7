/* Mutable globals, const lookup tables, static locals, global struct initializers. */

double g_state[16];
int g_counter = 0;
const double g_weights[8] = {0.1, 0.2, 0.3, 0.4, 0.4, 0.3, 0.2, 0.1};
static const unsigned char popcount_table[16] = {0, 1, 1, 2, 1, 2, 2, 3,
                                                 1, 2, 2, 3, 2, 3, 3, 4};

typedef struct {
    const char *name;
    double lo, hi;
    int steps;
} grid_spec;

grid_spec default_grid = {"unit", 0.0, 1.0, 100};
grid_spec grids[3] = {{"coarse", -1.0, 1.0, 10}, {"fine", -1.0, 1.0, 1000}, {"half", 0.0, 0.5, 50}};

double *state_ptr = &g_state[4];
int *counter_ptr = &g_counter;
const grid_spec *current_grid = &grids[1];
const double *weight_table[2] = {g_weights, &g_weights[4]};

double weighted_window(const double *x) {
    double s = 0.0;
    for (int i = 0; i < 8; ++i)
        s += g_weights[i] * x[i];
    return s;
}

int popcount16(unsigned v) {
    return popcount_table[v & 15] + popcount_table[(v >> 4) & 15] +
           popcount_table[(v >> 8) & 15] + popcount_table[(v >> 12) & 15];
}

int next_id(void) {
    static int id = 1000;
    return id++;
}

double running_mean(double x) {
    static double sum = 0.0;
    static long n = 0;
    sum += x;
    ++n;
    return sum / (double)n;
}

void accumulate_state(const double *x) {
    for (int i = 0; i < 16; ++i)
        g_state[i] += x[i];
    ++g_counter;
    *state_ptr *= 0.5;
}

double grid_step(void) { return (current_grid->hi - current_grid->lo) / current_grid->steps; }

void select_grid(int k) { current_grid = &grids[k % 3]; }

double default_point(int i) {
    return default_grid.lo + (default_grid.hi - default_grid.lo) * i / default_grid.steps;
}

int bump_counter(int by) {
    *counter_ptr += by;
    return g_counter;
}

double first_weights(int half) { return weight_table[half & 1][0]; }
