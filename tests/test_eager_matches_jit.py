"""Eager evaluation has XLA's semantics: every elementwise primitive of the
registry gives, eagerly, bit for bit what ``jit`` gives (NaNs equal), over
the edge values of every dtype it accepts -- signed zeros, infinities, NaN,
the extremes of each dtype, zero divisors. One difference is allowed, and
only one: XLA on CPU (and GPU) flushes subnormal floats to zero, inputs and
results, while NumPy keeps them -- emulating that would cost every eager op;
the sweep feeds no subnormal inputs and reads subnormal results as zeros
of their sign. A new elementwise primitive is
covered without touching this file (a primitive the sweep cannot build
operands for fails ``test_every_elementwise_primitive_is_swept``)."""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import ml_dtypes
import numpy as np
import pytest
from pyrsistent import pmap

import typedax as tdx
from typedax.core.dtypes import finfo
from typedax.core import Primitive, ShapedArray, bind
from typedax.core.dtypes import COMPLEX, FLOATING, SMALL_FLOATS, SUPPORTED
from typedax.core.errors import PrimitiveTypeError
from typedax.core.ir import NO_PARAMS, Params
from typedax.primitives import bitwise, elementwise, special
from typedax.registry import REGISTRY

from _examples import ci_every

ELEMENTWISE = {p.name: p for f in (elementwise.FAMILY, special.FAMILY, bitwise.FAMILY) for p in f.primitives}

#: Transcendental functions whose last bit XLA's and the C library's
#: implementations may round differently: compared to 2 ulp, not bit for bit.
#: (``pow`` is not among them: its eager value is XLA's own program's,
#: ``Rules.eval_on_device``, so it is compared bit for bit.)
APPROXIMATE = {"sin", "cos", "exp", "log", "tanh", "logistic"} | {
    "log1p", "expm1", "exp2", "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh", "asinh",
    "acosh", "atanh", "erf", "erfc", "erf_inv",
}
#: XLA's own approximations (not correctly rounded, unlike scipy's): compared
#: to 1e-6 (float32) / 1e-13 (float64) absolute-or-relative; poles, infinities
#: and NaNs exactly.
XLA_APPROXIMATIONS = {"lgamma", "digamma"}
#: The real dtypes: complex operands are compared eager against jit, to a
#: tolerance, in tests/test_complex.py (XLA's complex division, exp, log, ...
#: are not NumPy's algorithms, so their last bits differ).
#: (The 8- and 4-bit floats, issue 29 item 7, evaluate eagerly through XLA
#: itself -- core/trace.py: ``_small_on_device`` -- so eager is jit there by
#: construction; tests/test_numpy_more_names.py checks them against JAX.)
REAL = [d for d in SUPPORTED if d not in COMPLEX and d not in SMALL_FLOATS]


def edge_values(dtype: np.dtype[np.generic]) -> np.ndarray:
    if dtype == np.bool_:
        return np.array([False, True])
    if dtype.kind == "i":
        info = np.iinfo(dtype.type)  # type: ignore[type-var]  # an integer dtype, checked just above
        return np.array([info.min, info.min + 1, -7, -2, -1, 0, 1, 2, 3, 7, info.max - 1, info.max], dtype)
    if dtype.kind == "u":
        u = np.iinfo(dtype.type)  # type: ignore[type-var]  # an integer dtype, checked just above
        return np.array([0, 1, 2, 3, 7, 8, u.max // 2, u.max // 2 + 1, u.max - 1, u.max], dtype)
    f = finfo(dtype)  # a float dtype: the only other kind supported (bfloat16 too)
    return np.array(
        [-np.inf, f.min, -3e9, -2.5, -1.5, -1.0, -0.5, -0.0, 0.0,
         0.5, 1.0, 1.5, 2.5, 3e9, f.max, np.inf, np.nan],
        dtype,
    )


def accepts(prim: Primitive, avals: Sequence[ShapedArray], params: Params) -> bool:
    try:
        prim.abstract_eval(avals, params)
    except PrimitiveTypeError:
        return False
    return True


def cases(prim: Primitive) -> list[tuple[list[np.ndarray], Params]]:
    """Operand tuples over the edge values (every pair for binary primitives)."""
    out: list[tuple[list[np.ndarray], Params]] = []
    for dtype in REAL:
        v = edge_values(dtype)
        one = ShapedArray(v.shape, dtype)
        if prim.name == "integer_pow":
            for y in (-3, -2, -1, 0, 1, 2, 3, 5):
                params: Params = pmap({"y": y})
                if accepts(prim, [one], params):
                    out.append(([v], params))
        elif prim.name == "sinc_maclaurin":  # x*0 + the k-th derivative of sinc at 0
            out.extend(([v], pmap({"k": k})) for k in range(5) if accepts(prim, [one], pmap({"k": k})))
        elif prim.name == "round":
            out.extend(([v], pmap({"rounding_method": m})) for m in (0, 1) if accepts(prim, [one], pmap({"rounding_method": m})))
        elif prim.name == "convert_element_type":
            for new in REAL:
                out.append(([v], pmap({"new_dtype": new})))
        elif prim.name == "select_n":
            which = np.array([-3, -1, 0, 1, 2, 5], np.int32)
            cs = [np.resize(v, 6) for v in (v, v[::-1], v[1:])]
            out.append(([which, *cs[:3]], NO_PARAMS))
            out.append(([np.array([True, False] * 3), *cs[:2]], NO_PARAMS))
        elif accepts(prim, [one], NO_PARAMS):
            out.append(([v], NO_PARAMS))
        elif accepts(prim, [one, one], NO_PARAMS):
            x, y = (a.ravel() for a in np.meshgrid(v, v, indexing="ij"))
            out.append(([x, y], NO_PARAMS))
        elif accepts(prim, [one, one, one], NO_PARAMS):  # clamp: every triple
            x, y, z = (a.ravel() for a in np.meshgrid(v, v, v, indexing="ij"))
            out.append(([x, y, z], NO_PARAMS))
    return out


def flush_subnormals(a: np.ndarray) -> np.ndarray:
    if a.dtype not in FLOATING:
        return a
    tiny = finfo(a.dtype).tiny
    return np.where(np.abs(a) < tiny, np.copysign(np.zeros((), a.dtype), a), a)


def same_bits(a: np.ndarray, b: np.ndarray, ulps: int) -> bool:
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if a.dtype not in FLOATING:  # (bfloat16's NumPy kind is "V")
        return bool(np.array_equal(a, b))
    a, b = flush_subnormals(a), flush_subnormals(b)
    both_nan = np.isnan(a) & np.isnan(b)
    if ulps == 0:
        eq = (a.view(f"i{a.itemsize}") == b.view(f"i{b.itemsize}")) | both_nan
        return bool(eq.all())
    with np.errstate(all="ignore"):  # inf - inf and the spacing of inf are expected here
        close = (a == b) | both_nan | (np.abs(a - b) <= ulps * np.spacing(np.maximum(np.abs(a), np.abs(b))))
    return bool(close.all())


def test_every_elementwise_primitive_is_swept() -> None:
    assert set(ELEMENTWISE) <= set(REGISTRY)
    unswept = sorted(name for name, p in ELEMENTWISE.items() if not cases(p))
    assert not unswept, f"no edge-value operands for {unswept}"


@pytest.mark.parametrize("name", sorted(ELEMENTWISE))
def test_eager_equals_jit_on_edge_values(name: str) -> None:
    prim = ELEMENTWISE[name]
    # ci: every third case (dtype, parameter) of each primitive, from a start that rotates over the
    # primitives (each case compiles); make test-long runs every case
    for args, params in ci_every(cases(prim), 3, sorted(ELEMENTWISE).index(name)):

        def f(*xs: tdx.Value) -> tdx.Value:
            return bind(prim, list(xs), params)[0]

        with np.errstate(all="ignore"):
            eager = np.asarray(f(*args))
        compiled = np.asarray(tdx.jit(f)(*args))
        if name in XLA_APPROXIMATIONS:
            # float32's error; a 16-bit result may round the other way: its epsilon
            tol = {np.dtype(np.float32): 1e-6, np.dtype(np.float64): 1e-13}.get(eager.dtype, float(finfo(eager.dtype).eps))
            ok = np.isclose(eager, compiled, rtol=tol, atol=tol, equal_nan=True) & (np.isinf(eager) == np.isinf(compiled))
            assert ok.all(), f"{name} on {args[0][~ok]}: eager {eager[~ok]} != jit {compiled[~ok]}"
            continue
        if not same_bits(eager, compiled, 2 if name in APPROXIMATE else 0):
            bad = ~np.isclose(eager.astype(np.float64), compiled.astype(np.float64), equal_nan=True) | (
                np.signbit(eager.astype(np.float64)) != np.signbit(compiled.astype(np.float64))
            )
            rows = [tuple(a[bad][:4]) for a in args]
            pytest.fail(
                f"{name}{dict(params)} on {[a.dtype.name for a in args]}: eager {eager[bad][:4]} != "
                f"jit {compiled[bad][:4]} at operands {rows}"
            )


def test_the_sweep_itself_tells_signed_zeros_and_nans_apart() -> None:
    assert not same_bits(np.array([0.0]), np.array([-0.0]), 0)
    assert same_bits(np.array([np.nan]), np.array([np.nan]), 0)
    assert not same_bits(np.array([1.0]), np.array([np.nextafter(1.0, 2.0) + 1e-15]), 0)
    assert list(itertools.islice(iter(edge_values(np.dtype(np.int32))), 1)) == [np.iinfo(np.int32).min]


# -- every first-order primitive, in generated programs -----------------------------------
from hypothesis import given, settings  # noqa: E402
from _examples import ci_examples  # noqa: E402

from typedax.core import Jaxpr, eval_jaxpr  # noqa: E402
from typedax.core.ir import NDArray  # noqa: E402
from typedax.testing import jaxprs_with_args  # noqa: E402


@ci_examples(30, otherwise=60)
@given(jaxprs_with_args(max_eqns=6))
def test_generated_programs_give_the_same_values_eagerly_and_under_jit(case: tuple[Jaxpr, list[NDArray]]) -> None:
    """The structural primitives (broadcast, reshape, transpose, reductions,
    dot_general) and the rest, as the jaxpr generator combines them: eager
    evaluation and one compiled jaxpr agree (to 2 ulp-ish for transcendentals
    and for sums XLA may add in another order)."""
    j, args = case
    with np.errstate(all="ignore"):
        eager = [np.asarray(v) for v in eval_jaxpr(j, list(args))]
    compiled = [np.asarray(v) for v in tdx.jit(lambda *xs: eval_jaxpr(j, list(xs)))(*args)]
    for e, c in zip(eager, compiled):
        assert e.dtype == c.dtype and e.shape == c.shape
        if e.dtype.kind == "f":
            np.testing.assert_allclose(e, c, rtol=1e-5 if e.dtype == np.float32 else 1e-12, atol=1e-6)
        else:
            np.testing.assert_array_equal(e, c)
