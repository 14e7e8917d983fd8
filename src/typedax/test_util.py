"""``typedax.test_util``: ``jax.test_util``'s ``check_grads``, ``check_jvp``
and ``check_vjp``, JAX's numerical checks of derivatives (a port of
``jax/_src/public_test_util.py``).

Each check compares automatic differentiation with central finite
differences in one random direction (NumPy's ``RandomState(0)``, as JAX's):
``check_jvp`` the tangent, ``check_vjp`` the inner product
``<t, vjp(c)> == <jvp(t), c>``; ``check_grads`` applies them up to ``order``
(the derivative of the derivative, ...) in the ``modes`` asked for
(``"fwd"``, ``"rev"``, ``"lin"``). A mismatch raises ``AssertionError``
(NumPy's ``assert_allclose``), as JAX's. The default tolerances are JAX's
gradient tolerances per dtype (``2e-3`` for float32, ``1e-5`` for float64),
scaled by the size of the compared value.
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeAlias

import numpy as np

from . import tree
from .api_forward import jvp
from .api_reverse import linearize, vjp
from .core.config import x64_enabled
from .core.dtypes import bfloat16, canonicalize_dtype

__all__ = ["check_grads", "check_jvp", "check_vjp"]

EPS = 1e-4
#: a tolerance: one number, or one per dtype (JAX's dict)
Tol: TypeAlias = "float | Mapping[type, float] | Mapping[str, float] | Mapping[np.dtype[np.generic], float] | None"
#: a leaf of the caller's pytrees (an array or a Python scalar): the private
#: NumPy arithmetic here takes any
_Leaf: TypeAlias = Any
_ToleranceDict: TypeAlias = dict[np.dtype[Any], float]

_DEFAULT_TOLERANCE: _ToleranceDict = {
    np.dtype(np.bool_): 0, np.dtype(np.int8): 0, np.dtype(np.int16): 0, np.dtype(np.int32): 0,
    np.dtype(np.int64): 0, np.dtype(np.uint8): 0, np.dtype(np.uint16): 0, np.dtype(np.uint32): 0,
    np.dtype(np.uint64): 0, bfloat16: 1e-2, np.dtype(np.float16): 1e-3, np.dtype(np.float32): 1e-6,
    np.dtype(np.float64): 1e-15, np.dtype(np.complex64): 1e-6, np.dtype(np.complex128): 1e-15,
}
_GRADIENT_TOLERANCE: _ToleranceDict = {
    bfloat16: 1e-1, np.dtype(np.float16): 1e-2, np.dtype(np.float32): 2e-3, np.dtype(np.float64): 1e-5,
    np.dtype(np.complex64): 1e-3, np.dtype(np.complex128): 1e-5,
}


def _is_python_scalar(x: object) -> bool:
    return not isinstance(x, np.generic) and isinstance(x, (bool, int, float, complex))


def _dtype(x: object) -> np.dtype[Any]:
    d = getattr(x, "dtype", None)
    return np.dtype(d) if d is not None else np.asarray(x).dtype


def _tolerance(dtype: np.dtype[Any], tol: float | _ToleranceDict) -> float:
    if not isinstance(tol, dict):
        return tol
    d = canonicalize_dtype(dtype)
    return tol.get(d, _DEFAULT_TOLERANCE.get(d, 0.0))


def _assert_close(a: object, b: object, atol: float | _ToleranceDict, rtol: float | _ToleranceDict,
                  err_msg: str) -> None:
    x, y = np.asarray(a), np.asarray(b)
    assert x.shape == y.shape, f"{err_msg}: shapes {x.shape} and {y.shape} differ"
    at = max(_tolerance(x.dtype, atol), _tolerance(y.dtype, atol))
    rt = max(_tolerance(x.dtype, rtol), _tolerance(y.dtype, rtol))
    if x.dtype == bfloat16 or y.dtype == bfloat16:
        x, y = x.astype(np.float32), y.astype(np.float32)
    with np.errstate(invalid="ignore"):  # NumPy's defaults where a tolerance is 0, as JAX's
        np.testing.assert_allclose(x, y, rtol=rt * y.size if rt else 1e-7, atol=at * x.size if at else 0,
                                   err_msg=err_msg)


def _check_close(xs: object, ys: object, atol: float | _ToleranceDict, rtol: float | _ToleranceDict,
                 err_msg: str) -> None:
    tree.map(lambda x, y: _assert_close(x, y, atol, rtol, err_msg), xs, ys)


def _check_dtypes_match(xs: object, ys: object) -> None:
    def same(x: object, y: object) -> None:
        if x64_enabled():
            assert _dtype(x) == _dtype(y), f"dtypes {_dtype(x)} and {_dtype(y)} differ"
        else:
            assert canonicalize_dtype(_dtype(x)) == canonicalize_dtype(_dtype(y)), (
                f"dtypes {_dtype(x)} and {_dtype(y)} differ"
            )

    tree.map(same, xs, ys)


def _inner_prod(xs: object, ys: object) -> object:
    def contract(x: _Leaf, y: _Leaf) -> _Leaf:
        return np.real(np.dot(np.conj(np.asarray(x)).reshape(-1), np.asarray(y).reshape(-1)))

    return tree.reduce(operator.add, tree.map(contract, xs, ys))


def _preserve_input_types(f: Callable[..., object]) -> Callable[..., object]:
    def wrapped(*args: object) -> object:
        result = np.array(f(*args), dtype=_dtype(args[0]))
        return result.item() if all(_is_python_scalar(a) for a in args) else result

    return wrapped


def _safe_subtract(x: _Leaf, y: _Leaf) -> _Leaf:
    """``x - y`` with ``inf - inf == 0``."""
    dtype = _dtype(x)
    with np.errstate(invalid="ignore"):
        return np.where(np.equal(x, y), np.array(0, dtype), np.subtract(x, y, dtype=dtype))


def _add(xs: object, ys: object) -> Any:  # noqa: ANN401 - a pytree of the caller's
    return tree.map(_preserve_input_types(operator.add), xs, ys)


def _sub(xs: object, ys: object) -> Any:  # noqa: ANN401 - a pytree of the caller's
    return tree.map(_preserve_input_types(operator.sub), xs, ys)


def _conj(xs: object) -> Any:  # noqa: ANN401 - a pytree of the caller's
    return tree.map(_preserve_input_types(np.conj), xs)


def _scalar_mul(xs: object, a: float) -> Any:  # noqa: ANN401 - a pytree of the caller's
    def mul(x: _Leaf) -> _Leaf:
        dtype = _dtype(x)
        result = np.multiply(x, np.array(a, dtype=dtype), dtype=dtype)
        return result.item() if _is_python_scalar(x) else result

    return tree.map(mul, xs)


def _rand_like(rng: np.random.RandomState, x: _Leaf) -> _Leaf:
    shape = np.shape(x)
    dtype = _dtype(x)
    result = np.asarray(rng.randn(*shape), dtype=dtype)
    if np.issubdtype(dtype, np.complexfloating):
        result = result + dtype.type(1.0j) * np.asarray(rng.randn(*shape), dtype=dtype)
    return result.item() if _is_python_scalar(x) else result


def numerical_jvp(f: Callable[..., object], primals: Sequence[object], tangents: Sequence[object],
                  eps: float = EPS) -> object:
    """The central difference ``(f(x + eps t) - f(x - eps t)) / (2 eps)``."""
    delta = _scalar_mul(tangents, eps)
    f_pos = f(*_add(primals, delta))
    f_neg = f(*_sub(primals, delta))
    return _scalar_mul(tree.map(_safe_subtract, f_pos, f_neg), 0.5 / eps)


def _merge_tolerance(tol: Tol, default: _ToleranceDict) -> float | _ToleranceDict:
    if tol is None:
        return default
    if not isinstance(tol, Mapping):
        return tol
    out = dict(default)
    for k, v in tol.items():
        out[np.dtype(k)] = v
    return out


def check_jvp(f: Callable[..., object], f_jvp: Callable[..., tuple[object, object]], args: Sequence[object],
              atol: Tol = None, rtol: Tol = None, eps: float = EPS, err_msg: str = "") -> None:
    """``jax.test_util.check_jvp``: ``f_jvp(args, tangents)`` (typically
    ``partial(jvp, f)``) against finite differences of ``f``; ``AssertionError``
    when they differ."""
    at = _merge_tolerance(atol, _GRADIENT_TOLERANCE)
    rt = _merge_tolerance(rtol, _GRADIENT_TOLERANCE)
    rng = np.random.RandomState(0)
    tangent = tree.map(functools.partial(_rand_like, rng), tuple(args))
    v_out, t_out = f_jvp(tuple(args), tangent)
    _check_dtypes_match(v_out, t_out)
    v_expected = f(*args)
    _check_dtypes_match(v_out, v_expected)
    t_expected = numerical_jvp(f, args, tangent, eps=eps)
    _check_close(v_out, v_expected, at, rt, f"{err_msg} primal" if err_msg else "primal")
    _check_close(t_out, t_expected, at, rt, f"{err_msg} tangent" if err_msg else "tangent")


def check_vjp(f: Callable[..., object], f_vjp: Callable[..., tuple[object, Callable[..., object]]],
              args: Sequence[object], atol: Tol = None, rtol: Tol = None, eps: float = EPS,
              err_msg: str = "") -> None:
    """``jax.test_util.check_vjp``: ``f_vjp(*args)`` (typically ``partial(vjp, f)``)
    against finite differences of ``f``, by ``<t, vjp(c)> == <jvp(t), c>`` in
    one random direction; ``AssertionError`` when they differ."""
    at = _merge_tolerance(atol, _GRADIENT_TOLERANCE)
    rt = _merge_tolerance(rtol, _GRADIENT_TOLERANCE)
    rand = functools.partial(_rand_like, np.random.RandomState(0))
    v_out, vjp_fun = f_vjp(*args)
    v_expected = f(*args)
    _check_close(v_out, v_expected, at, rt, f"{err_msg} primal" if err_msg else "primal")
    tangent = tree.map(rand, tuple(args))
    tangent_out = numerical_jvp(f, args, tangent, eps=eps)
    cotangent = tree.map(rand, v_out)
    cotangent_out = _conj(vjp_fun(_conj(cotangent)))
    ip = _inner_prod(tangent, cotangent_out)
    ip_expected = _inner_prod(tangent_out, cotangent)
    _check_close(ip, ip_expected, at, rt,
                 f"{err_msg} cotangent projection" if err_msg else "cotangent projection")


def _jvp_from_lin(f: Callable[..., object], primals: Sequence[object], tangents: Sequence[object]) -> tuple[object, object]:
    out, f_lin = linearize(f, *primals)
    return out, f_lin(*tangents)


def check_grads(f: Callable[..., object], args: Sequence[object], order: int,
                modes: Sequence[str] = ("fwd", "rev"), atol: Tol = None, rtol: Tol = None,
                eps: float | None = None) -> None:
    """``jax.test_util.check_grads``: forward (``"fwd"``), reverse (``"rev"``)
    and linearized (``"lin"``) derivatives of ``f`` at ``args``, up to
    ``order``, against finite differences; ``AssertionError`` on a mismatch."""
    step = eps or EPS

    def check(f: Callable[..., object], args: tuple[object, ...], order: int, err_msg: str = "") -> None:
        if "fwd" in modes:
            fwd_msg = f"JVP of {err_msg}" if err_msg else "JVP"
            f_jvp = functools.partial(jvp, f)
            check_jvp(f, f_jvp, args, atol, rtol, step, fwd_msg)
            if order > 1:
                check(f_jvp, (args, args), order - 1, fwd_msg)
        if "rev" in modes:
            rev_msg = f"VJP of {err_msg}" if err_msg else "VJP"
            check_vjp(f, functools.partial(vjp, f), args, atol, rtol, step, rev_msg)

            if order > 1:
                def f_vjp(*a: object) -> object:
                    out, vjp_fun = vjp(f, *a)
                    return vjp_fun(out)

                check(f_vjp, args, order - 1, rev_msg)
        if "lin" in modes:
            lin_msg = f"LIN of {err_msg}" if err_msg else "LIN"
            f_lin = functools.partial(_jvp_from_lin, f)
            check_jvp(f, f_lin, args, atol, rtol, step, lin_msg)
            if order > 1:
                check(f_lin, (args, args), order - 1, lin_msg)

    check(f, tuple(args), order)
