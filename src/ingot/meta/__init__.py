"""Integrations driven by `_meta.ingot`: the MCP server and generated CLIs.

Sees compiled programs only through `ingot.view`.
"""
