"""Public hypothesis strategies: dtypes, shapes, avals, argument values, and
well-typed jaxprs over the first-order primitives."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Final

import hypothesis.strategies as st
import numpy as np
from hypothesis.extra import numpy as hnp

from ..core.avals import ShapedArray
from ..core.dtypes import DType, bool_, float32, float64, int32, int64
from ..core.errors import TypedaxError
from ..core.ir import Atom, Eqn, Jaxpr, NDArray, Var
from ..registry import REGISTRY
from ._bitcast import BITCAST
from ._bitcast import NOT_FLOAT_VALUED as _BITCAST_NOT_FLOAT_VALUED
from ._bitcast import NOT_SMOOTH as _BITCAST_NOT_SMOOTH
from ._convolution import CONVOLUTION
from ._elementwise import ELEMENTWISE, Builder
from ._env import INPUT_RANGES, Config, Env, is_float
from ._gather_scatter import GATHER_SCATTER, NEEDS_INTEGER_ARRAYS
from ._reductions import REDUCTIONS
from ._slicing import SLICING
from ._prng import NOT_FLOAT_VALUED as _PRNG_NOT_FLOAT_VALUED
from ._prng import PRNG
from ._special import NOT_FLOAT_VALUED as _SPECIAL_NOT_FLOAT_VALUED
from ._special import NOT_SMOOTH as _SPECIAL_NOT_SMOOTH
from ._special import SPECIAL
from ._structural import STRUCTURAL
from ._windowed import NOT_SMOOTH as _WINDOWED_NOT_SMOOTH
from ._windowed import WINDOWED

#: The dtypes generated jaxprs use. The narrow and unsigned integers are left
#: out: the builders' value intervals assume arithmetic never wraps around,
#: which for them it does at once (``1 - 3`` in uint32); tests/test_integer_dtypes.py
#: checks every integer operation on them against JAX over their whole range.
GENERATED: Final[tuple[DType, ...]] = (bool_, int32, int64, float32, float64)

_BUILDERS: Final[dict[str, Builder]] = {
    **ELEMENTWISE, **STRUCTURAL, **SLICING, **GATHER_SCATTER, **REDUCTIONS,
    **SPECIAL, **CONVOLUTION, **BITCAST, **PRNG,
    **WINDOWED,
}

#: Every primitive the generator can emit.
FIRST_ORDER_PRIMITIVES: Final[frozenset[str]] = frozenset(_BUILDERS)

#: Those whose results are not floats, or that are not smooth.
_NOT_FLOAT_VALUED: Final[frozenset[str]] = frozenset(
    {"greater", "less", "ge", "le", "eq", "ne"}
    | {"argmax", "argmin", "reduce_and", "reduce_or", "top_k"}  # integer or bool results
    | _SPECIAL_NOT_FLOAT_VALUED | _BITCAST_NOT_FLOAT_VALUED | _PRNG_NOT_FLOAT_VALUED
)
_NOT_SMOOTH: Final[frozenset[str]] = _NOT_FLOAT_VALUED | {
    "max", "min", "reduce_max", "reduce_min", "select_n", "convert_element_type",
    "floor", "ceil",  # jump at the integers
    "rem",  # jumps where x / y crosses an integer
    "abs",  # a kink at 0
    "stop_gradient",  # its derivative is zero by definition, not the identity's
    "clamp",  # kinks at min and max
    "cummax", "cummin", "sort",  # kinks where elements tie
} | _SPECIAL_NOT_SMOOTH | _BITCAST_NOT_SMOOTH | _WINDOWED_NOT_SMOOTH


def covered_primitives(*, float_only: bool = False, differentiable: bool = False) -> frozenset[str]:
    """The names of the primitives ``jaxprs`` emits in the given mode."""
    if differentiable:
        return FIRST_ORDER_PRIMITIVES - _NOT_SMOOTH - NEEDS_INTEGER_ARRAYS
    if float_only:
        return FIRST_ORDER_PRIMITIVES - _NOT_FLOAT_VALUED - NEEDS_INTEGER_ARRAYS
    return FIRST_ORDER_PRIMITIVES


def dtypes(*, float_only: bool = False) -> st.SearchStrategy[DType]:
    """The dtypes typedax supports (only float32/float64 with ``float_only``)."""
    return st.sampled_from([d for d in GENERATED if is_float(d) or not float_only])


def shapes(*, max_rank: int = 3, max_dim: int = 3) -> st.SearchStrategy[tuple[int, ...]]:
    """Shapes of rank 0..``max_rank`` with dimensions 1..``max_dim``."""
    return st.integers(0, max_rank).flatmap(
        lambda r: st.tuples(*(st.integers(1, max_dim) for _ in range(r)))
    )


def avals(
    *, dtypes: Sequence[DType] | None = None, max_rank: int = 3, max_dim: int = 3
) -> st.SearchStrategy[ShapedArray]:
    """Array types over ``dtypes`` (default: all supported)."""
    ds = list(dtypes) if dtypes is not None else list(GENERATED)
    return st.builds(ShapedArray, shapes(max_rank=max_rank, max_dim=max_dim), st.sampled_from(ds))


def values(aval: ShapedArray) -> st.SearchStrategy[NDArray]:
    """Arrays of type ``aval`` with elements in ``INPUT_RANGES``: bool anything,
    integers in [-3, 3], floats in [-2, 2] (never subnormal)."""
    r = INPUT_RANGES[aval.dtype]
    elements: st.SearchStrategy[object]
    if aval.dtype == bool_:
        elements = st.booleans()
    elif is_float(aval.dtype):
        elements = st.floats(
            r.lo, r.hi, width=32 if aval.dtype == float32 else 64, allow_subnormal=False
        )
    else:
        elements = st.integers(int(r.lo), int(r.hi))
    return hnp.arrays(aval.dtype, aval.shape, elements=elements).map(_as_ndarray)


def _as_ndarray(x: np.ndarray[tuple[int, ...], np.dtype[np.generic]]) -> NDArray:
    return np.asarray(x)


def args_for(jaxpr: Jaxpr) -> st.SearchStrategy[list[NDArray]]:
    """Arguments for ``jaxpr``'s inputs, drawn by ``values``. For a jaxpr from
    ``jaxprs`` they keep every intermediate value finite."""
    return st.tuples(*(values(a) for a in jaxpr.in_avals)).map(list)


def jaxprs(
    *,
    max_eqns: int = 8,
    min_inputs: int = 0,
    max_inputs: int = 4,
    max_outputs: int = 3,
    dtypes: Sequence[DType] | None = None,
    float_only: bool = False,
    differentiable: bool = False,
    primitives: Collection[str] | None = None,
    max_rank: int = 3,
    max_dim: int = 3,
) -> st.SearchStrategy[Jaxpr]:
    """Well-typed jaxprs (checked by each primitive's abstract evaluation as
    they are built).

    - ``dtypes``: the dtypes of inputs, literals and conversions (default all
      five; float64 only in the ``float_only`` and ``differentiable`` modes).
      Comparisons still make bool variables unless ``float_only``.
    - ``float_only``: every variable is a float; comparisons are left out and
      ``select_n`` gets a literal bool selector.
    - ``differentiable``: float64 only (unless ``dtypes`` says otherwise), only
      smooth primitives (``covered_primitives(differentiable=True)``), and
      operands kept away from singularities (``log``/``sqrt``/``pow`` bases
      >= 0.05 or 0.1, divisors and negative powers away from 0).
    - ``primitives``: restrict to these names (a subset of
      ``covered_primitives``).

    Evaluating a generated jaxpr on arguments from ``args_for`` gives finite
    values everywhere: the generator tracks a value range per variable and
    only emits an equation whose operands lie in its primitive's domain and
    whose results stay within 1e3 in magnitude. Jaxprs may have no inputs,
    unused inputs and equations, literal operands and outputs, and repeated
    outputs.
    """
    allowed = covered_primitives(float_only=float_only, differentiable=differentiable)
    if primitives is not None:
        unknown = set(primitives) - allowed
        if unknown:
            raise TypedaxError(
                f"jaxprs: cannot generate {sorted(unknown)} in this mode; "
                f"choose from {sorted(allowed)}"
            )
        allowed = frozenset(primitives)
    only_floats = float_only or differentiable
    ds = tuple(dtypes) if dtypes is not None else ((float64,) if only_floats else GENERATED)
    if only_floats:
        ds = tuple(d for d in ds if is_float(d))
    if not ds:
        raise TypedaxError("jaxprs: no dtypes to generate")
    cfg = Config(
        dtypes=ds,
        prims=tuple(sorted(allowed)),
        max_eqns=max_eqns,
        min_inputs=min_inputs,
        max_inputs=max_inputs,
        max_outputs=max_outputs,
        max_rank=max_rank,
        max_dim=max_dim,
        smooth=differentiable,
        float_only=only_floats,
    )
    return _jaxpr(cfg)


def jaxprs_with_args(
    *,
    max_eqns: int = 8,
    min_inputs: int = 0,
    max_inputs: int = 4,
    max_outputs: int = 3,
    dtypes: Sequence[DType] | None = None,
    float_only: bool = False,
    differentiable: bool = False,
    primitives: Collection[str] | None = None,
    max_rank: int = 3,
    max_dim: int = 3,
) -> st.SearchStrategy[tuple[Jaxpr, list[NDArray]]]:
    """A jaxpr from ``jaxprs(...)`` and arguments from ``args_for`` for it."""
    js = jaxprs(
        max_eqns=max_eqns, min_inputs=min_inputs, max_inputs=max_inputs,
        max_outputs=max_outputs, dtypes=dtypes, float_only=float_only,
        differentiable=differentiable, primitives=primitives, max_rank=max_rank,
        max_dim=max_dim,
    )
    return js.flatmap(lambda j: args_for(j).map(lambda args: (j, args)))


@st.composite
def _jaxpr(draw: st.DrawFn, cfg: Config) -> Jaxpr:
    env = Env(draw, cfg)
    in_aval = avals(dtypes=cfg.dtypes, max_rank=cfg.max_rank, max_dim=cfg.max_dim)
    n_in = draw(st.integers(cfg.min_inputs, max(cfg.min_inputs, cfg.max_inputs)))
    in_types = [draw(in_aval) for _ in range(n_in)]
    in_binders = tuple(Var(t) for t in in_types)
    for v in in_binders:
        env.add(v, INPUT_RANGES[v.aval.dtype])
    eqns: list[Eqn] = []
    for _ in range(draw(st.integers(0, cfg.max_eqns))):
        for _attempt in range(3):  # a primitive with no operands in its domain: try another
            name = draw(st.sampled_from(cfg.prims))
            built = _BUILDERS[name](env)
            if built is not None:
                break
        if built is None:
            continue
        ins, params, ranges = built
        prim = REGISTRY.get(name)
        if prim is None:
            raise TypedaxError(f"jaxprs: primitive '{name}' is not registered")
        out_avals = prim.abstract_eval([a.aval for a in ins], params)
        outs = tuple(Var(t) for t in out_avals)
        for v, r in zip(outs, ranges):
            env.add(v, r)
        eqns.append(Eqn(prim, ins, params, outs))
    n_out = draw(st.integers(1, max(cfg.max_outputs, 1)))
    outs_: list[Atom] = []
    for _ in range(n_out):
        if env.vars and draw(st.integers(0, 5)) > 0:
            outs_.append(draw(st.sampled_from(env.vars)))
        else:
            outs_.append(env.literal(draw(st.sampled_from(cfg.dtypes))))
    return Jaxpr(in_binders, tuple(eqns), tuple(outs_))
