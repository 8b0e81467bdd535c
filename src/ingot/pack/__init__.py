"""Packing: residual graphs over tensor leaves, lowered to torch.fx, batched and differentiated.

Sees compiled programs only through `ingot.mir.api`.
"""
