"""Analyses over the IR: loops and induction variables, memory objects and aliasing, memory
effects (what writes which memory), the float types memory holds, activity.

Each analysis returns a result with a readable `__str__`; none of them changes the IR.
"""
