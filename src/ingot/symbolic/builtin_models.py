"""How the trackers call a built-in: its registry row's symbolic model, or concretization.

A model (written beside the built-in, in its `ingot.stdlib` row) receives the
concrete built-in, the arguments and their shadows, calls the built-in (so
concrete semantics stay the runtime's own) and returns the result with its
shadow. A built-in without a model concretizes
its symbolic arguments, and everything symbolic a container argument holds
(`stdlib.contents`: CONCRETIZE entries keep the path condition sound), and
returns a concrete result; if it mutates a container, the container's element
shadows are dropped after fixing its symbolic length.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from ingot.stdlib import MUTATES, REGISTRY, contents
from ingot.stdlib.spec import Model
from ingot.symbolic.shadow import Shadow

if TYPE_CHECKING:
    from ingot.symbolic.tracker import Frame, TrackedVM

def call(t: TrackedVM, frame: Frame, key: str, fn: Callable[..., Any], args: list[Any],
         shadows: list[Shadow]) -> tuple[Any, Shadow]:
    model = MODELS.get(key)
    if model is not None and (t.string_models or key not in STRING_MODELS):
        return model(t, frame, fn, args, shadows)
    contents.fix_arguments(t, frame, args, shadows)  # the result may depend on anything they hold
    if key in MUTATES and args:
        contents.forget(t, frame, args[0])
    return fn(*args), None


# Derived from the registry rows' `model` and `deep_model` slots (`ingot.stdlib`).
MODELS: Mapping[str, Model] = MappingProxyType(
    {key: spec.model for key, spec in REGISTRY.items() if spec.model is not None})

# The models of `ingot.stdlib.string_models` (parts, positions, regular memberships, parsing):
# exact but costly to solve, so the explorer can turn them off (`TrackedVM.string_models`).
# Those with a cheaper form of their own (`has_fallback`, e.g. `trim`) switch to it themselves.
STRING_MODELS = frozenset(key for key, model in MODELS.items()
                          if getattr(model, "__module__", None) == "ingot.stdlib.string_models"
                          and not getattr(model, "has_fallback", False))

# Models that read shadows below their arguments' first level (the compiled tracker calls
# them even for a container that has no shadow of its own).
DEEP = frozenset(key for key, spec in REGISTRY.items() if spec.deep_model)
