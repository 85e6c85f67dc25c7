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
# # 2. How it works: one function through every stage
#
# `ez.grad(f)` is a small compiler pipeline. This notebook follows one function through it and
# prints the IR at each stage with `ez.show(f, *args, stage=...)`:
#
# | stage | what it is |
# |---|---|
# | `python` | the LLVM IR our front end makes from the Python source |
# | `preprocessed` | canonicalized: SSA values instead of stack slots, simple loops |
# | `activity` | the same IR annotated `; active` / `; const` by activity analysis |
# | `gradient` | the IR with the new function `@diffe_f`, before optimization |
# | `optimized` | the module after LLVM's `-O2`, which is what gets compiled to native code |
#
# The function: a sum of `sin(x[i]) * x[i]`. Its gradient is
# `d/dx[i] = cos(x[i]) * x[i] + sin(x[i])`.

# %%
import math
import re

import numpy as np

import enzyme_py as ez
from enzyme_py.ad.driver import AD_PIPELINE


def f(x):
    s = 0.0
    for i in range(x.shape[0]):
        s += math.sin(x[i]) * x[i]
    return s


x = np.array([0.1, 0.2, 0.3])
print("grad  ", ez.grad(f)(x))
print("exact ", np.cos(x) * x + np.sin(x))

# %% [markdown]
# A few helpers keep the printed IR short: `function_text` cuts one function out of a module,
# `block_text` one basic block (by label), `find_block` the first block that contains some
# text, and `head` keeps the first lines.

# %%
def function_text(module_text, name):
    """The `define` of @name in a module's text."""
    start = module_text.rindex("\ndefine", 0, module_text.index(f" @{name}(")) + 1
    return module_text[start:module_text.index("\n}\n", start) + 2]


def block_text(text, label):
    """The basic block `label:` of a function's text."""
    lines = text.splitlines()
    start = lines.index(f"{label}:")
    end = start + 1
    while end < len(lines) and lines[end].strip() and not lines[end].endswith(":"):
        end += 1
    return "\n".join(lines[start:end])


def find_block(text, *needles):
    """The first basic block of a function's text that contains every needle."""
    for label in re.findall(r"^([-\w.]+):", text, re.M):
        block = block_text(text, label)
        if all(n in block for n in needles):
            return block
    raise LookupError(f"no block contains {needles}")


def head(text, n):
    lines = text.splitlines()
    more = f"\n  ... ({len(lines) - n} more lines)" if len(lines) > n else ""
    return "\n".join(lines[:n]) + more


stages = {stage: ez.show(f, x, stage=stage)
          for stage in ("python", "preprocessed", "activity", "gradient", "optimized")}
for stage, text in stages.items():
    print(f"{stage:13s} {len(text.splitlines()):4d} lines")

# %% [markdown]
# ## Stage 1: Python → IR
#
# The front end reads the function's source with `inspect`, infers types from the arguments
# (`x` is a 1-D float64 array, so it becomes a pointer `%x` plus its length `%x.shape0`), and
# emits straightforward IR in the style of `clang -O0`: every local variable is a stack slot
# (`alloca`) that is stored to and loaded from. Indexing is bounds-checked: an out-of-range
# index branches to a `check.fail` block that records the error, and Python raises `IndexError`
# after the call returns. Checks inside an innermost loop whose indexes are `i + c` (or do not
# change in the loop) are tested once before it: the loop is emitted twice, `for.unchecked`
# without those checks and `for.checked` with them, and the test picks one. Here the test is
# `0 <= 0 and x.shape0 - 1 < x.shape0`, which the optimizer folds away in the next stage,
# together with the checked copy.

# %%
print(head(function_text(stages["python"], "f"), 24))

# %% [markdown]
# ## Stage 2: preprocessing
#
# Before differentiating, the IR is canonicalized the way Enzyme does it, with this list of
# passes:

# %%
print(AD_PIPELINE.replace(",", " -> "))

# %% [markdown]
# `sroa` turns the stack slots into SSA values and `phi` nodes, `instcombine` and `simplifycfg`
# clean up, `mergereturn` leaves one `ret`, and `loop-simplify`/`lcssa` give every loop a
# preheader, a single back edge and exit-block `phi`s for values that leave the loop. The
# derivative transform relies on these shapes. The whole function is now short:

# %%
print(function_text(stages["preprocessed"], "f"))

# %% [markdown]
# (`ez.grad` additionally runs LLVM's `-O2` pipeline, without loop unrolling and
# vectorization, on `f` *before* this step: it differentiates optimized code, which is the
# main idea of Enzyme; see [05_performance](05_performance.ipynb). `ez.show` leaves that step
# out so the stages stay close to your source; `ez.show(..., preoptimize=True)` includes it.)
#
# ## Stage 3: activity analysis
#
# Most of a program carries no derivative: loop counters, comparisons, address arithmetic. The
# activity analysis finds the values that do. A value is
#
# - *varied* if it depends on an active input (here, the memory behind `x`),
# - *useful* if it can influence the active output (the returned float),
# - *active* if it is both.
#
# Only active instructions get derivative code. Integer and pointer values never carry a
# derivative. Memory that holds active floats gets **shadow memory**: for the array `x` the
# caller passes a second array of the same shape, `x.shadow`, into which the gradient is
# accumulated (`ez.grad` allocates it and hands it back to you as the result).

# %%
print(stages["activity"].split("entry:")[0])
for label in ("for.cond", "for.inc"):
    print(block_text(stages["activity"], label))

# %% [markdown]
# The loop counter `%i.next.0` and the address `%1` are `const`; the loaded element `%2`,
# `sin`, the product and the running sum are `active`.
#
# ## Stage 4: the gradient function
#
# The reverse transform builds `@diffe_f(x, x.shadow, x.shape0, dret)`: `dret` is the seed
# (1.0 for a gradient), and the adjoint of `x` is *added* into `x.shadow`. Its body has two
# parts:
#
# 1. the **forward sweep**: a copy of `f`, instrumented with an iteration counter `%iv` and the
#    stores that fill the **tape**;
# 2. the **reverse sweep**: one block `rev.<block>` per original block, visited in reverse
#    order, that accumulates adjoints (`%name.d` slots) from the result back to the inputs.
#
# The reverse sweep needs some forward values again. For each one the transform decides:
#
# - **recompute** it when that is cheap and safe: `x[i]` is simply loaded again, because
#   nothing in `f` writes to `x`; and `sin(x[i])` is a pure math call on a value that can be
#   recomputed, so the reverse sweep calls `sin` again rather than storing it;
# - **cache** it on the tape otherwise: an array with one slot per loop iteration, allocated
#   with `malloc` before the loop (its trip count is known on entry) and freed at the end of
#   the reverse sweep. (All the arrays a loop nest needs share one such allocation.)
#
# So `f`'s forward loop body has no tape store, and its reverse reloads `x[i]` (through the
# reverse iteration counter `%riv`), calls `sin` and `cos` (the derivative of `sin`), and adds
# the result into the shadow `x.shadow[i]`:

# %%
diffe = function_text(stages["gradient"], "diffe_f")
print(head(diffe, 3))
print("  ...")
print(block_text(diffe, "for.inc"))
print()
print(block_text(diffe, "rev.for.inc"))

# %% [markdown]
# A value that depends on earlier iterations cannot be recomputed from `x[i]` alone. In `g`
# the running value `t` is carried from one iteration to the next, so the forward sweep stores
# each `t` into `%tape` (at the iteration counter `%iv`) and the reverse reads it back (at
# `%riv`) to compute `cos(t)`:

# %%
def g(x):
    t = 0.0
    s = 0.0
    for i in range(x.shape[0]):
        t = 0.5 * t + x[i]
        s += math.sin(t)
    return s


print("grad  ", ez.grad(g)(x))
g_diffe = function_text(ez.show(g, x, stage="gradient"), "diffe_g")
print(find_block(g_diffe, "store double", "%tape"))
print()
print(find_block(g_diffe, "%tape", "@llvm.cos.f64"))

# %% [markdown]
# Control flow is reversed too: where a block has several predecessors, a `came.from` index
# remembers which branch was taken, and `%riv` counts the loop iterations down to zero.

# %%
print(block_text(diffe, "rev.for.cond"))

# %% [markdown]
# ## Stage 5: optimization
#
# The gradient is written naively: adjoints live in stack slots (`alloca`), and every adjoint
# is loaded, updated, stored and zeroed after use. LLVM's `-O2` cleans this up (the adjoint slots
# become registers, dead code disappears) and then optimizes the result like any other code.
# Here the forward sweep is gone entirely: it computed only the primal sum, which a gradient
# does not need. What is left is the reversed loop, which LLVM vectorized 8 wide (`sin` and
# `cos` of eight elements at a time):

# %%
opt = function_text(stages["optimized"], "diffe_f")
print(find_block(opt, "@llvm.sin.v", "@llvm.cos.v"))

# %% [markdown]
# One iteration of the scalar remainder loop: reload `x[i]`, recompute `sin`, compute `cos`,
# and accumulate into the shadow:

# %%
print(find_block(opt, "@llvm.cos.f64(double", "%x.shadow"))

# %% [markdown]
# The stack slots of the naive gradient are gone after optimization:

# %%
for name, text in (("gradient", diffe), ("optimized", opt)):
    body = text.splitlines()
    count = {op: sum(f" = {op} " in line or line.lstrip().startswith(f"{op} ") for line in body)
             for op in ("alloca", "load", "store")}
    print(f"@diffe_f at stage {name + ':':11s}", ", ".join(f"{n} {op}s" for op, n in
                                                          count.items()))

# %% [markdown]
# ## The same stages for `.ll` files
#
# For IR from clang or any other LLVM front end, the command line prints the same stages:
#
# ```sh
# enzyme-py grad prog.ll -f f -a dup,const --print-after-all   # IR after every stage, on stderr
# enzyme-py transform prog.ll -o g.ll --dump-dir stages/        # one numbered .ll per stage
# enzyme-py opt prog.ll -p print-activity --disable-output      # activity annotations only
# ```
#
# [03_c_and_cpp](03_c_and_cpp.ipynb) uses `enzyme-py transform` on C and C++ programs.
