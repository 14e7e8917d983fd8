"""Eager evaluation through XLA, for the primitives whose value is XLA's own.

A float sum's value depends on the order XLA adds in (windows of 32 for a
whole-array sum on the CPU, a fused kernel for some axes, another order on
a GPU), and ``pow`` on the C library XLA calls; NumPy has its own of both.
A primitive whose ``Rules.eval_on_device`` says so is evaluated eagerly by
its own one-equation program, compiled for the current device once per
(primitive, params, operand types, constants) and run -- so eager equals
``jit`` on every platform by construction (docs/architecture.md, "Eager
evaluation is XLA's").

The programs are staged as ``jit`` stages the primitive: the operands the
rule names as constants (a uniform exponent, as ``x ** 2.0`` stages a
broadcast literal) are literals of the program, so XLA specializes on them
as it does under ``jit``; the others are arguments. The compile cache keeps
an executable only while a jaxpr that used it lives, so the programs (their
jaxprs with their executables) live here, the ``MAX_PROGRAMS`` most
recently used.
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass

import numpy as np

from ..core.array import ArrayImpl
from ..core.avals import ShapedArray
from ..core.config import install_accelerator_question
from ..core.errors import PlatformError
from ..core.ir import Jaxpr, NDArray, Params, Primitive
from ..core.trace import Value, aval_of, bind, install_device_eval
from ..interpreters.staging import trace_to_jaxpr_flat
from ..primitives.structural import broadcast_to
from .cache import compile_cache
from . import jaxlib_api as jx
from .runtime import Executable, buffer_of, platform, put_buffer

#: Programs kept (least recently used dropped first): each is a few hundred
#: KB of compiled code; an eager loop uses a handful.
MAX_PROGRAMS = 256


@dataclass(frozen=True, slots=True)
class _Program:
    jaxpr: Jaxpr  # owns the compile cache's entry for ``exe``
    exe: Executable
    params: object  # keeps the key's ``id(params)`` this map's own
    args: tuple[int, ...]  # the operands that are arguments, in order


_PROGRAMS: OrderedDict[Hashable, _Program] = OrderedDict()
_LOCK = threading.Lock()


def eval_on_device(
    prim: Primitive, params: Params, args: Sequence[Value], values: Sequence[NDArray],
    avals: Sequence[ShapedArray], consts: tuple[int, ...],
) -> list[ArrayImpl]:
    """``prim`` applied to ``args`` (of types ``avals``; ``values`` their
    host values) by its one-equation program; the operands at ``consts``
    (uniform arrays) are its constants. Results on the device."""
    const_key = tuple(values[i].reshape(-1)[:1].tobytes() for i in consts)
    key = (prim.name, id(params), tuple(avals), consts, const_key)
    prog = _lookup(key)
    if prog is None:
        prog = _keep(key, _program(prim, params, values, avals, consts))
    bufs = []
    for i in prog.args:
        a = args[i]
        # a concrete array keeps its device buffer (a jit result is not fetched)
        if type(a) is ArrayImpl:
            bufs.append(buffer_of(a))
        elif values[i].ndim == 0:
            bufs.append(_scalar_buffer(values[i], avals[i]))
        else:
            bufs.append(put_buffer(values[i], avals[i]))
    return prog.exe.run(bufs)


#: Device copies of the scalars eager operations met (``x * 2.0`` in a loop
#: copies its ``2.0`` once, not per step: a host-to-device copy is most of a
#: small operation's time on a GPU), the ``MAX_SCALARS`` most recently used.
_SCALARS: OrderedDict[tuple[bytes, ShapedArray], jx.Array] = OrderedDict()
MAX_SCALARS = 256


def _scalar_buffer(value: NDArray, aval: ShapedArray) -> jx.Array:
    key = (value.tobytes(), aval)
    buf = _SCALARS.get(key)
    if buf is None:
        buf = put_buffer(value, aval)
        with _LOCK:
            _SCALARS[key] = buf
            while len(_SCALARS) > MAX_SCALARS:
                _SCALARS.popitem(last=False)
    return buf


def eval_program(
    name: str, key: Hashable, fn: Callable[[list[Value]], Sequence[Value]], args: Sequence[Value],
) -> list[ArrayImpl]:
    """``fn``, a composite of primitives, staged at the (strong) types of
    ``args`` and run as one program (kept per ``(name, key)`` and types): for
    a composite whose value under ``jit`` is XLA's fusion of its equations,
    not their values one by one -- ``tnp.mean`` (XLA fuses the division into
    the sum, and a fused sum over an axis adds in another order than the sum
    alone), as ``jax.numpy.mean`` is itself a jitted function. ``args`` are
    concrete (arrays, NumPy values, scalars), of the types they enter with."""
    avals = tuple(aval_of(a).weakened(False) for a in args)
    full_key = (name, key, avals)
    prog = _lookup(full_key)
    if prog is None:
        jaxpr = trace_to_jaxpr_flat(fn, avals, name).jaxpr
        prog = _keep(full_key, _Program(jaxpr, compile_cache.get(jaxpr, name), key, tuple(range(len(args)))))
    bufs = [
        buffer_of(a) if type(a) is ArrayImpl else put_buffer(np.asarray(a, av.dtype), av)
        for a, av in zip(args, avals)
    ]
    return prog.exe.run(bufs)


def _lookup(key: Hashable) -> _Program | None:
    prog = _PROGRAMS.get(key)
    if prog is not None:
        with _LOCK:
            if key in _PROGRAMS:
                _PROGRAMS.move_to_end(key)
    return prog


def _keep(key: Hashable, prog: _Program) -> _Program:
    with _LOCK:
        _PROGRAMS[key] = prog
        while len(_PROGRAMS) > MAX_PROGRAMS:
            _PROGRAMS.popitem(last=False)
    return prog


def eval_on_host(prim: Primitive, params: Params, values: Sequence[NDArray]) -> list[NDArray]:
    """``eval_on_device`` of host values with no constants, fetched back:
    for the eager fast paths (``tnp.mean``, ``nn.softmax``), whose sums must
    be the primitive's own."""
    avals = [ShapedArray(tuple(v.shape), v.dtype) for v in values]
    return [o.to_numpy() for o in eval_on_device(prim, params, values, values, avals, ())]


def _program(
    prim: Primitive, params: Params, values: Sequence[NDArray],
    avals: Sequence[ShapedArray], consts: tuple[int, ...],
) -> _Program:
    args = tuple(i for i in range(len(avals)) if i not in consts)

    def one_equation(xs: list[Value]) -> Sequence[Value]:
        operands: list[Value] = []
        it = iter(xs)
        for i, a in enumerate(avals):
            if i in consts:  # a literal, broadcast as staging makes a Python scalar's
                s = np.asarray(values[i].reshape(-1)[0], a.dtype)
                operands.append(broadcast_to(s, a.shape, tuple(range(a.ndim))) if a.shape else s)
            else:
                operands.append(next(it))
        return bind(prim, operands, params)

    arg_avals = [ShapedArray(avals[i].shape, avals[i].dtype) for i in args]  # (strong: one program)
    jaxpr = trace_to_jaxpr_flat(one_equation, arg_avals, prim.name).jaxpr
    return _Program(jaxpr, compile_cache.get(jaxpr, prim.name), params, args)


def programs() -> int:
    """How many one-equation programs are kept (for tests)."""
    return len(_PROGRAMS)


def on_accelerator() -> bool:
    """Whether the platform (``runtime.platform()``) is an accelerator, where
    eager evaluation runs every primitive it can through XLA, as JAX's
    dispatch does there (docs/architecture.md, "Eager evaluation is XLA's").
    ``TYPEDAX_EAGER_ON_DEVICE=1`` asks for that on the CPU too (XLA's values
    and XLA's speed for every eager operation, not NumPy's): the tests run
    the GPU's eager path with it."""
    if os.environ.get("TYPEDAX_EAGER_ON_DEVICE", "") == "1":
        return True
    try:
        return platform() != "cpu"
    except PlatformError:  # a bad TYPEDAX_PLATFORM: the first computation says so
        return False


install_device_eval(eval_on_device)  # the eval trace (core) runs Rules.eval_on_device primitives with it
install_accelerator_question(on_accelerator)
