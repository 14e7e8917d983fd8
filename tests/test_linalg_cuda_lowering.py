"""The decompositions lowered for CUDA (on any machine): the kernel calls in
typedax's StableHLO equal JAX's for the same function lowered for CUDA
(``jax.jit(f).trace(...).lower(lowering_platforms=('cuda',))``): jaxlib's
cuSOLVER FFI targets (``cusolver_potrf_ffi``, ``geqrf``, ``orgqr``,
``syevd``, ``gesvdj``, ``gesvd``, ``getrf``; ``cu_lu_pivots_to_permutation``)
with JAX's attributes, layouts and
aliases, and XLA's own ``triangular_solve``. What the kernels compute is
checked on a GPU by the decomposition tests under ``TYPEDAX_PLATFORM=cuda``."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any

import jax
import numpy as np
import pytest

import typedax as tdx
from typedax import lax_linalg as tll
from typedax.lowering import lower, runtime
from typedax.primitives import linalg as linalg_primitives

jax.config.update("jax_enable_x64", True)  # type: ignore[no-untyped-call]  # jax's config is untyped

F32, F64 = np.float32, np.float64


def _m(shape: tuple[int, ...], dtype: Any = F32) -> np.ndarray[Any, Any]:
    return np.ones(shape, dtype)


def _calls(text: str) -> list[str]:
    """Each kernel call of a module, without SSA names and without the
    attributes typedax does not emit (JAX's batch-partitioning hints for
    Shardy: ``mhlo.frontend_attributes``, ``sdy.sharding_rule``)."""
    out = []
    for line in text.splitlines():
        if "stablehlo.custom_call @" not in line and "stablehlo.triangular_solve" not in line:
            continue
        line = re.sub(r"^\s*%\S+ = ", "", line)
        line = re.sub(r"%[\w#]+", "%", line)
        line = re.sub(r"mhlo\.frontend_attributes = \{[^}]*\}, ", "", line)
        line = re.sub(r", sdy\.sharding_rule = #sdy\.op_sharding_rule<.*?, custom>", "", line)
        out.append(line)
    return out


@pytest.fixture
def cuda_lowering() -> Iterator[None]:
    """typedax lowers for CUDA (the platform the runtime would say)."""
    saved = lower._PLATFORM[0]
    lower._PLATFORM[0] = lambda: "cuda"
    try:
        yield
    finally:
        lower._PLATFORM[0] = saved


CASES: list[tuple[str, Callable[..., Any], Callable[..., Any], tuple[Any, ...]]] = [
    ("cholesky", lambda x: tll.cholesky(x), lambda x: jax.lax.linalg.cholesky(x), (_m((3, 3)),)),
    ("cholesky batch f64", lambda x: tll.cholesky(x), lambda x: jax.lax.linalg.cholesky(x), (_m((2, 3, 3), F64),)),
    ("eigh", lambda x: tll.eigh(x), lambda x: jax.lax.linalg.eigh(x), (_m((3, 3)),)),
    ("eigh upper f64", lambda x: tll.eigh(x, lower=False), lambda x: jax.lax.linalg.eigh(x, lower=False),
     (_m((2, 4, 4), F64),)),
    ("qr tall", lambda x: tll.qr(x), lambda x: jax.lax.linalg.qr(x), (_m((4, 3)),)),
    ("qr wide full", lambda x: tll.qr(x, full_matrices=True), lambda x: jax.lax.linalg.qr(x, full_matrices=True),
     (_m((3, 5), F64),)),
    ("qr tall full", lambda x: tll.qr(x, full_matrices=True), lambda x: jax.lax.linalg.qr(x, full_matrices=True),
     (_m((2, 5, 3)),)),
]
for _shape, _dt in [((3, 3), F32), ((2, 4, 3), F64), ((3, 5), np.complex64), ((2, 3, 3), np.complex128)]:
    CASES.append((f"lu {_shape} {np.dtype(_dt).name}", lambda x: tll.lu(x), lambda x: jax.lax.linalg.lu(x),
                  (_m(_shape, _dt),)))
CASES.append(("lu_pivots_to_permutation", lambda p: tll.lu_pivots_to_permutation(p, 5),
              lambda p: jax.lax.linalg.lu_pivots_to_permutation(p, 5), (np.zeros((2, 3), np.int32),)))
for _shape, _full in [((2, 4, 3), False), ((4, 3), True), ((3, 5), False), ((40, 35), False), ((40, 35), True),
                      ((1100, 3), False), ((3, 1100), False), ((3, 1100), True)]:
    CASES.append((f"svd {_shape} full={_full}",
                  lambda x, f=_full: tll.svd(x, full_matrices=f),
                  lambda x, f=_full: jax.lax.linalg.svd(x, full_matrices=f), (_m(_shape),)))
for _shape in [(40, 30), (1100, 3), (3, 1100)]:
    CASES.append((f"svd {_shape} values", lambda x: tll.svd(x, compute_uv=False),
                  lambda x: jax.lax.linalg.svd(x, compute_uv=False), (_m(_shape, F64),)))
for _left, _lower, _trans, _conj, _unit in [(True, True, False, False, False), (False, False, True, False, True),
                                            (True, False, True, True, False), (False, True, False, True, False)]:
    _flags = dict(left_side=_left, lower=_lower, transpose_a=_trans, conjugate_a=_conj, unit_diagonal=_unit)
    CASES.append((f"triangular_solve {_flags}",
                  lambda a, b, k=_flags: tll.triangular_solve(a, b, **k),
                  lambda a, b, k=_flags: jax.lax.linalg.triangular_solve(a, b, **k),
                  (_m((2, 3, 3)), _m((2, 3, 3)))))


@pytest.mark.parametrize("name, ours, theirs, args", CASES, ids=[c[0] for c in CASES])
@pytest.mark.usefixtures("cuda_lowering")
def test_kernel_calls_match_jax_for_cuda(
    name: str, ours: Callable[..., Any], theirs: Callable[..., Any], args: tuple[Any, ...]
) -> None:
    expected = _calls(jax.jit(theirs).trace(*args).lower(lowering_platforms=("cuda",)).as_text())
    got = _calls(tdx.jit(ours).lower(*args).as_text())
    assert expected, name
    assert got == expected


def test_the_running_platform_picks_the_kernels() -> None:
    text = tdx.jit(lambda x: tll.cholesky(x)).lower(_m((3, 3))).as_text()
    cuda = runtime.platform() == "cuda"
    assert ("@cusolver_potrf_ffi" in text) == cuda
    assert ("@lapack_spotrf_ffi" in text) == (not cuda)


def test_eager_runs_the_jit_kernels_where_the_platform_says_gpu() -> None:
    """On the GPU the decompositions evaluate eagerly through their compiled
    kernels (as JAX's eager evaluation does): the mechanism, on this
    machine's platform, equals ``jit`` bit for bit."""
    a = np.random.default_rng(0).normal(size=(2, 4, 3))
    expected = [np.asarray(x) for x in tdx.jit(lambda x: tll.svd(x, full_matrices=False))(a)]
    saved = linalg_primitives.PLATFORM[0]
    linalg_primitives.PLATFORM[0] = lambda: "cuda"
    try:
        got = [np.asarray(x) for x in tll.svd(a, full_matrices=False)]
    finally:
        linalg_primitives.PLATFORM[0] = saved
    for x, y in zip(got, expected):
        np.testing.assert_array_equal(x, y)


@pytest.mark.parametrize("shape", [(3, 3), (40, 35)])
def test_complex_svd_for_cuda_conjugates_v_as_jax(cuda_lowering: None, shape: tuple[int, int]) -> None:
    """gesvdj gives ``v``; the result is its conjugate transpose (an H200 run
    found typedax's complex ``vt`` conjugated wrong: its transpose alone)."""
    x = np.ones(shape, np.complex64)
    ours = tdx.jit(lambda a: tll.svd(a)).lower(x).as_text()
    theirs = jax.jit(lambda a: jax.lax.linalg.svd(a)).trace(x).lower(lowering_platforms=("cuda",)).as_text()
    ops = ("stablehlo.transpose", "stablehlo.negate", "stablehlo.imag", "stablehlo.complex")
    assert [sum(op in ln for ln in ours.splitlines()) for op in ops] == \
        [sum(op in ln for ln in theirs.splitlines()) for op in ops] != [0, 0, 0, 0]
