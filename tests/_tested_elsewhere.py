"""The primitives the random-jaxpr generator (``typedax.testing``) leaves
out, each with the test that covers it instead: shared by the coverage
checks of tests/test_properties.py and tests/test_lowering.py."""

from __future__ import annotations

from typedax.primitives.keys import FAMILY as _KEYS

#: Typed-key primitives: tests/test_typed_keys.py.
KEY_PRIMITIVES: frozenset[str] = frozenset(p.name for p in _KEYS.primitives)

TESTED_ELSEWHERE: frozenset[str] = frozenset({
    # higher-order: tests/test_jit.py, test_cond.py, test_loops.py, test_custom_derivatives.py
    "jit", "cond", "while", "scan", "custom_jvp_call", "custom_vjp_call", "custom_lin",
    # random matrices are not positive definite: tests/test_linalg_decomp.py
    "cholesky", "triangular_solve", "qr", "eigh", "svd",
    # int32 pivots tied to a matrix's shape, LAPACK's getrf: tests/test_linalg_lu.py
    "lu", "lu_pivots_to_permutation",
    # need a mesh or a named axis: tests/test_sharding.py, test_shard_map.py, tests/sharded/
    "sharding_constraint", "shard_map", "psum", "pmax", "pmin", "all_gather", "reduce_scatter",
    "all_to_all", "ppermute", "axis_index",
    # host functions: tests/test_callbacks.py
    "pure_callback", "io_callback", "debug_callback",
    # higher-order, and a checkpoint policy's label: tests/test_checkpoint.py
    "checkpoint", "name",
    # complex operands or results (the generator draws real dtypes only): tests/test_complex.py
    "complex", "real", "imag", "conj",
    # complex operands or results, and its fft_lengths tied to the shape: tests/test_fft.py
    "fft",
    # complex results, and CPU only (LAPACK's geev): tests/test_complex_linalg.py
    "eig",
    # a pytree identity, and XLA's bit generator (values XLA's only): tests/test_lax_extra_names.py
    "optimization_barrier", "rng_bit_generator",
    # higher-order (custom_linear_solve): tests/test_lax_extra_names.py
    "linear_solve",
    *KEY_PRIMITIVES,
})
