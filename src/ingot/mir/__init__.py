"""MIR: the control-flow graph per function, its lowering, printer and public API."""
