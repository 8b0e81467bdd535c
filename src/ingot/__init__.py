"""ingot: compile, run and concolically explore BAML programs."""

from ingot.api import CallOptions, HostError, Program, Replies, load, load_source, replies
from ingot.convert import ArgumentError
from ingot.runtime.errors import BamlError
from ingot.syntax.diagnostics import CompileError, Diagnostic

__all__ = ["load", "load_source", "Program", "CallOptions", "HostError", "Replies", "replies", "CompileError", "Diagnostic", "BamlError", "ArgumentError"]
__version__ = "0.1.0"
