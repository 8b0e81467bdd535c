"""Symbolic expressions, the tracker (an opt-in VM extension) and the Z3 solver layer.

Sees compiled programs only through `ingot.view`.
"""
