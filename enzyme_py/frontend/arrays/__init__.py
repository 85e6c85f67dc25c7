"""The array layer of the Python front end: NumPy array code lowered to loops and memory.

An array value is a strided view (`values.AVal`: data pointer, extents, strides in elements)
or a lazy element-wise expression (`lazy.Lazy`: extents and a function giving the element at
an index), fused into the loop that consumes it and materialized into heap memory only where
a value must exist whole (a variable, an operand of a matrix product, a result). A variable
bound to cheap arithmetic and read by one later statement is not stored either: it stands
for the lazy value there (`frontend/deferred_bindings.py`). Everything
below the front end sees ordinary loops, loads and stores, `malloc` and `free`.

Files, one concept each: `loops` (loop nests), `heap` (buffers and who frees them), `lazy`
(element-wise expressions, broadcasting, materialization), `views` (indexing and slicing),
`elementwise` (operators and ufuncs on arrays), `reductions`, `linalg`, `constructors`,
`writes` (stores into views), `registry` (NumPy functions as data: type rule and emitter).
"""
