"""BEX: opcodes, the MIR -> bytecode emitter, the VM and the disassembler."""
