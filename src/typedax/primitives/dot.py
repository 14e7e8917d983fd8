"""``dot_general``, and every rule for it: the contraction that ``lax.dot``,
``numpy.matmul``/``dot``/``einsum``-style products lower to.

Params, as JAX's: ``dimension_numbers``, ``precision`` (``None`` or a pair
of ``"DEFAULT"``/``"HIGH"``/``"HIGHEST"``) and ``preferred_element_type``
(``None`` or the result dtype); ``_precision.py`` has what they mean, shared
with the convolutions. The JVP, transposes and batching rules keep both."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from jaxlib.mlir.dialects import stablehlo as hlo

from ..core.avals import ShapedArray
from ..core.dtypes import DType, bool_
from ..core.errors import NonLinearError, PrimitiveTypeError
from ..core.ir import Eqn, NDArray, Params, Primitive
from ..core.rules import BatchDim, Family, Primal, Rules, Tangent, UndefPrimal, Zero
from ..core.trace import Value, aval_of, bind1, memo_abstract
from ..hlo import HloValue, LoweringContext, tensor_type
from ._params import _get, params_of
from ._precision import CanonicalPrecision, element_type_param, precision_attr, precision_param, preferred_out_dtype
from .elementwise import add_tangents, convert
from .structural import check_arity, primal_aval, transpose, zero_like


# -- dot_general(lhs, rhs; dimension_numbers) --------------------------------
DimensionNumbers = tuple[tuple[tuple[int, ...], tuple[int, ...]], tuple[tuple[int, ...], tuple[int, ...]]]


#: Checked dimension numbers by value (a model has a handful; each is read at
#: every evaluation and abstract evaluation).
_CHECKED: dict[object, DimensionNumbers] = {}


def get_dimension_numbers(params: Params) -> DimensionNumbers:
    dn = _get("dot_general", params, "dimension_numbers")
    try:
        return _CHECKED[dn]
    except (KeyError, TypeError):  # new, or unhashable (and then refused below)
        pass
    checked = _check_dimension_numbers(dn)
    if len(_CHECKED) < 4096:
        _CHECKED[dn] = checked
    return checked


def _check_dimension_numbers(dn: object) -> DimensionNumbers:
    parts: tuple[object, ...] = ()
    if isinstance(dn, tuple) and len(dn) == 2 and all(isinstance(p, tuple) and len(p) == 2 for p in dn):
        parts = tuple(q for p in dn if isinstance(p, tuple) for q in p)
    if len(parts) != 4 or not all(
        isinstance(p, tuple) and all(type(i) is int for i in p) for p in parts
    ):
        raise PrimitiveTypeError(
            f"dot_general: dimension_numbers must be ((lhs_contract, rhs_contract), "
            f"(lhs_batch, rhs_batch)) tuples of ints, got {dn!r}"
        )
    lc_, rc_, lb_, rb_ = (tuple(i for i in p if type(i) is int) for p in parts if isinstance(p, tuple))
    return ((lc_, rc_), (lb_, rb_))


def _free(ndim: int, contract: tuple[int, ...], batch: tuple[int, ...]) -> tuple[int, ...]:
    used = set(contract) | set(batch)
    return tuple(i for i in range(ndim) if i not in used)


def get_precision(params: Params) -> CanonicalPrecision:
    """The ``precision`` param (absent, as in jaxprs written before it was
    one, is ``None``)."""
    return precision_param("dot_general", params.get("precision"))


def get_element_type(params: Params) -> DType | None:
    """The ``preferred_element_type`` param (absent is ``None``)."""
    return element_type_param("dot_general", params.get("preferred_element_type"))


def dot_params(
    dn: DimensionNumbers, precision: CanonicalPrecision = None, preferred: DType | None = None
) -> Params:
    """A ``dot_general`` equation's params (checked values; shared maps, so
    abstract evaluation remembers its result per map: ``memo_abstract``)."""
    return params_of(("dimension_numbers", dn), ("precision", precision), ("preferred_element_type", preferred))


#: Result types by operand types, dimension numbers and preferred type
#: (checked once each).
_OUT: dict[tuple[ShapedArray, ShapedArray, DimensionNumbers, DType | None], ShapedArray] = {}


@memo_abstract
def _dot_general_abstract(avals: Sequence[ShapedArray], params: Params) -> list[ShapedArray]:
    check_arity("dot_general", avals, 2)
    get_precision(params)
    key = (avals[0], avals[1], get_dimension_numbers(params), get_element_type(params))
    out = _OUT.get(key)
    if out is None:
        out = _dot_general_out(*key)
        if len(_OUT) < 4096:
            _OUT[key] = out
    return [out]


def _dot_general_out(
    lhs: ShapedArray, rhs: ShapedArray, dn: DimensionNumbers, preferred: DType | None = None
) -> ShapedArray:
    (lc, rc), (lb, rb) = dn

    def where() -> str:  # built only when there is an error to report
        return f"dot_general({lhs.str_short()}, {rhs.str_short()}, dimension_numbers={((lc, rc), (lb, rb))})"

    if lhs.dtype != rhs.dtype:
        raise PrimitiveTypeError(f"{where()}: operands must have one dtype")
    if lhs.dtype == bool_:
        raise PrimitiveTypeError(f"{where()}: bool operands are not supported")
    for dims, a in ((lc + lb, lhs), (rc + rb, rhs)):
        if len(set(dims)) != len(dims) or any(not 0 <= d < a.ndim for d in dims):
            raise PrimitiveTypeError(f"{where()}: dimensions must be distinct axes of each operand")
    if len(lc) != len(rc) or len(lb) != len(rb):
        raise PrimitiveTypeError(f"{where()}: contracting and batch dimensions must pair up")
    if any(lhs.shape[i] != rhs.shape[j] for i, j in zip(lc + lb, rc + rb)):
        raise PrimitiveTypeError(f"{where()}: paired dimensions have different sizes")
    shape = (
        tuple(lhs.shape[i] for i in lb)
        + tuple(lhs.shape[i] for i in _free(lhs.ndim, lc, lb))
        + tuple(rhs.shape[i] for i in _free(rhs.ndim, rc, rb))
    )
    return ShapedArray(shape, preferred_out_dtype(where(), lhs.dtype, preferred))


_BLAS_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


def host_matmul(lhs: NDArray, rhs: NDArray) -> object:
    """``np.matmul(lhs, rhs)`` for ``rhs`` of rank 1 or 2: through ``ndarray.dot``
    when both are float32/float64 of rank at most 2 (the same BLAS product,
    without ``matmul``'s ufunc machinery: ~0.45 us less for small matrices;
    ``tnp.matmul``'s eager path calls this too, so both agree bit for bit).
    Precision is not asked for: on the CPU XLA computes float32 and float64
    products at full precision whatever ``precision`` says (``_precision.py``),
    so NumPy's product is ``jit``'s for every precision there."""
    if lhs.ndim <= 2 and lhs.dtype in _BLAS_FLOATS and rhs.dtype == lhs.dtype:
        return lhs.dot(rhs)
    return np.matmul(lhs, rhs)


def _dot_general_impl(args: Sequence[NDArray], params: Params) -> list[NDArray]:
    lhs, rhs = args
    (lc, rc), (lb, rb) = get_dimension_numbers(params)
    pet = get_element_type(params)
    if pet is not None and pet != lhs.dtype:  # products and sums in the result type, as XLA's
        lhs, rhs = lhs.astype(pet), rhs.astype(pet)
    if not lb and lc == (lhs.ndim - 1,) and rc == (0,) and 1 <= rhs.ndim <= 2 and lhs.ndim >= 1:
        # the last axis of lhs with the first of rhs: NumPy's matmul gives dot_general's layout
        return [np.asarray(host_matmul(lhs, rhs), dtype=lhs.dtype)]
    lf, rf = _free(lhs.ndim, lc, lb), _free(rhs.ndim, rc, rb)
    bshape = tuple(lhs.shape[i] for i in lb)
    lfs, rfs = tuple(lhs.shape[i] for i in lf), tuple(rhs.shape[i] for i in rf)
    csize = math.prod(lhs.shape[i] for i in lc)
    b = math.prod(bshape)
    l3 = np.transpose(lhs, lb + lf + lc).reshape(b, math.prod(lfs), csize)
    r3 = np.transpose(rhs, rb + rc + rf).reshape(b, csize, math.prod(rfs))
    out = np.matmul(l3, r3).reshape(bshape + lfs + rfs)
    return [np.asarray(out, dtype=lhs.dtype)]


def dot_general(
    lhs: Value, rhs: Value, dn: DimensionNumbers, precision: CanonicalPrecision = None,
    preferred: DType | None = None,
) -> Value:
    return bind1(dot_general_p, (lhs, rhs), dot_params(dn, precision, preferred))


def _dot_general_jvp(
    primals: Sequence[Value], tangents: Sequence[Tangent], params: Params
) -> tuple[list[Value], list[Tangent]]:
    (x, y), (tx, ty) = primals, tangents
    out = bind1(dot_general_p, (x, y), params)
    a: Tangent = tx if isinstance(tx, Zero) else bind1(dot_general_p, (tx, y), params)
    b: Tangent = ty if isinstance(ty, Zero) else bind1(dot_general_p, (x, ty), params)
    t = add_tangents(a, b)
    return [out], [zero_like(out) if isinstance(t, Zero) else t]


def _defined(x: Primal, role: str) -> Value:
    if isinstance(x, UndefPrimal):
        raise NonLinearError("dot_general", f"its {role} is a linear value ({x.aval.str_short()})")
    return x


def _permute_back(x: Value, src: list[int]) -> Value:
    """``x``'s axis ``k`` is operand axis ``src[k]``; put them in operand order."""
    perm = tuple(int(i) for i in np.argsort(src))
    if perm == tuple(range(len(perm))):
        return x
    return transpose(x, perm)


def _product_back(
    a: Value, b: Value, dn: DimensionNumbers, prec: CanonicalPrecision, pet: DType | None, dtype: DType
) -> Value:
    """A transpose's product with the precision and preferred type kept (as
    JAX's): the cotangent has the result type, so with a preferred type the
    other operand is widened to it (exactly) and the product converted back
    to the operand's ``dtype`` (JAX's mixed-type product then convert)."""
    if pet is None or pet == dtype:
        return dot_general(a, b, dn, prec, pet)
    a, b = (x if aval_of(x).dtype == pet else convert(x, pet) for x in (a, b))
    return convert(dot_general(a, b, dn, prec), dtype)


def _dot_general_t(cts: Sequence[Value], ps: Sequence[Primal], params: Params) -> list[Value | None]:
    (ct,) = cts
    lhs, rhs = ps
    (lc, rc), (lb, rb) = get_dimension_numbers(params)
    prec, pet = get_precision(params), get_element_type(params)
    if isinstance(lhs, UndefPrimal) and isinstance(rhs, UndefPrimal):
        raise NonLinearError("dot_general", "both operands are linear values")
    lnd, rnd = primal_aval(lhs).ndim, primal_aval(rhs).ndim
    lf = [i for i in range(lnd) if i not in lc and i not in lb]
    rf = [i for i in range(rnd) if i not in rc and i not in rb]
    nb = len(lb)
    ct_b = tuple(range(nb))
    ct_lf = tuple(range(nb, nb + len(lf)))
    ct_rf = tuple(range(nb + len(lf), nb + len(lf) + len(rf)))
    if isinstance(lhs, UndefPrimal):
        # contract ct's rhs-free axes with rhs's free axes, batch with batch
        res = _product_back(ct, _defined(rhs, "rhs"), ((ct_rf, tuple(rf)), (ct_b, tuple(rb))), prec, pet, lhs.aval.dtype)
        r_rest = sorted(rc)  # rhs's remaining axes, ascending: the contracting ones
        src = list(lb) + lf + [lc[rc.index(j)] for j in r_rest]
        return [_permute_back(res, src), None]
    # the cotangent first, as JAX's (its rhs transpose is its lhs one with the
    # operands swapped): dot(ct, lhs) then a transpose, not dot(lhs, ct) --
    # the same program as JAX's, so XLA makes the same choices for it
    res = _product_back(ct, _defined(lhs, "lhs"), ((ct_lf, tuple(lf)), (ct_b, tuple(lb))), prec, pet, primal_aval(rhs).dtype)
    l_rest = sorted(lc)  # lhs's remaining axes, ascending: the contracting ones
    src = list(rb) + rf + [rc[lc.index(j)] for j in l_rest]
    return [None, _permute_back(res, src)]


def _shift(axes: tuple[int, ...], b: int) -> tuple[int, ...]:
    """Per-example axes as axes of a value batched along ``b``."""
    return tuple(a + (a >= b) for a in axes)


def _dot_general_batch(
    size: int, vals: Sequence[Value], dims: Sequence[BatchDim], params: Params
) -> tuple[list[Value], list[BatchDim]]:
    """Two batched operands: the batch axis becomes a dot_general batch
    dimension; one batched operand: it is a free dimension of that operand."""
    (lhs, rhs), (bl, br) = vals, dims
    (lc, rc), (lb, rb) = get_dimension_numbers(params)
    keep = (get_precision(params), get_element_type(params))
    if bl is not None and br is not None:
        dn = ((_shift(lc, bl), _shift(rc, br)), ((bl,) + _shift(lb, bl), (br,) + _shift(rb, br)))
        return [dot_general(lhs, rhs, dn, *keep)], [0]
    if bl is not None:
        lc2, lb2 = _shift(lc, bl), _shift(lb, bl)
        used = set(lc2) | set(lb2)
        free = [i for i in range(aval_of(lhs).ndim) if i not in used]
        return [dot_general(lhs, rhs, ((lc2, rc), (lb2, rb)), *keep)], [len(lb) + free.index(bl)]
    assert br is not None
    rc2, rb2 = _shift(rc, br), _shift(rb, br)
    used = set(rc2) | set(rb2)
    free = [i for i in range(aval_of(rhs).ndim) if i not in used]
    n_lhs_free = aval_of(lhs).ndim - len(lc) - len(lb)
    return [dot_general(lhs, rhs, ((lc, rc2), (lb, rb2)), *keep)], [len(lb) + n_lhs_free + free.index(br)]


def _dot_general_lower(ctx: LoweringContext, eqn: Eqn, args: Sequence[HloValue]) -> list[HloValue]:
    (lc, rc), (lb, rb) = get_dimension_numbers(eqn.params)
    dn = hlo.DotDimensionNumbers.get(
        lhs_batching_dimensions=list(lb),
        rhs_batching_dimensions=list(rb),
        lhs_contracting_dimensions=list(lc),
        rhs_contracting_dimensions=list(rc),
    )
    out = tensor_type(eqn.out_binders[0].aval)  # the preferred type, if any (as JAX's)
    return [hlo.dot_general(out, args[0], args[1], dn, precision_config=precision_attr(get_precision(eqn.params)))]


dot_general_p = Primitive(
    "dot_general", _dot_general_impl, _dot_general_abstract,
    Rules(
        jvp=_dot_general_jvp, transpose=_dot_general_t, batch=_dot_general_batch,
        lower=_dot_general_lower,
    ),
)


FAMILY = Family("dot", (dot_general_p,))
