// new/delete, new[]/delete[] and RAII ownership of numeric buffers.
#include <cstddef>
#include <cstring>

class Buffer {
    double *data_;
    std::size_t n_;

public:
    explicit Buffer(std::size_t n) : data_(new double[n]()), n_(n) {}
    ~Buffer() { delete[] data_; }
    Buffer(const Buffer &o) : data_(new double[o.n_]), n_(o.n_) {
        std::memcpy(data_, o.data_, n_ * sizeof(double));
    }
    Buffer &operator=(const Buffer &) = delete;
    double &operator[](std::size_t i) { return data_[i]; }
    std::size_t size() const { return n_; }
    double sum() const {
        double s = 0;
        for (std::size_t i = 0; i < n_; ++i)
            s += data_[i];
        return s;
    }
};

double buffer_demo(std::size_t n) {
    Buffer b(n);
    for (std::size_t i = 0; i < n; ++i)
        b[i] = 0.5 * i;
    Buffer c(b);
    c[0] = 10.0;
    return b.sum() + c.sum();
}

struct Node {
    double key;
    Node *left = nullptr, *right = nullptr;
    explicit Node(double k) : key(k) {}
    ~Node() {
        delete left;
        delete right;
    }
};

Node *insert(Node *root, double key) {
    if (!root)
        return new Node(key);
    if (key < root->key)
        root->left = insert(root->left, key);
    else
        root->right = insert(root->right, key);
    return root;
}

int count_nodes(const Node *n) { return n ? 1 + count_nodes(n->left) + count_nodes(n->right) : 0; }

int tree_demo(const double *keys, int n) {
    Node *root = nullptr;
    for (int i = 0; i < n; ++i)
        root = insert(root, keys[i]);
    int c = count_nodes(root);
    delete root;
    return c;
}

double *alloc_grid(int nx, int ny) { return new double[static_cast<std::size_t>(nx) * ny]; }

void free_grid(double *g) { delete[] g; }

struct Point {
    double x = 0, y = 0;
};

double centroid_x(int n) {
    Point *pts = new Point[n];
    for (int i = 0; i < n; ++i)
        pts[i].x = i;
    double s = 0;
    for (int i = 0; i < n; ++i)
        s += pts[i].x;
    delete[] pts;
    return n ? s / n : 0.0;
}

int *make_counter() { return new int(0); }
void drop_counter(int *p) { delete p; }
