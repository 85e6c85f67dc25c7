"""Analyses over the IR: loops and induction variables, memory objects, activity.

Each analysis returns a result with a readable `__str__`; none of them changes the IR.
"""
