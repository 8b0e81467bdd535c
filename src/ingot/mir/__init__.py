"""MIR: the control-flow graph per function, its lowering and printer (its public view is `ingot.view`)."""
