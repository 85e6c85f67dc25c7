"""Automatic differentiation transforms (reverse mode now; forward mode later)."""
