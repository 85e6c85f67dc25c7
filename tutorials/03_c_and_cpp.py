# ---
# jupyter:
#   jupytext:
#     formats: ipynb,py:percent
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 3. C and C++ through Enzyme's C ABI
#
# The differentiation engine works on LLVM IR, so it is not tied to Python. C and C++ code uses
# the interface of [Enzyme](https://enzyme.mit.edu): you call a function that does not exist,
# `__enzyme_autodiff`, and a compiler pass replaces the call by the gradient. The workflow:
#
# ```sh
# clang-22 -O2 -S -emit-llvm prog.c -o prog.ll     # C -> LLVM IR (text)
# enzyme-py transform prog.ll -o prog_grad.ll      # every __enzyme_autodiff call -> a gradient
# clang-22 -O2 prog_grad.ll -o prog -lm            # IR -> executable
# ```
#
# The arguments after the function pointer say what to do with each argument of the function:
#
# | marker | argument(s) that follow | result |
# |---|---|---|
# | `enzyme_dup` | a pointer and its **shadow** (same shape) | the gradient is *added* to it |
# | `enzyme_out` | a floating point value | its derivative is *returned* |
# | `enzyme_const` | any value | not differentiated |
#
# Without a marker, integers are `const`, floating point values `out` and pointers `dup`, as in
# Enzyme. The markers are `extern int` globals that you declare and never define.
#
# This notebook needs `clang-22` (and `clang++-22`, from the same Debian package). If it is
# missing, the compile cells print how to install it and do nothing.

# %%
import ctypes
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

CLANG = shutil.which("clang-22")
CLANGXX = shutil.which("clang++-22")
HAVE_CLANG = CLANG is not None and CLANGXX is not None
INSTALL = ("clang-22 is not installed, so the compile cells are skipped. "
           "On Debian/Ubuntu: apt-get install clang-22")
print("clang-22 found" if HAVE_CLANG else INSTALL)

work = Path(tempfile.mkdtemp(prefix="enzyme_py_tutorial_"))


def run(*cmd):
    """Run a command in the work directory, show it with short names, return its output."""
    shown = " ".join(Path(c).name if Path(c).is_absolute() else c for c in cmd)
    print("$", shown)
    res = subprocess.run(cmd, cwd=work, capture_output=True, text=True, check=False)
    if res.returncode != 0:
        raise RuntimeError(f"{shown} failed ({res.returncode}):\n{res.stderr}")
    return res.stdout


def transform(src_ll, out_ll, *options):
    """`enzyme-py transform [options] src_ll -o out_ll` with this notebook's Python."""
    print("$ enzyme-py transform", *options, src_ll, "-o", out_ll)
    res = subprocess.run([sys.executable, "-m", "enzyme_py", "transform", *options, src_ll,
                          "-o", out_ll], cwd=work, capture_output=True, text=True, check=False)
    if res.returncode != 0:
        raise RuntimeError(f"enzyme-py transform failed:\n{res.stderr}")

# %% [markdown]
# ## A C example: `dup`, `out` and `const` in one call
#
# The energy of a chain of springs: positions `x[0..n)`, stiffness `k`, rest length 1, plus a
# small external potential. We want the gradient with respect to the positions (an array: `dup`
# with a shadow `dx`) and the derivative with respect to `k` (a double: `out`, returned), while
# `n` is a constant.

# %%
chain_c = r"""
#include <math.h>
#include <stdio.h>

extern int enzyme_dup, enzyme_const, enzyme_out;
extern double __enzyme_autodiff(void *, ...);

double energy(const double *x, double k, int n) {
    double e = 0.0;
    for (int i = 0; i + 1 < n; i++) {
        double d = x[i + 1] - x[i] - 1.0;
        e += k * d * d;
    }
    for (int i = 0; i < n; i++) e += 0.1 * cos(x[i]);
    return e;
}

int main(void) {
    enum { N = 5 };
    double x[N] = {0.0, 1.2, 1.9, 3.3, 4.1}, dx[N] = {0};
    double k = 2.5;
    double dk = __enzyme_autodiff((void *)energy, enzyme_dup, x, dx, enzyme_out, k,
                                  enzyme_const, N);
    printf("energy %.17g\n", energy(x, k, N));
    printf("dk %.17g\n", dk);
    for (int i = 0; i < N; i++) printf("dx %.17g\n", dx[i]);
    return 0;
}
"""
(work / "chain.c").write_text(chain_c)

if HAVE_CLANG:
    run(CLANG, "-O2", "-fPIC", "-S", "-emit-llvm", "chain.c", "-o", "chain.ll")
    transform("chain.ll", "chain_grad.ll")
    run(CLANG, "-O2", "chain_grad.ll", "-o", "chain", "-lm")
    output = run("./chain")
    print(output)
else:
    print(INSTALL)

# %% [markdown]
# `enzyme-py transform` generated a function `@diffe_energy` and replaced the call. Its
# arguments follow the markers: `x`, its shadow, `k`, `n`, and the seed `1.0` of the result;
# it returns the derivative with respect to `k`:

# %%
if HAVE_CLANG:
    grad_ir = (work / "chain_grad.ll").read_text()
    print(next(line for line in grad_ir.splitlines() if line.startswith("define")
               and "@diffe_energy(" in line))
    print(next(line.strip() for line in grad_ir.splitlines() if "call" in line
               and "@diffe_energy(" in line))
else:
    print(INSTALL)

# %% [markdown]
# ### Checking against finite differences
#
# The same transformed IR, built as a shared library, lets Python call the primal `energy`
# through `ctypes`, so we can compare with central differences:

# %%
def central_differences(fun, p, h=1e-6):
    p = np.asarray(p, dtype=float)
    out = np.empty_like(p)
    for i in range(p.size):
        e = np.zeros_like(p)
        e[i] = h
        out[i] = (fun(p + e) - fun(p - e)) / (2 * h)
    return out


if HAVE_CLANG:
    run(CLANG, "-O2", "-shared", "chain_grad.ll", "-o", "libchain.so", "-lm")
    lib = ctypes.CDLL(str(work / "libchain.so"))
    lib.energy.restype = ctypes.c_double
    lib.energy.argtypes = [np.ctypeslib.ndpointer(np.float64, flags="C"), ctypes.c_double,
                           ctypes.c_int]

    x0 = np.array([0.0, 1.2, 1.9, 3.3, 4.1])
    k0 = 2.5
    values = {}
    for line in output.splitlines():
        name, number = line.split()
        values.setdefault(name, []).append(float(number))
    ad_dx, ad_dk = np.array(values["dx"]), values["dk"][0]

    fd_dx = central_differences(lambda x: lib.energy(x, k0, 5), x0)
    fd_dk = central_differences(lambda k: lib.energy(x0, k[0], 5), [k0])[0]
    print("dE/dx  AD:", ad_dx)
    print("       FD:", fd_dx)
    print("dE/dk  AD:", ad_dk, "  FD:", fd_dk)
    assert np.allclose(ad_dx, fd_dx, rtol=1e-6, atol=1e-8)
    assert abs(ad_dk - fd_dk) < 1e-6 * max(1.0, abs(fd_dk))
    print("the gradient matches central differences")
else:
    print(INSTALL)

# %% [markdown]
# ## A C++ example: a class with a `std::vector<double>` member
#
# Whole programs work, including the C++ standard library: heap memory, `new`/`delete`,
# iterators. Below, a polynomial model keeps its coefficients in a `std::vector<double>`, and
# we differentiate a loss with respect to the *object*: it is passed as `enzyme_dup` together
# with a shadow object, whose vector has the same size and starts at zero. After the call, the
# shadow's vector holds the gradient with respect to the coefficients. (In C++, declare
# `__enzyme_autodiff` as `extern "C"`.)

# %%
poly_cpp = r"""
#include <cstdio>
#include <vector>

extern int enzyme_dup, enzyme_const;
extern "C" void __enzyme_autodiff(void *, ...);

// p(t) = sum_k c[k] t^k
struct Poly {
    std::vector<double> c;
    double operator()(double t) const {
        double r = 0.0, p = 1.0;
        for (double ck : c) { r += ck * p; p *= t; }
        return r;
    }
};

// mean squared error of the model on (ts, ys)
double mse(const Poly *model, const double *ts, const double *ys, int n) {
    double s = 0.0;
    for (int i = 0; i < n; i++) {
        double r = (*model)(ts[i]) - ys[i];
        s += r * r;
    }
    return s / n;
}

// the same loss with the coefficients as a flat array, for the check from Python
extern "C" double mse_flat(const double *c, int m, const double *ts, const double *ys, int n) {
    Poly model{std::vector<double>(c, c + m)};
    return mse(&model, ts, ys, n);
}

int main() {
    const double ts[4] = {-1.0, 0.0, 0.5, 2.0}, ys[4] = {1.0, 0.5, 0.0, -1.0};
    Poly model{{0.3, -0.2, 0.1}};
    Poly dmodel{std::vector<double>(model.c.size(), 0.0)};  // the shadow object
    __enzyme_autodiff((void *)mse, enzyme_dup, &model, &dmodel,
                      enzyme_const, ts, enzyme_const, ys, enzyme_const, 4);
    for (double g : dmodel.c) std::printf("%.17g\n", g);
    return 0;
}
"""
(work / "poly.cpp").write_text(poly_cpp)

if HAVE_CLANG:
    flags = ["-std=c++17", "-fno-exceptions", "-O2", "-fPIC"]
    run(CLANGXX, *flags, "-S", "-emit-llvm", "poly.cpp", "-o", "poly.ll")
    transform("poly.ll", "poly_grad.ll")
    run(CLANGXX, "-O2", "poly_grad.ll", "-o", "poly")
    ad_dc = np.array([float(v) for v in run("./poly").split()])
    print("dmse/dc (AD):", ad_dc)
else:
    print(INSTALL)

# %% [markdown]
# (`-fno-exceptions`: the example throws nothing, and the IR stays smaller.) The check, again
# through the shared library:

# %%
if HAVE_CLANG:
    run(CLANGXX, "-O2", "-shared", "poly_grad.ll", "-o", "libpoly.so")
    plib = ctypes.CDLL(str(work / "libpoly.so"))
    arr = np.ctypeslib.ndpointer(np.float64, flags="C")
    plib.mse_flat.restype = ctypes.c_double
    plib.mse_flat.argtypes = [arr, ctypes.c_int, arr, arr, ctypes.c_int]
    ts = np.array([-1.0, 0.0, 0.5, 2.0])
    ys = np.array([1.0, 0.5, 0.0, -1.0])
    fd_dc = central_differences(lambda c: plib.mse_flat(c, 3, ts, ys, 4), [0.3, -0.2, 0.1])
    print("dmse/dc (FD):", fd_dc)
    assert np.allclose(ad_dc, fd_dc, rtol=1e-6, atol=1e-8)
    print("the gradient matches central differences")
else:
    print(INSTALL)

# %% [markdown]
# ## Recursion: calls that stay calls
#
# Callees are inlined before differentiating, but a recursion cannot be. Such a call gets two
# functions, as in Enzyme: `@augmented_f` runs `f` forward and returns a *tape* (what its
# reverse needs), and `@diffe_f` takes that tape back in the reverse sweep. So a recursive
# function may write memory, allocate and return heap memory: here `build` makes a binary tree
# of `malloc`'d nodes from `x`, `tsum` sums it recursively, and `tfree` frees it.

# %%
tree_c = r"""
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

extern int enzyme_dup, enzyme_const;
extern double __enzyme_autodiff(void *, ...);

typedef struct node { double val; struct node *left, *right; } node;

node *build(const double *x, int lo, int hi) {
    if (lo >= hi) return NULL;
    int mid = (lo + hi) / 2;
    node *t = malloc(sizeof *t);
    t->val = x[mid] * x[mid];
    t->left = build(x, lo, mid);
    t->right = build(x, mid + 1, hi);
    return t;
}
double tsum(const node *t, int depth) {
    if (!t) return 0.0;
    return sin(t->val) * (depth + 1) + tsum(t->left, depth + 1) + tsum(t->right, depth + 1);
}
void tfree(node *t) {
    if (!t) return;
    tfree(t->left);
    tfree(t->right);
    free(t);
}
double loss(const double *x, int n) {
    node *root = build(x, 0, n);
    double s = tsum(root, 0);
    tfree(root);
    return s;
}

int main(void) {
    enum { N = 7 };
    double x[N] = {0.3, -0.8, 1.1, 0.5, -0.2, 0.9, -1.3}, dx[N] = {0};
    __enzyme_autodiff((void *)loss, enzyme_dup, x, dx, enzyme_const, N);
    for (int i = 0; i < N; i++) printf("%.17g\n", dx[i]);
    return 0;
}
"""
(work / "tree.c").write_text(tree_c)

if HAVE_CLANG:
    run(CLANG, "-O2", "-fPIC", "-S", "-emit-llvm", "tree.c", "-o", "tree.ll")
    transform("tree.ll", "tree_grad.ll")
    run(CLANG, "-O2", "tree_grad.ll", "-o", "tree", "-lm")
    tree_dx = np.array([float(v) for v in run("./tree").split()])
    run(CLANG, "-O2", "-shared", "tree_grad.ll", "-o", "libtree.so", "-lm")
    tlib = ctypes.CDLL(str(work / "libtree.so"))
    tlib.loss.restype = ctypes.c_double
    tlib.loss.argtypes = [np.ctypeslib.ndpointer(np.float64, flags="C"), ctypes.c_int]
    x0 = np.array([0.3, -0.8, 1.1, 0.5, -0.2, 0.9, -1.3])
    fd_tree = central_differences(lambda v: tlib.loss(v, 7), x0)
    print("AD:", tree_dx)
    print("FD:", fd_tree)
    assert np.allclose(tree_dx, fd_tree, rtol=1e-6, atol=1e-8)
    grad_ir = (work / "tree_grad.ll").read_text()
    print([line.split("@")[1].split("(")[0] for line in grad_ir.splitlines()
           if line.startswith("define") and ("@augmented_" in line or "@diffe_" in line)])
else:
    print(INSTALL)

# %% [markdown]
# Each recursive function got its pair; `loss` itself, with the calls inlined where they could
# be, is `@diffe_loss`. `enzyme-py transform --no-inline` keeps *every* call a call, as Enzyme
# leaves them: each callee on an active path gets its own pair, with the activities its caller
# sees (useful to read each function's derivative on its own, or to keep a large callee from
# being copied into every caller; inlining is usually faster).

# %% [markdown]
# ## More of the ABI
#
# - `__enzyme_fwddiff` is forward mode: `enzyme_dup` passes a value and its tangent, and the
#   call returns the directional derivative; `enzyme_width, k` propagates `k` tangents at once.
# - Several `enzyme_out` arguments come back as a struct of doubles.
# - `void *__enzyme_register_gradient_f[3] = {f, f_aug, f_rev};` registers a hand-written
#   gradient for `f` (for Python functions, `ez.custom_vjp` does the same; see
#   [06](06_forward_hessians_custom.ipynb)), and functions listed in `__enzyme_inactivefn` are
#   treated as having no derivative.
# - `enzyme-py grad prog.ll -f f -a dup,out,const -o g.ll` adds `@diffe_f` for one function
#   without any marker in the source.

# %%
shutil.rmtree(work)
