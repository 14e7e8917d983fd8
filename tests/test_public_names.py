"""Every public name the faces exported before the one-way-layers refactor
(issue 24) is still exported.

``data/public_names.json`` was recorded from the faces as they stood before
the refactor: each module's ``__all__`` plus every other public attribute
that is a typedax object (a function, class, primitive, submodule or
constant defined in typedax). Helpers the old faces exposed only because
they defined functions themselves are listed in ``INTERNAL`` with the reason
they are no longer part of the face.
"""

from __future__ import annotations

import importlib
import json
from pathlib import Path

import pytest

RECORDED: dict[str, list[str]] = json.loads(
    (Path(__file__).parent / "data" / "public_names.json").read_text()
)

#: (module, name) the old faces exposed by accident, and why each is gone.
INTERNAL: dict[tuple[str, str], str] = {
    ("typedax.lax", "Array"): "an import the old lax.py used, not jax.lax's; the array type: typedax.Array",
    ("typedax.lax", "DType"): "an import the old lax.py used, not jax.lax's; a NumPy dtype alias of the core: typedax.core.dtypes",
    ("typedax.lax", "NDArray"): "an import the old lax.py used, not jax.lax's; an IR type alias: typedax.core.ir",
    ("typedax.lax", "Params"): "an import the old lax.py used, not jax.lax's; an IR type alias: typedax.core.ir",
    ("typedax.lax", "Primitive"): "an import the old lax.py used, not jax.lax's; the IR class: typedax.core.ir",
    ("typedax.lax", "PrimitiveTypeError"): "an import the old lax.py used, not jax.lax's; an error class: typedax.core.errors",
    ("typedax.lax", "ShapedArray"): "an import the old lax.py used, not jax.lax's; the abstract value class: typedax.core.avals / typedax.core",
    ("typedax.lax", "Tracer"): "an import the old lax.py used, not jax.lax's; the tracer base class: typedax.core.trace",
    ("typedax.lax", "aval_of"): "an import the old lax.py used, not jax.lax's; a tracing helper: typedax.core.trace",
    ("typedax.lax", "bind1"): "an import the old lax.py used, not jax.lax's; a tracing helper: typedax.core.trace",
    ("typedax.lax", "canonicalize_explicit"): "an import the old lax.py used, not jax.lax's; a dtype helper: typedax.core.dtypes",
    ("typedax.lax", "canonicalize_precision"): "an import the old lax.py used, not jax.lax's; a params helper: typedax.primitives._precision",
    ("typedax.lax", "dot_params"): "an import the old lax.py used, not jax.lax's; a params helper: typedax.primitives.dot",
    ("typedax.lax", "is_float"): "an import the old lax.py used, not jax.lax's; a dtype helper: typedax.core.dtypes",
    ("typedax.lax", "is_tracer"): "a helper the old lax.py defined, not jax.lax's: isinstance(x, typedax.core.trace.Tracer)",
    ("typedax.lax", "scalar_as"): "an import the old lax.py used, not jax.lax's; a tracing helper: typedax.core.trace",
}


_NUMPY_OWN_IMPORTS = (
    "imported by the old typedax/numpy.py for its own function bodies (errors, core types, primitives, "
    "promotion helpers); not jax.numpy's names, and the face now defines nothing"
)
INTERNAL.update({
    ("typedax.numpy", "ArgumentValueError"): _NUMPY_OWN_IMPORTS,
    ("typedax.numpy", "Array"): _NUMPY_OWN_IMPORTS,
    ("typedax.numpy", "ArrayImpl"): _NUMPY_OWN_IMPORTS,
    ("typedax.numpy", "AxisError"): _NUMPY_OWN_IMPORTS,
    ("typedax.numpy", "ConcretizationError"): _NUMPY_OWN_IMPORTS,
    ("typedax.numpy", "DType"): _NUMPY_OWN_IMPORTS,
    ("typedax.numpy", "EVAL_TRACE"): _NUMPY_OWN_IMPORTS,
    ("typedax.numpy", "EmptyReductionError"): _NUMPY_OWN_IMPORTS,
    ("typedax.numpy", "NDArray"): _NUMPY_OWN_IMPORTS,
    ("typedax.numpy", "Params"): _NUMPY_OWN_IMPORTS,
    ("typedax.numpy", "Primitive"): _NUMPY_OWN_IMPORTS,
    ("typedax.numpy", "PrimitiveTypeError"): _NUMPY_OWN_IMPORTS,
    ("typedax.numpy", "ShapedArray"): _NUMPY_OWN_IMPORTS,
    ("typedax.numpy", "Tracer"): _NUMPY_OWN_IMPORTS,
    ("typedax.numpy", "add_p"): _NUMPY_OWN_IMPORTS,
    ("typedax.numpy", "aval_of"): _NUMPY_OWN_IMPORTS,
    ("typedax.numpy", "bind1"): _NUMPY_OWN_IMPORTS,
    ("typedax.numpy", "broadcast_p"): _NUMPY_OWN_IMPORTS,
    ("typedax.numpy", "canonicalize_dtype"): _NUMPY_OWN_IMPORTS,
    ("typedax.numpy", "canonicalize_explicit"): _NUMPY_OWN_IMPORTS,
    ("typedax.numpy", "canonicalize_precision"): _NUMPY_OWN_IMPORTS,
    ("typedax.numpy", "default_float"): _NUMPY_OWN_IMPORTS,
    ("typedax.numpy", "default_int"): _NUMPY_OWN_IMPORTS,
    ("typedax.numpy", "div_p"): _NUMPY_OWN_IMPORTS,
    ("typedax.numpy", "dot_general_p"): _NUMPY_OWN_IMPORTS,
    ("typedax.numpy", "dtype_of_node"): _NUMPY_OWN_IMPORTS,
    ("typedax.numpy", "eval_program"): _NUMPY_OWN_IMPORTS,
    ("typedax.numpy", "from_numpy"): _NUMPY_OWN_IMPORTS,
    ("typedax.numpy", "host_matmul"): _NUMPY_OWN_IMPORTS,
    ("typedax.numpy", "is_float"): _NUMPY_OWN_IMPORTS,
    ("typedax.numpy", "join"): _NUMPY_OWN_IMPORTS,
    ("typedax.numpy", "lax"): _NUMPY_OWN_IMPORTS,
    ("typedax.numpy", "mul_p"): _NUMPY_OWN_IMPORTS,
    ("typedax.numpy", "node_of_dtype"): _NUMPY_OWN_IMPORTS,
    ("typedax.numpy", "reduce_sum_p"): _NUMPY_OWN_IMPORTS,
    ("typedax.numpy", "refuse_keys"): _NUMPY_OWN_IMPORTS,
    ("typedax.numpy", "reshape_p"): _NUMPY_OWN_IMPORTS,
    ("typedax.numpy", "scalar_as"): _NUMPY_OWN_IMPORTS,
    ("typedax.numpy", "squeeze_p"): _NUMPY_OWN_IMPORTS,
    ("typedax.numpy", "sub_p"): _NUMPY_OWN_IMPORTS,
    ("typedax.numpy", "transpose_p"): _NUMPY_OWN_IMPORTS,
    ("typedax.numpy", "weak_node"): _NUMPY_OWN_IMPORTS,
    ("typedax.numpy.linalg", "Array"): _NUMPY_OWN_IMPORTS,
    ("typedax.numpy.linalg", "PrimitiveTypeError"): _NUMPY_OWN_IMPORTS,
    ("typedax.numpy.linalg", "lax"): _NUMPY_OWN_IMPORTS,
})


@pytest.mark.parametrize("module", sorted(RECORDED))
def test_face_still_exports_its_names(module: str) -> None:
    face = importlib.import_module(module)
    missing = sorted(
        n for n in RECORDED[module] if not hasattr(face, n) and (module, n) not in INTERNAL
    )
    assert not missing, f"{module} no longer exports: {', '.join(missing)}"


def test_internal_list_is_not_stale() -> None:
    stale = sorted(f"{m}.{n}" for m, n in INTERNAL if n not in RECORDED.get(m, []))
    assert not stale, "INTERNAL names names never recorded: " + ", ".join(stale)
