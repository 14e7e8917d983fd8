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


_RANDOM_OWN_IMPORTS = (
    "imported by the old typedax/random.py for its own function bodies (core types, dtypes, errors, "
    "tracing, jit, vmap, lax, numpy); not jax.random's names, and the face now defines nothing "
    "(the implementation is typedax/_random/)"
)
_NN_OWN_IMPORTS = (
    "imported by the old typedax/nn.py for its own function bodies (core types, dtypes, errors, "
    "the eager softmax's host evaluation, lax, numpy); not jax.nn's names, and the face now defines "
    "nothing (the implementation is typedax/_nn/)"
)
INTERNAL.update({
    ("typedax.random", "Array"): _RANDOM_OWN_IMPORTS,
    ("typedax.random", "ArrayImpl"): _RANDOM_OWN_IMPORTS,
    ("typedax.random", "ConcretizationError"): _RANDOM_OWN_IMPORTS,
    ("typedax.random", "DType"): _RANDOM_OWN_IMPORTS,
    ("typedax.random", "EVAL_TRACE"): _RANDOM_OWN_IMPORTS,
    ("typedax.random", "RandomKeyError"): _RANDOM_OWN_IMPORTS,
    ("typedax.random", "RandomRangeError"): _RANDOM_OWN_IMPORTS,
    ("typedax.random", "ShapedArray"): _RANDOM_OWN_IMPORTS,
    ("typedax.random", "Tracer"): _RANDOM_OWN_IMPORTS,
    ("typedax.random", "aval_of"): _RANDOM_OWN_IMPORTS,
    ("typedax.random", "canonicalize_explicit"): _RANDOM_OWN_IMPORTS,
    ("typedax.random", "default_float"): _RANDOM_OWN_IMPORTS,
    ("typedax.random", "default_int"): _RANDOM_OWN_IMPORTS,
    ("typedax.random", "finfo"): _RANDOM_OWN_IMPORTS,
    ("typedax.random", "from_numpy"): _RANDOM_OWN_IMPORTS,
    ("typedax.random", "int_range"): _RANDOM_OWN_IMPORTS,
    ("typedax.random", "jit"): _RANDOM_OWN_IMPORTS,
    ("typedax.random", "lax"): _RANDOM_OWN_IMPORTS,
    ("typedax.random", "tnp"): _RANDOM_OWN_IMPORTS,
    ("typedax.random", "uint16"): _RANDOM_OWN_IMPORTS,
    ("typedax.random", "uint32"): _RANDOM_OWN_IMPORTS,
    ("typedax.random", "uint64"): _RANDOM_OWN_IMPORTS,
    ("typedax.random", "uint8"): _RANDOM_OWN_IMPORTS,
    ("typedax.random", "vmap"): _RANDOM_OWN_IMPORTS,
    ("typedax.random", "x64_enabled"): _RANDOM_OWN_IMPORTS,
    ("typedax.random", "threefry2x32"): (
        "an import the old random.py used, not jax.random's: the Threefry primitive's function, "
        "typedax.primitives.prng.threefry2x32 (jax.random's function is threefry_2x32, still exported)"
    ),
    ("typedax.nn", "Array"): _NN_OWN_IMPORTS,
    ("typedax.nn", "DType"): _NN_OWN_IMPORTS,
    ("typedax.nn", "NDArray"): _NN_OWN_IMPORTS,
    ("typedax.nn", "PrimitiveTypeError"): _NN_OWN_IMPORTS,
    ("typedax.nn", "aval_of"): _NN_OWN_IMPORTS,
    ("typedax.nn", "canonicalize_explicit"): _NN_OWN_IMPORTS,
    ("typedax.nn", "default_float"): _NN_OWN_IMPORTS,
    ("typedax.nn", "eval_on_host"): _NN_OWN_IMPORTS,
    ("typedax.nn", "from_numpy"): _NN_OWN_IMPORTS,
    ("typedax.nn", "is_float"): _NN_OWN_IMPORTS,
    ("typedax.nn", "lax"): _NN_OWN_IMPORTS,
    ("typedax.nn", "params_of"): _NN_OWN_IMPORTS,
    ("typedax.nn", "reduce_sum_p"): _NN_OWN_IMPORTS,
    ("typedax.nn", "tnp"): _NN_OWN_IMPORTS,
})


_SPECIAL_OWN_IMPORTS = (
    "imported by the old typedax/scipy/special.py for its own function bodies (core types, errors, "
    "promotion, custom_jvp, lax, numpy); not jax.scipy.special's names, and the face now defines "
    "nothing (the implementation is typedax/scipy/_special.py)"
)
INTERNAL.update({
    ("typedax.scipy.special", "Array"): _SPECIAL_OWN_IMPORTS,
    ("typedax.scipy.special", "NDArray"): _SPECIAL_OWN_IMPORTS,
    ("typedax.scipy.special", "PrimitiveTypeError"): _SPECIAL_OWN_IMPORTS,
    ("typedax.scipy.special", "aval_of"): _SPECIAL_OWN_IMPORTS,
    ("typedax.scipy.special", "custom_jvp"): _SPECIAL_OWN_IMPORTS,
    ("typedax.scipy.special", "default_float"): _SPECIAL_OWN_IMPORTS,
    ("typedax.scipy.special", "is_float"): _SPECIAL_OWN_IMPORTS,
    ("typedax.scipy.special", "join"): _SPECIAL_OWN_IMPORTS,
    ("typedax.scipy.special", "lax"): _SPECIAL_OWN_IMPORTS,
    ("typedax.scipy.special", "tnp"): _SPECIAL_OWN_IMPORTS,
})
INTERNAL.update({
    ("typedax.custom_derivatives", "MAX_RULE_DEPTH"): (
        "how deep staged custom rules nested when staging traced them: they are lazily traced now "
        "(core.ir.LazyJaxpr, JAX's thunks) and nest to any depth, as JAX's; JAX has no such name"
    ),
    ("typedax.custom_derivatives", "join_consts"): (
        "an import the module used (control_flow.common.join_consts), not a name of jax.custom_derivatives"
    ),
})
INTERNAL[("typedax", "nn_initializers")] = (
    "the submodule typedax/nn_initializers.py, now typedax/nn/initializers.py: typedax.nn is a package, "
    "so `from typedax.nn.initializers import glorot_normal` works as JAX's (issue 29 item 6)"
)


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
