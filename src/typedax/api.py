"""The user-facing trace drivers."""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Literal, ParamSpec, TypeVar, overload

from . import tree
from .core.array import ArrayImpl
from .core.avals import ShapedArray
from .core.axes import binding
from .core.errors import ArgnumsError, ArgnumsRangeError, StaticArgumentError, TangentTypeError
from .core.names import fun_name
from .core.ir import ClosedJaxpr
from .core.trace import Value, aval_of, as_value
from .interpreters.staging import trace_to_jaxpr_flat
from .lowering import jaxlib_api as jx  # block_until_ready: jaxlib's flattening and batched wait

P = ParamSpec("P")


def argnum_positions(who: str, argnums: int | tuple[int, ...], nargs: int) -> list[int]:
    """The positions ``argnums`` names among ``nargs`` positional arguments:
    each an int in range, none repeated (a repeated one would get one
    gradient), at least one."""
    nums = (argnums,) if isinstance(argnums, int) else tuple(argnums)
    if not nums:
        raise ArgnumsError(f"{who}: argnums=() names no argument to differentiate with respect to")
    for k in nums:
        if type(k) is not int or not -nargs <= k < nargs:
            raise ArgnumsRangeError(
                f"{who}: argnums={argnums!r} is out of range for {nargs} positional arguments"
            )
    idx = [k % nargs for k in nums]
    if len(set(idx)) != len(idx):
        raise ArgnumsError(f"{who}: argnums={argnums!r} names an argument more than once")
    return idx


def flat_fun(
    f: Callable[..., object], in_tree: tree.TreeDef
) -> tuple[Callable[[list[Value]], list[Value]], list[tree.TreeDef]]:
    """``f`` on flat leaves; the output structure lands in the returned list."""
    out_trees: list[tree.TreeDef] = []

    def run(leaves: list[Value]) -> list[Value]:
        args_kwargs = tree.unflatten(in_tree, leaves)
        assert isinstance(args_kwargs, tuple)
        args, kwargs = args_kwargs
        out = f(*args, **kwargs)
        flat, out_tree = tree.flatten(out)
        out_trees.append(out_tree)
        return [as_value(x, "the outputs of the function") for x in flat]

    return run, out_trees


def _is_aval(x: object) -> bool:
    """A ``ShapedArray`` argument is a leaf (it is a dataclass, so pytrees would open it)."""
    return isinstance(x, ShapedArray)


@overload
def make_jaxpr(
    f: Callable[P, object], static_argnums: int | Sequence[int] = (),
    axis_env: Sequence[tuple[str, int]] | None = None, return_shape: Literal[False] = False,
) -> Callable[P, ClosedJaxpr]: ...
@overload
def make_jaxpr(
    f: Callable[P, object], static_argnums: int | Sequence[int] = (),
    axis_env: Sequence[tuple[str, int]] | None = None, *, return_shape: Literal[True],
) -> Callable[P, tuple[ClosedJaxpr, object]]: ...
def make_jaxpr(
    f: Callable[P, object], static_argnums: int | Sequence[int] = (),
    axis_env: Sequence[tuple[str, int]] | None = None, return_shape: bool = False,
) -> Callable[P, ClosedJaxpr] | Callable[P, tuple[ClosedJaxpr, object]]:
    """``make_jaxpr(f)(*args)`` stages ``f`` at the types of ``args`` (arrays,
    scalars or ``ShapedArray``s, in any pytree) into a ``ClosedJaxpr``
    (``jax.make_jaxpr``). The positional arguments ``static_argnums``
    (negative ones count from the end) are passed to ``f`` as they are, not
    staged (they must be hashable, as JAX's); ``axis_env`` binds axis names
    and sizes for the collectives in ``f``; with ``return_shape``, the
    result is ``(jaxpr, shapes)``, ``shapes`` the output's pytree of
    ``ShapeDtypeStruct``s."""
    nums = (static_argnums,) if isinstance(static_argnums, int) else tuple(static_argnums)
    for k in nums:
        if type(k) is not int:
            raise StaticArgumentError(f"make_jaxpr: static_argnums must be ints, got {k!r}")
    env = tuple(axis_env or ())

    @functools.wraps(f, updated=())  # name and docs only, not f's state
    def staged(*args: P.args, **kwargs: P.kwargs) -> ClosedJaxpr | tuple[ClosedJaxpr, object]:
        fun: Callable[..., object] = f
        if nums:
            fun, args = _bind_statics(f, nums, args)  # type: ignore[assignment]  # the dynamic ones of P.args
        leaves, in_tree = tree.flatten((args, kwargs), is_leaf=_is_aval)
        avals: Sequence[ShapedArray] = [aval_of(x) for x in leaves]
        run, out_trees = flat_fun(fun, in_tree)
        with binding(env):
            closed = trace_to_jaxpr_flat(run, avals, fun_name(f))
        if return_shape:
            return closed, tree.unflatten(out_trees[0], list(closed.out_avals))
        return closed

    return staged  # type: ignore[return-value]  # by return_shape, as the overloads say


def _bind_statics(
    f: Callable[..., object], nums: tuple[int, ...], args: tuple[object, ...]
) -> tuple[Callable[..., object], tuple[object, ...]]:
    """``f`` with the static positional arguments ``nums`` of ``args``
    fixed, and the other (dynamic) arguments (JAX's checks: in range,
    hashable; ``ValueError`` else)."""
    n = len(args)
    bad = [k for k in nums if not -n <= k < n]
    if bad:
        raise StaticArgumentError(
            f"make_jaxpr of '{fun_name(f)}': static_argnums={nums}, but it was called with only "
            f"{n} positional argument(s)"
        )
    statics = {k % n: args[k] for k in nums}
    for k, v in statics.items():
        try:
            hash(v)
        except TypeError as e:
            raise StaticArgumentError(
                f"make_jaxpr of '{fun_name(f)}': static argument {k} must be hashable, but "
                f"{type(v).__name__} is not ({e}). Non-hashable static arguments are not supported."
            ) from None

    def with_statics(*dyn: object, **kwargs: object) -> object:
        it = iter(dyn)
        return f(*[statics[i] if i in statics else next(it) for i in range(n)], **kwargs)

    return with_statics, tuple(a for i, a in enumerate(args) if i not in statics)


#: ``jax.ShapeDtypeStruct``: a shape and a dtype standing for an array of that
#: type (``ShapedArray(shape, dtype)``): what ``eval_shape`` returns and what
#: ``make_jaxpr`` and ``jit(f).trace`` take in place of arrays.
ShapeDtypeStruct = ShapedArray

T = TypeVar("T")


def eval_shape(f: Callable[P, object], *args: P.args, **kwargs: P.kwargs) -> object:
    """``jax.eval_shape``: the types of ``f``'s outputs at these arguments
    (arrays, scalars or ``ShapeDtypeStruct``s), as a pytree of
    ``ShapeDtypeStruct``s of ``f``'s output structure; nothing is computed."""
    leaves, in_tree = tree.flatten((args, kwargs), is_leaf=_is_aval)
    avals: Sequence[ShapedArray] = [aval_of(x) for x in leaves]
    run, out_trees = flat_fun(f, in_tree)
    closed = trace_to_jaxpr_flat(run, avals, fun_name(f))
    return tree.unflatten(out_trees[0], [ShapedArray(a.shape, a.dtype, a.weak_type) for a in closed.out_avals])


def block_until_ready(x: T) -> T:
    """``jax.block_until_ready``: wait for every array in the pytree ``x``;
    returns ``x``. Its leaves by jaxlib's flattening where that finds only
    arrays (typedax's own pytree nodes are leaves to it: then by
    ``typedax.tree``), and their device values waited for in one call, as
    JAX's: a training loop waits on its parameters every step."""
    leaves = _FLATTEN(x)[0]
    if not all([isinstance(leaf, ArrayImpl) for leaf in leaves]):
        leaves = tree.leaves(x)
    bufs: list[jx.Array] = []
    for leaf in leaves:
        if isinstance(leaf, ArrayImpl):
            if leaf._dev is None:
                leaf.block_until_ready()  # on the host only (nothing to wait for), or deleted (raises)
            else:
                bufs.append(leaf._dev)  # type: ignore[arg-type]  # core keeps jaxlib's array untyped
    if len(bufs) == 1:
        bufs[0].block_until_ready()
    elif bufs:
        jx.batched_block_until_ready(bufs)
    return x


_FLATTEN = jx.pytree_flatten().flatten


def device_get(x: object) -> object:
    """``jax.device_get``: the pytree ``x`` with each typedax array as a
    NumPy array (read-only, as the array's value is)."""
    return tree.map(lambda leaf: leaf.to_numpy() if isinstance(leaf, ArrayImpl) else leaf, x)


def typeof(x: object) -> ShapedArray:
    """``jax.typeof``: the abstract value of ``x`` (its ``ShapedArray``: a
    Python scalar's is weakly typed; a tracer's is what it stands for). A
    ``TypeError`` for a value that is not an array or scalar."""
    if isinstance(x, ShapedArray):
        raise TypeError(f"typeof takes a value, got the type {x.str_short()} itself")
    return aval_of(x)
