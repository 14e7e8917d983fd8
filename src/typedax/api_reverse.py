"""The reverse-mode transformations on pytrees: ``linearize``, ``vjp``,
``grad``, ``value_and_grad``, ``jacrev`` and ``hessian``.

All are built on ``linearize_flat`` (JVP under partial evaluation): the primal
computation runs eagerly in Python, the linear tangent computation is staged
into a small jaxpr, and reverse mode transposes that jaxpr.

A gradient has the type (and the pytree structure) of the argument it is
taken with respect to.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Sequence
from typing import Concatenate, Literal, ParamSpec, TypeVar, TypeVarTuple, cast, overload

import numpy as np

from . import lax, tree
from ._lax.lax import _convert_weak
from .api import argnum_positions, flat_fun
from .api_forward import _values, int_zero_tangent, jacfwd
from .core.avals import ShapedArray
from .core.dtypes import float0, is_complex, is_float, is_inexact  # float0 names
from .core.errors import GradOutputError, TangentTypeError, TangentValueError
from .core.names import check_callable
from .core.array import Array, ArrayLike
from .core.trace import Value, aval_of, exact
from .interpreters.batching import vmap_flat
from .interpreters.jvp import Zero  # vjp's pullback as a pytree
from .interpreters.linearize import LinearFn, linearize_flat
from .tree_util import Partial  # vjp's pullback as a pytree

__all__ = ["grad", "hessian", "jacrev", "linearize", "value_and_grad", "vjp"]

P = ParamSpec("P")
T = TypeVar("T")
A0 = TypeVar("A0")
A1 = TypeVar("A1")
A2 = TypeVar("A2")
Aux = TypeVar("Aux")
Ts = TypeVarTuple("Ts")

_SCALARS = (bool, int, float, complex)



def _conform(who: str, what: str, xs: Sequence[Value], avals: Sequence[ShapedArray]) -> list[Value]:
    """Check (co)tangents against their expected types; Python scalars take the dtype."""
    out: list[Value] = []
    for i, (x, a) in enumerate(zip(xs, avals)):
        if type(x) in _SCALARS:
            if a.shape != ():
                raise TangentValueError(
                    f"{who}: {what} {i} is a Python scalar but must have type {a.str_short()}"
                )
            out.append(np.asarray(x, a.dtype))
            continue
        xa = aval_of(x)
        if xa != a:
            raise TangentValueError(
                f"{who}: {what} {i} has type {xa.str_short()} but must have type "
                f"{a.str_short()} (the type of its primal)"
            )
        out.append(x)
    return out


# -- linearize and vjp ---------------------------------------------------------
def linearize(f: Callable[..., T], *primals: object) -> tuple[T, Callable[..., T]]:
    """``f``'s value at ``primals`` and its linear approximation there, as a
    function of input tangents (one per argument, shaped like ``primals``)
    returning output tangents. Calling it does not redo the linearization."""
    leaves, in_tree = tree.flatten((primals, {}))
    run, out_trees = flat_fun(f, in_tree)
    outs, lin = linearize_flat(run, _values(leaves))
    out_tree = out_trees[-1]

    def f_lin(*tangents: object) -> T:
        t_leaves, t_tree = tree.flatten((tangents, {}))
        if t_tree != in_tree:
            raise TangentTypeError(
                f"linearize: tangents have tree structure {t_tree.children[0]} but the "
                f"primals have {in_tree.children[0]}; they must match"
            )
        ts = _conform("linearize", "tangent", _values(t_leaves), lin.in_avals)
        return cast(T, tree.unflatten(out_tree, lin(ts)))

    return cast(T, tree.unflatten(out_tree, outs)), f_lin


@overload
def vjp(
    f: Callable[[*Ts], T], *primals: *Ts, has_aux: Literal[False] = False
) -> tuple[T, Callable[[T], tuple[*Ts]]]: ...


@overload
def vjp(
    f: Callable[[*Ts], tuple[T, Aux]], *primals: *Ts, has_aux: Literal[True]
) -> tuple[T, Callable[[T], tuple[*Ts]], Aux]: ...


def vjp(
    f: Callable[[*Ts], object], *primals: *Ts, has_aux: bool = False
) -> tuple[object, ...]:
    """``f``'s value at ``primals`` and its vector-Jacobian product: a
    function from an output cotangent (shaped like the output) to a tuple
    with one cotangent per argument (shaped like that argument, and typed as
    it: annotate primals as ``Array`` or pytrees of them). With ``has_aux``,
    ``f`` returns ``(output, aux)``; ``aux`` is returned third, not
    differentiated (as ``jax.vjp``)."""
    leaves, in_tree = tree.flatten((primals, {}))

    def pair(*args: *Ts) -> object:
        out = f(*args)
        if not isinstance(out, tuple) or len(out) != 2:
            raise GradOutputError(
                f"vjp with has_aux=True requires the function to return a pair (output, aux), "
                f"got {_kind(out)}"
            )
        return out

    run, out_trees = flat_fun(pair if has_aux else f, in_tree)
    in_values = _values(leaves)
    in_avals = [aval_of(x) for x in in_values]  # float0 names
    outs, lin = linearize_flat(run, in_values)
    out_tree, aux_tree = (out_trees[-1].children[0], out_trees[-1].children[1]) if has_aux else (out_trees[-1], None)
    n_out = out_tree.num_leaves
    out_avals = [aval_of(o) for o in outs[:n_out]]

    # The pullback is a Partial (a pytree, as JAX's): its residuals and the
    # output tangents known without the inputs are its leaves, so it can be
    # returned from a jit-ed function or carried through a scan, and called
    # on the arrays that come back.
    def pullback(residuals: tuple[Value, ...], known: tuple[Value, ...], ct: object) -> tuple[*Ts]:
        it = iter(known)
        here = dataclasses.replace(lin, consts=residuals, out_tangents=tuple(
            o if o is None or isinstance(o, Zero) else next(it) for o in lin.out_tangents
        ))
        ct_leaves, ct_tree = tree.flatten(ct)
        if ct_tree != out_tree:
            raise TangentTypeError(
                f"vjp: the cotangent has tree structure {ct_tree} but the output has "
                f"{out_tree}; they must match"
            )
        float0_cts = [type(c) is np.ndarray and c.dtype == float0 for c in ct_leaves]  # float0 names
        ct_values = _values([np.zeros(a.shape, a.dtype) if z else c for c, a, z in zip(ct_leaves, out_avals, float0_cts)])
        cts: list[Value | None] = [
            None if z else c for c, z in zip(_conform("vjp", "cotangent", ct_values, out_avals), float0_cts)
        ]
        in_cts = here.transpose(cts + [None] * (len(outs) - n_out))
        in_cts = [c if is_inexact(a.dtype) else _float0_zeros(a) for c, a in zip(in_cts, in_avals)]  # float0 names: NumPy zeros, as JAX's
        args_kwargs = tree.unflatten(in_tree, in_cts)
        assert isinstance(args_kwargs, tuple)
        return cast(tuple[*Ts], tuple(args_kwargs[0]))

    known_tangents = tuple(o for o in lin.out_tangents if o is not None and not isinstance(o, Zero))
    f_vjp: Callable[[object], tuple[*Ts]] = Partial(pullback, lin.consts, known_tangents)

    primal_out = tree.unflatten(out_tree, outs[:n_out])
    if aux_tree is None:
        return primal_out, f_vjp
    return primal_out, f_vjp, tree.unflatten(aux_tree, outs[n_out:])


def _float0_zeros(a: ShapedArray) -> np.ndarray[tuple[int, ...], np.dtype[np.generic]]:
    """The gradient of an integer or bool value: zeros of JAX's ``float0``,
    a NumPy array as JAX's, where ``jit``/``vmap`` or the caller take it
    (``int_zero_tangent``) (float0 names)."""
    return int_zero_tangent(a)


def _kind(x: object) -> str:
    """What a user returned, in their terms (an ``Array``, not a tracer class)."""
    if isinstance(x, Array):
        return f"an Array of type {aval_of(x).str_short()}"
    return f"a {type(x).__name__}" if not isinstance(x, tuple) else f"a tuple of {len(x)}"


# -- gradients with respect to some arguments ----------------------------------
class _Diff:
    """``f`` as a flat function of the leaves of its arguments ``argnums``
    (the other arguments held fixed), with its output tree(s) recorded."""

    def __init__(
        self,
        who: str,
        f: Callable[..., object],
        args: tuple[object, ...],
        kwargs: dict[str, object],
        argnums: int | tuple[int, ...],
        has_aux: bool,
        holomorphic: bool = False,
        allow_int: bool = False,
    ) -> None:
        self.who, self.f, self.args, self.kwargs, self.has_aux = who, f, args, kwargs, has_aux
        self.idx = argnum_positions(who, argnums, len(args))
        self.single = isinstance(argnums, int)
        leaves: list[object] = []
        for k in self.idx:
            arg_leaves = tree.leaves(args[k])
            for x in arg_leaves:
                a = aval_of(x)
                if holomorphic and not is_complex(a.dtype):
                    raise TangentTypeError(
                        f"{who} with holomorphic=True requires inputs with complex dtype, "
                        f"but positional argument {k} has a leaf of type {a.str_short()}"
                    )
                if not is_inexact(a.dtype) and not allow_int:  # allow_int: float0 gradients
                    raise TangentTypeError(
                        f"{who} requires real- or complex-valued inputs (input dtype that is a "
                        f"sub-dtype of np.inexact), but positional argument {k} has a leaf of type "
                        f"{a.str_short()}. If you want to use Boolean- or integer-valued inputs, use "
                        "vjp or set allow_int to True."
                    )
            leaves.extend(arg_leaves)
        self.dyn = _values(leaves)
        self.dyn_tree = tree.structure(tuple(args[k] for k in self.idx))
        self.avals = [aval_of(x) for x in self.dyn]
        self.out_tree = tree.LEAF
        self.aux_tree = tree.LEAF
        self.num_out = 0

    def __call__(self, leaves: list[Value]) -> list[Value]:
        dyn_args = tree.unflatten(self.dyn_tree, leaves)
        assert isinstance(dyn_args, tuple)
        full = list(self.args)
        for k, a in zip(self.idx, dyn_args):
            full[k] = a
        out = self.f(*full, **self.kwargs)
        aux: object = None
        if self.has_aux:
            if not isinstance(out, tuple) or len(out) != 2:
                raise GradOutputError(
                    f"{self.who} with has_aux=True requires the function to return a pair "
                    f"(output, aux), got {_kind(out)}"
                )
            out, aux = out
        flat, self.out_tree = tree.flatten(out)
        aux_flat, self.aux_tree = tree.flatten(aux)
        self.num_out = len(flat)
        return _values(flat) + _values(aux_flat)

    def linearize(self) -> tuple[list[Value], LinearFn]:
        return linearize_flat(self, self.dyn)

    def grads(self, flat: Sequence[Value]) -> object:
        # a gradient has its primal's type, weak flag included (as JAX's:
        # ``grad(f)(2.0)`` is weakly typed)
        flat = [
            _float0_zeros(a) if not is_inexact(a.dtype)  # allow_int: JAX's float0 (float0 names)
            else _convert_weak(c, a.dtype) if a.weak_type and not aval_of(c).weak_type else c
            for c, a in zip(flat, self.avals)
        ]
        g = tree.unflatten(self.dyn_tree, flat)
        assert isinstance(g, tuple)
        return g[0] if self.single else g

    def aux(self, outs: Sequence[Value]) -> object:
        return tree.unflatten(self.aux_tree, outs[self.num_out :])


def _check_output(who: str, ya: ShapedArray, holomorphic: bool) -> None:
    """JAX's checks of a differentiated output's type (``_check_output_dtype_revderiv``)."""
    if holomorphic:
        if not is_complex(ya.dtype):
            raise GradOutputError(
                f"{who} with holomorphic=True requires outputs with complex dtype, "
                f"but got {ya.str_short()}"
            )
    elif is_complex(ya.dtype):
        raise GradOutputError(
            f"{who} requires real-valued outputs (output dtype that is a sub-dtype of "
            f"np.floating), but got {ya.dtype.name}. For holomorphic differentiation, pass "
            "holomorphic=True. For differentiation of non-holomorphic functions involving "
            "complex outputs, use typedax.vjp directly."
        )
    elif not is_float(ya.dtype):
        raise GradOutputError(
            f"{who} requires a floating-point output, but the function returned "
            f"{ya.str_short()}"
        )


def _value_and_grad_impl(
    who: str,
    f: Callable[..., object],
    args: tuple[object, ...],
    kwargs: dict[str, object],
    argnums: int | tuple[int, ...],
    has_aux: bool,
    holomorphic: bool = False,
    allow_int: bool = False,
) -> tuple[Value, object, object]:
    d = _Diff(who, f, args, kwargs, argnums, has_aux, holomorphic, allow_int)
    outs, lin = d.linearize()
    if d.out_tree != tree.LEAF:
        raise GradOutputError(
            f"{who} requires a scalar output, but the function returned a pytree "
            f"{d.out_tree}; use vjp or jacrev for other outputs"
        )
    y = outs[0]
    ya = aval_of(y)
    if ya.shape != ():
        raise GradOutputError(
            f"{who} requires a scalar output, but the function returned an array of type "
            f"{ya.str_short()}; use vjp or jacrev for non-scalar outputs (or sum it)"
        )
    _check_output(who, ya, holomorphic)
    cts: list[Value | None] = [exact(np.ones((), ya.dtype))] + [None] * (len(outs) - 1)
    return y, d.grads(lin.transpose(cts)), d.aux(outs)


# The overloads give the gradient the type of the argument it is taken with
# respect to (``grad(loss)(params, x)`` has the type of ``params``), for
# argnums 0, 1, 2 and (0, 1); other argnums are typed ``object``. Annotate
# differentiated parameters as ``Array`` or pytrees of ``Array`` (a Python
# float argument's gradient is an ``Array``).
@overload
def grad(
    f: Callable[Concatenate[A0, P], ArrayLike], argnums: Literal[0] = 0, has_aux: Literal[False] = False, holomorphic: bool = False, allow_int: bool = False
) -> Callable[Concatenate[A0, P], A0]: ...


@overload
def grad(
    f: Callable[Concatenate[A0, A1, P], ArrayLike], argnums: Literal[1], has_aux: Literal[False] = False, holomorphic: bool = False, allow_int: bool = False
) -> Callable[Concatenate[A0, A1, P], A1]: ...


@overload
def grad(
    f: Callable[Concatenate[A0, A1, A2, P], ArrayLike], argnums: Literal[2],
    has_aux: Literal[False] = False, holomorphic: bool = False, allow_int: bool = False,
) -> Callable[Concatenate[A0, A1, A2, P], A2]: ...


@overload
def grad(
    f: Callable[Concatenate[A0, A1, P], ArrayLike], argnums: tuple[Literal[0], Literal[1]],
    has_aux: Literal[False] = False, holomorphic: bool = False, allow_int: bool = False,
) -> Callable[Concatenate[A0, A1, P], tuple[A0, A1]]: ...


@overload
def grad(
    f: Callable[Concatenate[A0, P], tuple[ArrayLike, Aux]], argnums: Literal[0] = 0, *,
    has_aux: Literal[True], holomorphic: bool = False, allow_int: bool = False,
) -> Callable[Concatenate[A0, P], tuple[A0, Aux]]: ...


@overload
def grad(
    f: Callable[Concatenate[A0, A1, P], tuple[ArrayLike, Aux]], argnums: Literal[1], *,
    has_aux: Literal[True], holomorphic: bool = False, allow_int: bool = False,
) -> Callable[Concatenate[A0, A1, P], tuple[A1, Aux]]: ...


@overload
def grad(
    f: Callable[Concatenate[A0, P], ArrayLike], argnums: tuple[Literal[0]],
    has_aux: Literal[False] = False, holomorphic: bool = False, allow_int: bool = False,
) -> Callable[Concatenate[A0, P], tuple[A0]]: ...


@overload
def grad(
    f: Callable[..., ArrayLike], argnums: int, has_aux: Literal[False] = False, holomorphic: bool = False, allow_int: bool = False
) -> Callable[..., object]: ...


@overload
def grad(
    f: Callable[..., ArrayLike], argnums: tuple[int, ...], has_aux: Literal[False] = False, holomorphic: bool = False, allow_int: bool = False
) -> Callable[..., tuple[object, ...]]: ...


@overload
def grad(
    f: Callable[..., tuple[ArrayLike, Aux]], argnums: int | tuple[int, ...], *, has_aux: Literal[True],
    holomorphic: bool = False, allow_int: bool = False,
) -> Callable[..., tuple[object, Aux]]: ...


def grad(
    f: Callable[P, object], argnums: int | tuple[int, ...] = 0, has_aux: bool = False,
    holomorphic: bool = False, allow_int: bool = False,
) -> Callable[P, object]:
    """The gradient of a scalar-valued ``f`` with respect to its positional
    arguments ``argnums`` (``jax.grad``): with an int, one gradient shaped
    like that argument; with a tuple, a tuple of them. With ``has_aux``, ``f``
    returns ``(output, aux)`` and the result is ``(gradient, aux)``. A
    real output may depend on complex inputs (the gradient is JAX's, the
    conjugate Wirtinger derivative ``2 df/d conj(z)`` read through the
    transposes); a complex output needs ``holomorphic=True``, and then
    complex inputs, and the result is ``df/dz``. With ``allow_int``, an
    integer or bool argument's gradient is zeros of JAX's ``float0``."""
    check_callable("grad", f)  # JAX's TypeError, at once

    @functools.wraps(f, updated=())  # name and docs only, not f's state
    def gradfun(*args: P.args, **kwargs: P.kwargs) -> object:
        _, g, aux = _value_and_grad_impl("grad", f, args, kwargs, argnums, has_aux, holomorphic, allow_int)
        return (g, aux) if has_aux else g

    return gradfun


@overload
def value_and_grad(
    f: Callable[Concatenate[A0, P], ArrayLike], argnums: Literal[0] = 0, has_aux: Literal[False] = False, holomorphic: bool = False, allow_int: bool = False
) -> Callable[Concatenate[A0, P], tuple[Array, A0]]: ...


@overload
def value_and_grad(
    f: Callable[Concatenate[A0, A1, P], ArrayLike], argnums: Literal[1], has_aux: Literal[False] = False, holomorphic: bool = False, allow_int: bool = False
) -> Callable[Concatenate[A0, A1, P], tuple[Array, A1]]: ...


@overload
def value_and_grad(
    f: Callable[Concatenate[A0, A1, P], ArrayLike], argnums: tuple[Literal[0], Literal[1]],
    has_aux: Literal[False] = False, holomorphic: bool = False, allow_int: bool = False,
) -> Callable[Concatenate[A0, A1, P], tuple[Array, tuple[A0, A1]]]: ...


@overload
def value_and_grad(
    f: Callable[Concatenate[A0, P], tuple[ArrayLike, Aux]], argnums: Literal[0] = 0, *,
    has_aux: Literal[True], holomorphic: bool = False, allow_int: bool = False,
) -> Callable[Concatenate[A0, P], tuple[tuple[Array, Aux], A0]]: ...


@overload
def value_and_grad(
    f: Callable[..., ArrayLike], argnums: int | tuple[int, ...], has_aux: Literal[False] = False, holomorphic: bool = False, allow_int: bool = False
) -> Callable[..., tuple[Array, object]]: ...


@overload
def value_and_grad(
    f: Callable[..., tuple[ArrayLike, Aux]], argnums: int | tuple[int, ...], *, has_aux: Literal[True],
    holomorphic: bool = False, allow_int: bool = False,
) -> Callable[..., tuple[tuple[Array, Aux], object]]: ...


def value_and_grad(
    f: Callable[P, object], argnums: int | tuple[int, ...] = 0, has_aux: bool = False,
    holomorphic: bool = False, allow_int: bool = False,
) -> Callable[P, object]:
    """``f``'s value and its gradient (``jax.value_and_grad``): returns
    ``(value, gradient)``, or ``((value, aux), gradient)`` with ``has_aux``."""
    check_callable("value_and_grad", f)  # JAX's TypeError, at once

    @functools.wraps(f, updated=())  # name and docs only, not f's state
    def vg(*args: P.args, **kwargs: P.kwargs) -> object:
        y, g, aux = _value_and_grad_impl("value_and_grad", f, args, kwargs, argnums, has_aux, holomorphic, allow_int)
        return ((y, aux), g) if has_aux else (y, g)

    return vg


# -- Jacobians and Hessians ----------------------------------------------------
@overload
def jacrev(
    f: Callable[P, T], argnums: int = 0, has_aux: Literal[False] = False, holomorphic: bool = False, allow_int: bool = False
) -> Callable[P, T]: ...


@overload
def jacrev(
    f: Callable[P, T], argnums: tuple[int, ...], has_aux: Literal[False] = False, holomorphic: bool = False, allow_int: bool = False
) -> Callable[P, object]: ...


@overload
def jacrev(
    f: Callable[P, tuple[T, Aux]], argnums: int | tuple[int, ...] = 0, *, has_aux: Literal[True],
    holomorphic: bool = False, allow_int: bool = False,
) -> Callable[P, tuple[object, Aux]]: ...


def jacrev(
    f: Callable[P, object], argnums: int | tuple[int, ...] = 0, has_aux: bool = False,
    holomorphic: bool = False, allow_int: bool = False,
) -> Callable[P, object]:
    """The Jacobian of ``f`` by reverse mode (``jax.jacrev``): each output
    leaf of shape ``S`` is replaced by the derivatives with respect to the
    arguments ``argnums`` -- for an input leaf of shape ``I``, an array of
    shape ``S + I``; with a tuple of ``argnums``, a tuple per output leaf.
    One linearization; the transpose is mapped over the output basis. With
    ``has_aux``, ``f`` returns ``(output, aux)`` and the result is
    ``(jacobian, aux)``. With ``holomorphic``, complex inputs and outputs,
    and the complex derivatives (as JAX's)."""
    check_callable("jacrev", f)  # JAX's TypeError, at once

    @functools.wraps(f, updated=())  # name and docs only, not f's state
    def jac(*args: P.args, **kwargs: P.kwargs) -> object:
        d = _Diff("jacrev", f, args, kwargs, argnums, has_aux, holomorphic, allow_int)
        outs, lin = d.linearize()
        per_out: list[object] = []
        for j, y in enumerate(outs[: d.num_out]):
            ya = aval_of(y)
            if holomorphic or is_complex(ya.dtype):
                _check_output("jacrev", ya, holomorphic)
            elif not is_float(ya.dtype):
                raise GradOutputError(
                    f"jacrev requires floating-point outputs, but output {j} has type "
                    f"{ya.str_short()}"
                )
            per_out.append(d.grads(_pullback_rows(lin, j, len(outs), ya, d.avals)))
        jacobian = tree.unflatten(d.out_tree, per_out)
        return (jacobian, d.aux(outs)) if has_aux else jacobian

    return jac


def _pullback_rows(
    lin: LinearFn, j: int, n_out: int, ya: ShapedArray, in_avals: Sequence[ShapedArray]
) -> list[Value]:
    """The Jacobian rows of output ``j`` (shape ``ya.shape + I`` per input)."""

    def pull(vs: list[Value]) -> list[Value]:
        cts: list[Value | None] = [None] * n_out
        cts[j] = vs[0]
        return lin.transpose(cts)

    if ya.size == 1:
        rows = pull([exact(np.ones(ya.shape, ya.dtype))])
        return [r if ya.shape == () else lax.reshape(r, ya.shape + a.shape) for r, a in zip(rows, in_avals)]
    basis = exact(np.eye(ya.size, dtype=ya.dtype).reshape((ya.size,) + ya.shape))
    rows = vmap_flat(pull, ya.size, [0], [basis], [0] * len(in_avals))
    return [lax.reshape(r, ya.shape + a.shape) for r, a in zip(rows, in_avals)]


@overload
def hessian(
    f: Callable[P, T], argnums: int = 0, has_aux: Literal[False] = False, holomorphic: bool = False
) -> Callable[P, T]: ...


@overload
def hessian(
    f: Callable[P, T], argnums: tuple[int, ...], has_aux: Literal[False] = False, holomorphic: bool = False
) -> Callable[P, object]: ...


@overload
def hessian(
    f: Callable[P, tuple[T, Aux]], argnums: int | tuple[int, ...] = 0, *, has_aux: Literal[True],
    holomorphic: bool = False,
) -> Callable[P, tuple[object, Aux]]: ...


def hessian(
    f: Callable[P, object], argnums: int | tuple[int, ...] = 0, has_aux: bool = False, holomorphic: bool = False
) -> Callable[P, object]:
    """The Hessian of ``f`` (``jax.hessian``, its argument order):
    ``jacfwd(jacrev(f))``; for a scalar ``f`` of an argument of shape ``I``,
    an array of shape ``I + I``. With ``has_aux``, ``f`` returns
    ``(output, aux)`` and the result is ``(hessian, aux)``."""
    check_callable("hessian", f)  # JAX's TypeError, at once
    inner = jacrev(f, argnums, has_aux=has_aux, holomorphic=holomorphic)  # type: ignore[call-overload]  # has_aux: a bool here, Literal in the overloads
    return jacfwd(inner, argnums, has_aux=has_aux, holomorphic=holomorphic)  # type: ignore[call-overload, no-any-return]  # as above
