"""``lower_jaxpr``: a whole jaxpr to a StableHLO module with a public
``@main`` (dead code dropped first). The equation-by-equation interpreter it
drives is ``typedax.hlo``'s."""

from __future__ import annotations

import warnings
from collections import defaultdict, deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from jaxlib.mlir import ir

from ..core.avals import ShapedArray
from ..core.ir import Jaxpr
from ..hlo import LoweringContext, lower_function, make_context
from . import jaxlib_api as jx


@dataclass(frozen=True, slots=True, eq=False)
class LoweredModule:
    """A StableHLO module (and the MLIR context that owns it)."""

    context: ir.Context
    module: ir.Module
    name: str
    #: inputs of ``@main`` whose buffers the program consumes (donation)
    donated_inputs: tuple[int, ...] = ()
    #: the Python functions its host-callback ``custom_call``s call, by index
    #: (``LoweringContext.host_callbacks``); compiled with the module
    host_callbacks: tuple[Callable[..., object], ...] = ()

    def as_text(self) -> str:
        """The module in StableHLO's readable text form."""
        return str(self.module)

    def as_bytecode(self) -> bytes:
        import io

        buf = io.BytesIO()
        self.module.operation.write_bytecode(buf)
        return buf.getvalue()


def lower_jaxpr(
    jaxpr: Jaxpr, name: str = "main", donated: Sequence[bool] = (),
    arg_shardings: Sequence[str | None] = (), result_shardings: Sequence[str | None] = (),
    num_partitions: int = 1,
) -> LoweredModule:
    """A StableHLO module whose public ``@main`` computes ``jaxpr``.

    Its arguments are the jaxpr's input binders (constants included), in
    order; its results are the jaxpr's outputs. Equations no output needs
    are dropped first (``dce_jaxpr``, which also prunes the bodies of
    higher-order primitives such as loops, which XLA would keep).

    ``donated`` marks inputs whose buffers the caller gives up (``jit``'s
    ``donate_argnums``): each is aliased to an output of its type
    (``tf.aliasing_output``), else offered to XLA to reuse for an output of
    its size (``jax.buffer_donor``), as JAX's ``mlir.py`` does; a donation
    nothing can use warns, as JAX's does.

    A program partitioned over ``num_partitions`` devices (``jit`` with
    shardings) carries JAX's annotations: ``mhlo.num_partitions`` and
    ``mhlo.num_replicas`` on the module, and ``mhlo.sharding`` (XLA's
    sharding text, ``None`` for none) on each argument and result of ``@main``.
    """
    from ..interpreters.dce import dce_jaxpr

    jaxpr, _ = dce_jaxpr(jaxpr, [True] * len(jaxpr.outs), instantiate=True)
    context = make_context()
    with context, ir.Location.unknown():
        module = ir.Module.create()
        clean = "".join(c if c.isalnum() or c == "_" else "_" for c in name) or "main"
        module.operation.attributes["sym_name"] = ir.StringAttr.get(f"jit_{clean}")
        platform = _platform()
        lctx = LoweringContext(context, module, jx.PYTHON_CALLBACK_TARGETS[platform], platform)
        lower_function(lctx, jaxpr, "main", public=True)
        consumed: tuple[int, ...] = ()
        if any(donated):
            consumed = _mark_donations(module, jaxpr.in_avals, jaxpr.out_avals, donated)
        if num_partitions > 1 or any(s is not None for s in (*arg_shardings, *result_shardings)):
            _mark_shardings(module, arg_shardings, result_shardings, num_partitions)
    return LoweredModule(context, module, name, consumed, tuple(lctx.host_callbacks))


def _no_platform() -> str:
    raise RuntimeError("lower_jaxpr: the runtime, which says the platform, is not imported (import typedax)")


#: The platform the module is lowered for (its host-callback targets):
#: ``runtime.platform``, which the runtime installs when imported (it imports
#: this module, so this module does not import it).
_PLATFORM: list[Callable[[], str]] = [_no_platform]


def install_platform(platform: Callable[[], str]) -> None:
    _PLATFORM[0] = platform


def _platform() -> str:
    return _PLATFORM[0]()


def _main(module: ir.Module) -> ir.Operation:
    return next(
        op.operation for op in module.body.operations
        if "sym_name" in op.attributes and ir.StringAttr(op.attributes["sym_name"]).value == "main"
    )


def _with(attrs: ir.Attribute | None, n: int, key: str, values: Sequence[str | None]) -> ir.ArrayAttr:
    """``n`` argument (result) attribute dicts: those in ``attrs`` plus ``key``."""
    out = []
    for i in range(n):
        entry: dict[str, ir.Attribute] = {}
        if attrs is not None:
            old = ir.DictAttr(ir.ArrayAttr(attrs)[i])
            entry = {old[j].name: old[j].attr for j in range(len(old))}
        value = values[i] if i < len(values) else None
        if value is not None:
            entry[key] = ir.StringAttr.get(value)
        out.append(ir.DictAttr.get(entry))
    return ir.ArrayAttr.get(out)


def _mark_shardings(
    module: ir.Module, args: Sequence[str | None], results: Sequence[str | None], partitions: int
) -> None:
    i32 = ir.IntegerType.get_signless(32)
    module.operation.attributes["mhlo.num_partitions"] = ir.IntegerAttr.get(i32, partitions)
    module.operation.attributes["mhlo.num_replicas"] = ir.IntegerAttr.get(i32, 1)
    main = _main(module)
    ftype = ir.FunctionType(ir.TypeAttr(main.attributes["function_type"]).value)
    arg_attrs = main.attributes["arg_attrs"] if "arg_attrs" in main.attributes else None
    res_attrs = main.attributes["res_attrs"] if "res_attrs" in main.attributes else None
    main.attributes["arg_attrs"] = _with(arg_attrs, len(ftype.inputs), "mhlo.sharding", args)
    main.attributes["res_attrs"] = _with(res_attrs, len(ftype.results), "mhlo.sharding", results)


def set_up_aliases(
    in_avals: Sequence[ShapedArray], out_avals: Sequence[ShapedArray], donated: Sequence[bool]
) -> tuple[list[int | None], list[bool], list[bool]]:
    """JAX's ``_set_up_aliases`` (``mlir.py``), for one device: each donated
    input is aliased to the first output of its type not yet taken (in
    output order); an input left over is an XLA buffer donor when an output
    of its element count remains. Returns (the output each input aliases,
    the buffer donors, the donations nothing can use)."""
    if len(donated) != len(in_avals):
        raise ValueError(f"{len(donated)} donation flags for {len(in_avals)} inputs")
    aliases: list[int | None] = [None] * len(in_avals)
    by_type: defaultdict[ShapedArray, deque[int]] = defaultdict(deque)
    for i, (aval, d) in enumerate(zip(in_avals, donated)):
        if d:
            by_type[aval].append(i)
    unused = [bool(d) for d in donated]
    for j, aval in enumerate(out_avals):
        waiting = by_type.get(aval)
        if waiting:
            i = waiting.popleft()
            aliases[i] = j
            unused[i] = False
    taken = {j for j in aliases if j is not None}
    by_size: defaultdict[int, deque[int]] = defaultdict(deque)
    for j, aval in enumerate(out_avals):
        if j not in taken:
            by_size[aval.size].append(j)
    donors = [False] * len(in_avals)
    for i, aval in enumerate(in_avals):
        if unused[i] and by_size.get(aval.size):
            by_size[aval.size].popleft()
            unused[i] = False
            donors[i] = True
    return aliases, donors, unused


def _mark_donations(
    module: ir.Module,
    in_avals: Sequence[ShapedArray],
    out_avals: Sequence[ShapedArray],
    donated: Sequence[bool],
) -> tuple[int, ...]:
    """Set the donation attributes on ``@main``'s arguments; the inputs
    consumed."""
    aliases, donors, unused = set_up_aliases(in_avals, out_avals, donated)
    if any(unused):
        bad = ", ".join(a.str_short() for a, u in zip(in_avals, unused) if u)
        warnings.warn(
            f"Some donated buffers were not usable: {bad}.\n"
            "See an explanation at https://docs.jax.dev/en/latest/faq.html#buffer-donation.",
            stacklevel=2,
        )
    main = next(
        op for op in module.body.operations
        if "sym_name" in op.attributes and ir.StringAttr(op.attributes["sym_name"]).value == "main"
    )
    i32 = ir.IntegerType.get_signless(32)
    attrs = []
    for alias, donor in zip(aliases, donors):
        entry: dict[str, ir.Attribute] = {}
        if alias is not None:
            entry["tf.aliasing_output"] = ir.IntegerAttr.get(i32, alias)
        elif donor:
            entry["jax.buffer_donor"] = ir.BoolAttr.get(True)
        attrs.append(ir.DictAttr.get(entry))
    main.attributes["arg_attrs"] = ir.ArrayAttr.get(attrs)
    return tuple(i for i, (a, d) in enumerate(zip(aliases, donors)) if a is not None or d)
