"""The runtime: values, operators, rendering, built-ins and errors shared by the VM."""
