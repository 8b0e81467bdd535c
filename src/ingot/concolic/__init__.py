"""Concolic exploration: search over paths, coverage, findings and test emission.

Sees compiled programs only through `ingot.view`.
"""
