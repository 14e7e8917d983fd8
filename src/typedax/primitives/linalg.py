"""Matrix decompositions, and every rule for them: ``cholesky``,
``triangular_solve``, ``qr``, ``eigh``, ``svd``, ``lu`` (with
``lu_pivots_to_permutation``) and ``eig`` (``jax.lax.linalg``'s
primitives; the user functions are in ``typedax.lax_linalg``).

Each works on the last two axes of a float32, float64, complex64 or
complex128 operand of rank >= 2; leading axes are a batch. Results:

* ``cholesky(a) -> l``: the lower Cholesky factor, zeros above the
  diagonal; NaN on and below the diagonal for a matrix that is not positive
  definite (as JAX's).
  Reads the lower triangle only (``typedax.lax_linalg.cholesky``
  symmetrizes first, as JAX's).
* ``triangular_solve(a, b; left_side, lower, transpose_a, conjugate_a,
  unit_diagonal) -> x``: ``op(a) @ x = b`` (``left_side``) or ``x @ op(a) =
  b``; reads one triangle of ``a``. Linear in ``b`` (its transpose solves
  with ``op(a)`` transposed).
* ``qr(a; full_matrices) -> (q, r)``: Householder QR (LAPACK's
  ``geqrf`` then ``orgqr``, LAPACK's signs: not necessarily a positive
  diagonal of ``r``).
* ``eigh(a; lower) -> (v, w)``: eigenvalues ascending (``syevd``), reading
  one triangle; all NaN where LAPACK fails.
* ``svd(a; full_matrices, compute_uv) -> (s, u, vt)`` or ``(s,)``: singular
  values descending (``gesdd``).
* ``lu(a) -> (lu, pivots, permutation)``: LU with partial pivoting,
  ``P a = L U`` (LAPACK's ``getrf``; ``L``'s unit diagonal implied), the
  0-based int32 row swaps and the permutation they make; NaN where
  ``getrf`` reports an illegal argument (a zero pivot is not an error: the
  factors of a singular matrix, as JAX's). JAX's JVP (De Hoog, Anderssen
  and Lukas). ``lu_pivots_to_permutation(pivots; permutation_size)``: that
  permutation alone; on the CPU one StableHLO ``while`` over the swaps
  (JAX's is a ``fori_loop``), on CUDA jaxlib's
  ``cu_lu_pivots_to_permutation``.
* ``eig(a; compute_left_eigenvectors, compute_right_eigenvectors,
  enable_eigvec_derivs) -> (w, [vl], [vr])``: the eigenvalues and
  eigenvectors of a general matrix
  (``geev``), all complex; LAPACK's order and normalization (unit 2-norm,
  the largest component real). CPU only, as JAX's LAPACK path.

On complex operands the Hermitian routines take the place of the symmetric
ones (``heevd``, ``ungqr``), ``eigh``'s eigenvalues and ``svd``'s singular
values are real (the operand's part type), and transposes in the JVPs are
conjugate transposes, as JAX's.

Why primitives, and how they lower: these are JAX's own primitives, so a
jaxpr that uses them prints, parses and transforms as JAX's, and ``jit``
runs exactly the kernels JAX runs on CPU. The lowering emits a StableHLO
``custom_call`` to jaxlib's LAPACK FFI kernels (``lapack_{s,d}potrf_ffi``,
``trsm``, ``geqrf``, ``orgqr``, ``syevd``, ``gesdd``, ``getrf``, ``geev``; ``c``/``z`` and
``ungqr``/``heevd`` for complex operands), with the column-major
layouts and ``mhlo.backend_config`` attributes JAX gives them. jaxlib ships
the kernels (``jaxlib.cpu._lapack``) but only JAX registers them with XLA;
``typedax.lowering.jaxlib_api.prepare_lapack`` does it for typedax (this
layer cannot import the lowering layer, so ``typedax.lax_linalg`` installs
it in ``LAPACK_PREPARERS`` on import, and every lowering rule here calls it
before emitting a kernel call). The kernels are bound to SciPy's LAPACK, so
the eager ``impl``s call the same SciPy routines (``scipy.linalg.lapack``,
``scipy.linalg.blas``) matrix by matrix: eager and ``jit`` agree to the
last bit or a few ulp (LAPACK's blocking may pick different workspace
paths). The alternative, a composite algorithm traced from ``lax`` ops
(Jacobi sweeps for ``eigh``/``svd``), would be slower and less accurate than
LAPACK and differ from JAX's CPU results by more than rounding.

On CUDA (``LoweringContext.platform``) they lower as JAX's GPU rules do:
jaxlib's cuSOLVER FFI kernels (``cusolver_potrf_ffi``, ``geqrf``,
``orgqr``, ``syevd``, ``getrf``, ``gesvdj`` up to 1024 x 1024 and ``gesvd`` above),
with JAX's attributes, and ``triangular_solve`` as XLA's own
``stablehlo.triangular_solve``; ``jaxlib_api.prepare_cusolver`` registers
the kernels with the plugin. There eager evaluation runs the same kernels
(``Rules.eval_on_device``): cuSOLVER's signs of eigen- and singular
vectors are not LAPACK's, and JAX's eager results are cuSOLVER's.

JVPs are the standard formulas (as JAX's ``jax/_src/lax/linalg.py``): of
``cholesky`` (Murray 2016), ``triangular_solve`` in ``a`` and ``b``, ``qr``
(reduced, ``m >= n``), ``eigh`` (eigenvectors through ``1 / (w_j - w_i)``),
``svd`` (``full_matrices`` with ``compute_uv`` refused for non-square matrices, as JAX's) and
``eig`` (the eigenvalues' ``u_j^H da v_j / u_j^H v_j``; the eigenvectors'
with ``enable_eigvec_derivs`` only, as JAX's).
Batching moves the batch axis to the front (broadcasting an unbatched
operand) and binds again; ``triangular_solve`` with only ``b`` batched
folds the batch into ``b``'s right-hand sides instead (JAX's rule).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

from ..core.array import Array
from ..core.avals import ShapedArray
from ..core.dtypes import COMPLEX, COMPLEX_OF, complex64, complex128, float32, float64, int32, real_dtype
from ..core.errors import NonLinearError, PrimitiveTypeError, ShapeError
from ..core.ir import Eqn, NDArray, Params, Primitive
from ..core.rules import BatchDim, Family, Primal, Rules, Tangent, UndefPrimal, Zero
from ..core.trace import Value, aval_of, bind, bind1
from ..hlo import HloValue, LoweringContext, compare, full, reduce, tensor_type
from ._params import get_bool, get_int, params_of
from .complex_numbers import complex_p, conj, imag, real
from .dot import dot_general
from .elementwise import abs_p, add, convert, div, eq, mul, neg, sub
from .gather_scatter import GatherParams, gather_
from .reductions import argmax
from .shaping import broadcasted_iota
from .slicing import pad_, slice_
from .structural import (
    broadcast_to,
    instantiate_zeros,
    move_batch_axis,
    reduce_sum,
    reshape,
    reshape_p,
    transpose,
    types_str,
    zero_like,
)

#: Functions that make jaxlib's kernels callable on a platform (``cpu``: LAPACK,
#: ``cuda``: cuSOLVER; ``typedax.lax_linalg`` installs
#: ``jaxlib_api.prepare_linalg``); each lowering rule calls them.
LAPACK_PREPARERS: list[Callable[[str], None]] = []


def _prepare_lapack(name: str, ctx: LoweringContext) -> bool:
    """Prepare the kernels for ``ctx``'s platform; whether it is the GPU."""
    if not LAPACK_PREPARERS:
        raise PrimitiveTypeError(
            f"{name}: lowering needs jaxlib's LAPACK kernels; import typedax.lax_linalg "
            "(import typedax does) to register them"
        )
    for f in LAPACK_PREPARERS:
        f(ctx.platform)
    return ctx.platform == "cuda"


#: The platform computations run on (``typedax.lax_linalg`` installs the
#: runtime's ``platform``; this layer cannot import it).
PLATFORM: list[Callable[[], str]] = [lambda: "cpu"]


def _on_gpu(values: Sequence[NDArray], avals: Sequence[ShapedArray], params: Params) -> tuple[int, ...] | None:
    """The ``eval_on_device`` rule: on the GPU, eager evaluation runs the
    kernels ``jit`` runs (cuSOLVER's signs of eigen- and singular vectors and
    last bits are not LAPACK's), as JAX's eager evaluation does; on the CPU,
    SciPy's LAPACK (the routines jaxlib's kernels are bound to) without a
    compilation per shape."""
    return () if PLATFORM[0]() == "cuda" else None


# -- shared checks, helpers ----------------------------------------------------------
_INEXACT = (float32, float64, complex64, complex128)


def check_matrix(name: str, a: ShapedArray, *, square: bool) -> None:
    if a.dtype not in _INEXACT:
        raise PrimitiveTypeError(
            f"{name}: the operand must be float32 or float64 (or complex64, complex128), got {a.str_short()}"
        )
    if a.ndim < 2:
        raise PrimitiveTypeError(f"{name}: the operand must have rank >= 2, got {a.str_short()}")
    if square and a.shape[-1] != a.shape[-2]:
        raise ShapeError(f"{name}: the operand must be a (batch of) square matrices, got {a.str_short()}")


def _one(name: str, avals: Sequence[ShapedArray]) -> ShapedArray:
    if len(avals) != 1:
        raise PrimitiveTypeError(f"{name} takes 1 operand, got {len(avals)}: ({types_str(avals)})")
    return avals[0]


def _each_matrix(x: NDArray) -> list[tuple[int, ...]]:
    return list(np.ndindex(*x.shape[:-2]))


def _T(x: Value) -> Value:
    nd = aval_of(x).ndim
    return transpose(x, tuple(range(nd - 2)) + (nd - 1, nd - 2))


def _is_complex(x: Value) -> bool:
    return aval_of(x).dtype in COMPLEX


def _H(x: Value) -> Value:
    """The conjugate transpose of the last two axes (the transpose of a real ``x``)."""
    return _T(conj(x)) if _is_complex(x) else _T(x)


def _as(x: Value, like: Value) -> Value:
    """``x`` (real) in ``like``'s dtype (a complex one), or ``x`` itself."""
    d = aval_of(like).dtype
    return x if aval_of(x).dtype == d else convert(x, d)


def _matmul(a: Value, b: Value) -> Value:
    nd = aval_of(a).ndim
    batch = tuple(range(nd - 2))
    return dot_general(a, b, (((nd - 1,), (nd - 2,)), (batch, batch)))


def _const_like(c: NDArray, like: Value) -> Value:
    """A constant matrix ``c`` (shape ``like``'s last two) broadcast to ``like``."""
    a = aval_of(like)
    return broadcast_to(np.asarray(c, a.dtype), a.shape, tuple(range(a.ndim - 2)))


def _tri_mask(x: Value, lower: bool, k: int = 0) -> Value:
    """``x`` with the other triangle zeroed (``tril(x, k)`` or ``triu(x, k)``)."""
    m, n = aval_of(x).shape[-2:]
    ones = np.ones((m, n))
    return mul(x, _const_like(np.tril(ones, k) if lower else np.triu(ones, k), x))


def _diag_of(x: Value) -> Value:
    """The diagonal of a (batch of) square matrices."""
    n = aval_of(x).shape[-1]
    return reduce_sum(mul(x, _const_like(np.eye(n), x)), (aval_of(x).ndim - 1,))


def _rows(v: Value) -> Value:
    """``v[..., None, :]`` broadcast to ``[..., k, k]``."""
    a = aval_of(v)
    return broadcast_to(v, a.shape[:-1] + (a.shape[-1], a.shape[-1]), (a.ndim - 1,))


def _cols(v: Value) -> Value:
    """``v[..., :, None]`` broadcast to ``[..., k, k]``."""
    a = aval_of(v)
    return broadcast_to(v, a.shape + (a.shape[-1],), (a.ndim,))


def _front_batch(prim: Primitive) -> Callable[
    [int, Sequence[Value], Sequence[BatchDim], Params], tuple[list[Value], list[BatchDim]]
]:
    """Batching: every operand's batch axis to the front (unbatched ones
    broadcast), then the primitive again (its leading axes are a batch)."""

    def rule(
        size: int, vals: Sequence[Value], dims: Sequence[BatchDim], params: Params
    ) -> tuple[list[Value], list[BatchDim]]:
        moved = [move_batch_axis(size, b, 0, v) for v, b in zip(vals, dims)]
        outs = bind(prim, moved, params)
        return list(outs), [0] * len(outs)

    return rule


# -- lowering helpers: custom calls to jaxlib's LAPACK kernels ------------------------
def _shape(v: HloValue) -> tuple[int, ...]:
    return tuple(ir.RankedTensorType(v.type).shape)


def _layout(rank: int, matrix: bool) -> list[int]:
    """Minor-to-major: column-major for the last two axes of a matrix."""
    if matrix and rank >= 2:
        return [rank - 2, rank - 1] + list(range(rank - 3, -1, -1))
    return list(range(rank - 1, -1, -1))


def _layouts(ranks: Sequence[int], matrix_rank: int, column_major: bool = True) -> ir.ArrayAttr:
    return ir.ArrayAttr.get([
        ir.DenseIntElementsAttr.get(  # type: ignore[call-overload]  # an ndarray is a buffer
            np.asarray(_layout(r, column_major and r == matrix_rank), np.int64), type=ir.IndexType.get())
        for r in ranks
    ])


def _char(c: str) -> ir.Attribute:
    return ir.IntegerAttr.get(ir.IntegerType.get_unsigned(8), ord(c))


_LAPACK_PREFIX: dict[np.dtype[np.generic], str] = {float32: "s", float64: "d", complex64: "c", complex128: "z"}


def _lapack(
    routine: str,
    dtype: np.dtype[np.generic],
    operands: Sequence[HloValue],
    results: Sequence[ShapedArray],
    config: dict[str, str],
    alias: tuple[int, int] | None,
) -> list[HloValue]:
    """One call of ``lapack_<s|d|c|z><routine>_ffi`` (JAX's attributes and
    layouts); ``alias`` = (operand, result) that share a buffer."""
    target = f"lapack_{_LAPACK_PREFIX[np.dtype(dtype)]}{routine}_ffi"
    return _ffi_call(target, operands, results, {k: _char(v) for k, v in config.items()}, alias)


def _cusolver(
    routine: str,
    operands: Sequence[HloValue],
    results: Sequence[ShapedArray],
    config: dict[str, bool | int],
    alias: tuple[int, int],
    column_major: bool = True,
) -> list[HloValue]:
    """One call of jaxlib's ``cusolver_<routine>_ffi`` (the dtype is read
    from the operand), with JAX's attributes (``bool``: ``i1``, ``int``:
    ``ui8``) and layouts."""
    attrs: dict[str, ir.Attribute] = {
        k: ir.BoolAttr.get(v) if isinstance(v, bool) else ir.IntegerAttr.get(ir.IntegerType.get_unsigned(8), v)
        for k, v in config.items()
    }
    return _ffi_call(f"cusolver_{routine}_ffi", operands, results, attrs, alias, column_major)


def _ffi_call(
    target: str,
    operands: Sequence[HloValue],
    results: Sequence[ShapedArray],
    config: dict[str, ir.Attribute],
    alias: tuple[int, int] | None,
    column_major: bool = True,
) -> list[HloValue]:
    """A ``custom_call`` of an XLA FFI kernel as JAX's ``_linalg_ffi_lowering``
    emits it: ``mhlo.backend_config`` a dictionary of attributes (with
    ``api_version = 1``, as JAX's ``mlir.custom_call`` for a dictionary),
    matrices column-major (or all row-major), ``alias`` = (operand, result)
    that share a buffer (None: none)."""
    in_ranks = [len(_shape(v)) for v in operands]
    matrix_rank = max(in_ranks)
    types = [tensor_type(r) for r in results]
    attributes = {
        "call_target_name": ir.StringAttr.get(target),
        "has_side_effect": ir.BoolAttr.get(False),
        "backend_config": ir.StringAttr.get(""),
        "api_version": ir.IntegerAttr.get(ir.IntegerType.get_signless(32), 1),
        "called_computations": ir.ArrayAttr.get([]),
        "operand_layouts": _layouts(in_ranks, matrix_rank, column_major),
        "result_layouts": _layouts([r.ndim for r in results], matrix_rank, column_major),
        "output_operand_aliases": ir.ArrayAttr.get([] if alias is None else [
            hlo.OutputOperandAlias.get(
                output_tuple_indices=[alias[1]] if len(results) > 1 else [],
                operand_index=alias[0],
                operand_tuple_indices=[],
            )
        ]),
    }
    op = hlo.CustomCallOp.build_generic(results=types, operands=list(operands), attributes=attributes)
    op.operation.attributes["mhlo.backend_config"] = ir.DictAttr.get(config)
    return list(op.results)


def _nan_unless_ok(info: HloValue, x: HloValue, aval: ShapedArray, direction: str = "EQ") -> HloValue:
    """``x`` where LAPACK's ``info`` is 0 (``direction`` GE: not negative),
    NaN elsewhere (by batch element)."""
    batch = _shape(info)
    zeros = full(0, ShapedArray(batch, int32))
    ok = hlo.compare(info, zeros, hlo.ComparisonDirectionAttr.get(direction),
                     compare_type=hlo.ComparisonTypeAttr.get("SIGNED"))
    pred = ir.RankedTensorType.get(list(aval.shape), ir.IntegerType.get_signless(1))
    okb = hlo.broadcast_in_dim(pred, ok, list(range(len(batch))))
    return hlo.select(okb, x, full(float("nan"), aval))


def _tri_lower(x: HloValue, aval: ShapedArray, lower: bool) -> HloValue:
    """``tril(x)`` (``lower``) or ``triu(x)`` of a (batch of) matrices."""
    nd = aval.ndim
    it = ir.RankedTensorType.get(list(aval.shape), ir.IntegerType.get_signless(32))
    row, col = hlo.iota(it, nd - 2), hlo.iota(it, nd - 1)
    keep = hlo.compare(row, col, hlo.ComparisonDirectionAttr.get("GE" if lower else "LE"),
                       compare_type=hlo.ComparisonTypeAttr.get("SIGNED"))
    return hlo.select(keep, x, full(0.0, aval))


# -- cholesky(a) -----------------------------------------------------------------------
def _cholesky_impl(args: Sequence[NDArray], params: Params) -> list[NDArray]:
    from scipy.linalg import lapack  # type: ignore[import-untyped]  # scipy ships no type stubs

    (a,) = args
    out = np.zeros(a.shape, a.dtype)
    potrf = lapack.get_lapack_funcs("potrf", dtype=a.dtype)
    for i in _each_matrix(a):
        c, info = potrf(a[i], lower=1, clean=1)
        out[i] = c if info == 0 else np.tril(np.full(c.shape, np.nan, a.dtype))
    return [out]


def _cholesky_abstract(avals: Sequence[ShapedArray], params: Params) -> list[ShapedArray]:
    a = _one("cholesky", avals)
    check_matrix("cholesky", a, square=True)
    return [ShapedArray(a.shape, a.dtype)]


def cholesky_(a: Value) -> Value:
    return bind1(cholesky_p, (a,), params_of())


def _cholesky_jvp(
    primals: Sequence[Value], tangents: Sequence[Tangent], params: Params
) -> tuple[list[Value], list[Tangent]]:
    (a,), (da,) = primals, tangents
    low = cholesky_(a)
    if isinstance(da, Zero):
        return [low], [zero_like(low)]
    # L_dot = L phi(L^-1 dA L^-T), phi: the lower triangle with the diagonal halved
    tmp = triangular_solve_(low, da, left_side=False, lower=True, transpose_a=True, conjugate_a=True)
    inner = triangular_solve_(low, tmp, left_side=True, lower=True, transpose_a=False)
    n = aval_of(a).shape[-1]
    phi = mul(inner, _const_like(np.tril(np.ones((n, n))) - 0.5 * np.eye(n), inner))
    return [low], [_matmul(low, phi)]


def _cholesky_lower(ctx: LoweringContext, eqn: Eqn, args: Sequence[HloValue]) -> list[HloValue]:
    gpu = _prepare_lapack("cholesky", ctx)
    aval = eqn.inputs[0].aval
    info_aval = ShapedArray(aval.shape[:-2], int32)
    if gpu:
        out, info = _cusolver("potrf", args, [aval, info_aval], {"lower": True}, (0, 0))
    else:
        out, info = _lapack("potrf", aval.dtype, args, [aval, info_aval], {"uplo": "L"}, (0, 0))
    return [_tri_lower(_nan_unless_ok(info, out, aval), aval, True)]


cholesky_p = Primitive(
    "cholesky", _cholesky_impl, _cholesky_abstract,
    rules_for=lambda p: Rules(jvp=_cholesky_jvp, batch=_front_batch(p), lower=_cholesky_lower, eval_on_device=_on_gpu),
)


# -- triangular_solve(a, b; left_side, lower, transpose_a, conjugate_a, unit_diagonal) --
_TS_FLAGS = ("left_side", "lower", "transpose_a", "conjugate_a", "unit_diagonal")


def _ts_params(params: Params) -> tuple[bool, bool, bool, bool, bool]:
    left, lower, trans, conj, unit = (get_bool("triangular_solve", params, k) for k in _TS_FLAGS)
    return left, lower, trans, conj, unit


def _ts_params_of(left_side: bool, lower: bool, transpose_a: bool, conjugate_a: bool, unit_diagonal: bool) -> Params:
    return params_of(*zip(_TS_FLAGS, (left_side, lower, transpose_a, conjugate_a, unit_diagonal)))


def triangular_solve_(
    a: Value, b: Value, *, left_side: bool, lower: bool, transpose_a: bool,
    conjugate_a: bool = False, unit_diagonal: bool = False,
) -> Array:
    return bind1(triangular_solve_p, (a, b), _ts_params_of(left_side, lower, transpose_a, conjugate_a, unit_diagonal))


def _ts_impl(args: Sequence[NDArray], params: Params) -> list[NDArray]:
    from scipy.linalg import blas

    a, b = args
    left, lower, trans, conj_a, unit = _ts_params(params)
    complex_a = a.dtype in COMPLEX
    if conj_a and complex_a and not trans:
        a = np.conj(a)
    out = np.zeros(b.shape, b.dtype)
    trsm = blas.get_blas_funcs("trsm", dtype=a.dtype)
    how = (2 if conj_a and complex_a else 1) if trans else 0
    for i in _each_matrix(b):
        out[i] = trsm(1.0, a[i], b[i], side=0 if left else 1, lower=int(lower), trans_a=how,
                      diag=int(unit))
    return [out]


def _ts_abstract(avals: Sequence[ShapedArray], params: Params) -> list[ShapedArray]:
    if len(avals) != 2:
        raise PrimitiveTypeError(f"triangular_solve takes 2 operands, got {len(avals)}: ({types_str(avals)})")
    a, b = avals
    left = _ts_params(params)[0]
    check_matrix("triangular_solve", a, square=True)
    check_matrix("triangular_solve", b, square=False)
    if a.dtype != b.dtype:
        raise PrimitiveTypeError(f"triangular_solve: operands must have one dtype, got ({types_str(avals)})")
    if a.ndim != b.ndim or a.shape[:-2] != b.shape[:-2]:
        raise PrimitiveTypeError(
            f"triangular_solve: a and b must have the same batch dimensions, got ({types_str(avals)})"
        )
    m = a.shape[-1]
    k = b.shape[-2] if left else b.shape[-1]
    if k != m:
        side = "rows" if left else "columns"
        raise PrimitiveTypeError(
            f"triangular_solve: b's {side} ({k}) must match a's size ({m}) with left_side={left}, "
            f"got ({types_str(avals)})"
        )
    return [ShapedArray(b.shape, b.dtype)]


def _ts_jvp(
    primals: Sequence[Value], tangents: Sequence[Tangent], params: Params
) -> tuple[list[Value], list[Tangent]]:
    (a, b), (da, db) = primals, tangents
    left, lower, trans, conj_a, unit = _ts_params(params)
    x = bind1(triangular_solve_p, (a, b), params)
    out: Tangent = zero_like(x)
    if not isinstance(db, Zero):
        out = bind1(triangular_solve_p, (a, db), params)
    if not isinstance(da, Zero):
        g = neg(_tri_mask(da, lower, (-1 if lower else 1) if unit else 0))
        g = _T(g) if trans else g
        g = conj(g) if conj_a and _is_complex(g) else g
        # left: op(a) x = b  ->  dx = -op(a)^-1 op(da) x ; right: dx = -x op(da) op(a)^-1
        prod = _matmul(g, x) if left else _matmul(x, g)
        dx = bind1(triangular_solve_p, (a, prod), params)
        out = dx if isinstance(out, Zero) else add(out, dx)
    return [x], [out]


def _ts_t(cts: Sequence[Value], ps: Sequence[Primal], params: Params) -> list[Value | None]:
    a, b = ps
    if isinstance(a, UndefPrimal):
        raise NonLinearError("triangular_solve", f"the matrix a is a linear value ({a.aval.str_short()})")
    if not isinstance(b, UndefPrimal):
        return [None, None]
    left, lower, trans, conj, unit = _ts_params(params)
    ct = instantiate_zeros(cts[0])
    return [None, bind1(triangular_solve_p, (a, ct), _ts_params_of(left, lower, not trans, conj, unit))]


def _ts_lower(ctx: LoweringContext, eqn: Eqn, args: Sequence[HloValue]) -> list[HloValue]:
    gpu = _prepare_lapack("triangular_solve", ctx)
    left, lower, trans, conj_a, unit = _ts_params(eqn.params)
    a_aval, b_aval = (v.aval for v in eqn.inputs)
    conj_a = conj_a and a_aval.dtype in COMPLEX
    a = args[0]
    if conj_a and not trans:  # conj(a) first, as JAX's
        a = hlo.complex(hlo.real(a), hlo.negate(hlo.imag(a)))
        conj_a = False
    if gpu:  # XLA's own op, as JAX lowers it off the CPU
        how = ("ADJOINT" if conj_a else "TRANSPOSE") if trans else "NO_TRANSPOSE"
        return [hlo.triangular_solve(a, args[1], left, lower, unit, hlo.TransposeAttr.get(how))]
    config = {"side": "L" if left else "R", "uplo": "L" if lower else "U",
              "trans_x": ("C" if conj_a else "T") if trans else "N", "diag": "U" if unit else "N"}
    return _lapack("trsm", a_aval.dtype, [a, args[1]], [b_aval], config, (1, 0))


def _ts_batch(
    size: int, vals: Sequence[Value], dims: Sequence[BatchDim], params: Params
) -> tuple[list[Value], list[BatchDim]]:
    """JAX's rule: with only ``b`` batched, the batch joins ``b``'s
    right-hand sides (its columns, or rows for ``left_side=False``) and one
    solve serves them all (no copies of ``a``, and the kernel call JAX's
    makes); otherwise both batch axes go to the front."""
    (a, b), (da, db) = vals, dims
    if da is not None or db is None:
        return _front_batch(triangular_solve_p)(size, vals, dims, params)
    left = _ts_params(params)[0]
    nd = aval_of(b).ndim
    y = move_batch_axis(size, db, nd - 1 if left else nd - 2, b)
    shape = aval_of(y).shape
    flat = shape[:-2] + (shape[-2] * shape[-1],) if left else shape[:-3] + (shape[-3] * shape[-2], shape[-1])
    out = reshape(bind1(triangular_solve_p, (a, reshape(y, flat)), params), shape)
    return [out], [nd - 1 if left else nd - 2]


triangular_solve_p = Primitive(
    "triangular_solve", _ts_impl, _ts_abstract,
    rules_for=lambda p: Rules(jvp=_ts_jvp, transpose=_ts_t, batch=_ts_batch, lower=_ts_lower, eval_on_device=_on_gpu),
)


# -- qr(a; full_matrices) -> (q, r) -----------------------------------------------------
def _qr_shapes(a: ShapedArray, full_matrices: bool) -> tuple[ShapedArray, ShapedArray]:
    m, n = a.shape[-2:]
    k = m if full_matrices else min(m, n)
    batch = a.shape[:-2]
    return ShapedArray(batch + (m, k), a.dtype), ShapedArray(batch + (k, n), a.dtype)


def _qr_impl(args: Sequence[NDArray], params: Params) -> list[NDArray]:
    from scipy.linalg import lapack

    (a,) = args
    full_matrices = get_bool("qr", params, "full_matrices")
    q_aval, r_aval = _qr_shapes(aval_of(a), full_matrices)
    q_out, r_out = np.zeros(q_aval.shape, a.dtype), np.zeros(r_aval.shape, a.dtype)
    geqrf, orgqr = lapack.get_lapack_funcs(("geqrf", "ungqr" if a.dtype in COMPLEX else "orgqr"), dtype=a.dtype)
    m, n = a.shape[-2:]
    k = q_aval.shape[-1]
    for i in _each_matrix(a):
        if m == 0 or n == 0:
            q_out[i] = np.eye(m, k, dtype=a.dtype)
            continue
        qr, tau, _, _ = geqrf(a[i])
        r_out[i] = np.triu(qr[:k, :])
        if k > n:
            h = np.zeros((m, k), a.dtype)
            h[:, :n] = qr
        else:
            h = qr[:, :k]
        q_out[i] = orgqr(h, tau)[0]
    return [q_out, r_out]


def _qr_abstract(avals: Sequence[ShapedArray], params: Params) -> list[ShapedArray]:
    a = _one("qr", avals)
    check_matrix("qr", a, square=False)
    return list(_qr_shapes(a, get_bool("qr", params, "full_matrices")))


def _qr_jvp(
    primals: Sequence[Value], tangents: Sequence[Tangent], params: Params
) -> tuple[list[Value], list[Tangent]]:
    (a,), (da,) = primals, tangents
    full_matrices = get_bool("qr", params, "full_matrices")
    m, n = aval_of(a).shape[-2:]
    if m < n or (full_matrices and m != n):
        raise NotImplementedError("Unimplemented case of QR decomposition derivative")
    q, r = bind(qr_p, (a,), params_of(("full_matrices", False)))
    if isinstance(da, Zero):
        return [q, r], [zero_like(q), zero_like(r)]
    dx_rinv = triangular_solve_(r, da, left_side=False, lower=False, transpose_a=False)
    qt_dx_rinv = _matmul(_H(q), dx_rinv)
    low = _tri_mask(qt_dx_rinv, True, -1)
    do = sub(low, _H(low))  # skew-Hermitian
    if _is_complex(q):  # the imaginary part of the diagonal, as JAX's correction
        imag_diag = sub(qt_dx_rinv, _as(real(qt_dx_rinv), qt_dx_rinv))
        do = add(do, mul(_const_like(np.eye(n), do), imag_diag))
    dq = add(_matmul(q, sub(do, qt_dx_rinv)), dx_rinv)
    dr = _matmul(sub(qt_dx_rinv, do), r)
    return [q, r], [dq, dr]


def _qr_lower(ctx: LoweringContext, eqn: Eqn, args: Sequence[HloValue]) -> list[HloValue]:
    gpu = _prepare_lapack("qr", ctx)
    a_aval = eqn.inputs[0].aval
    q_aval, r_aval = (v.aval for v in eqn.out_binders)
    batch, (m, n), k = a_aval.shape[:-2], a_aval.shape[-2:], q_aval.shape[-1]
    nd = a_aval.ndim
    if m == 0 or n == 0:
        eye = hlo.constant(ir.DenseElementsAttr.get(  # type: ignore[call-overload]  # an ndarray is a buffer
            np.ascontiguousarray(np.broadcast_to(np.eye(m, k, dtype=a_aval.dtype), q_aval.shape)),
            type=tensor_type(q_aval)))
        return [eye, full(0.0, r_aval)]
    tau_aval = ShapedArray(batch + (min(m, n),), a_aval.dtype)
    if gpu:
        qr, tau = _cusolver("geqrf", args, [a_aval, tau_aval], {}, (0, 0))
    else:
        qr, tau = _lapack("geqrf", a_aval.dtype, args, [a_aval, tau_aval], {}, (0, 0))
    r = hlo.slice(qr, [0] * nd, list(batch) + [k, n], [1] * nd) if k != m else qr
    r = _tri_lower(r, r_aval, False)
    h: HloValue
    if k > n:
        h = hlo.pad(qr, full(0.0, ShapedArray((), a_aval.dtype)), [0] * nd, [0] * (nd - 1) + [k - n], [0] * nd)
    elif k < n:
        h = hlo.slice(qr, [0] * nd, list(batch) + [m, k], [1] * nd)
    else:
        h = qr
    if gpu:
        (q,) = _cusolver("orgqr", [h, tau], [q_aval], {}, (0, 0))
    else:
        (q,) = _lapack("ungqr" if a_aval.dtype in COMPLEX else "orgqr", a_aval.dtype, [h, tau], [q_aval], {}, (0, 0))
    return [q, r]


qr_p = Primitive(
    "qr", _qr_impl, _qr_abstract,
    rules_for=lambda p: Rules(jvp=_qr_jvp, batch=_front_batch(p), lower=_qr_lower, eval_on_device=_on_gpu),
)


# -- eigh(a; lower) -> (v, w) -------------------------------------------------------------
def _eigh_impl(args: Sequence[NDArray], params: Params) -> list[NDArray]:
    from scipy.linalg import lapack

    (a,) = args
    lower = get_bool("eigh", params, "lower")
    v_out, w_out = np.zeros(a.shape, a.dtype), np.zeros(a.shape[:-1], real_dtype(a.dtype))
    syevd = lapack.get_lapack_funcs("heevd" if a.dtype in COMPLEX else "syevd", dtype=a.dtype)
    for i in _each_matrix(a):
        if a.shape[-1] == 0:
            continue
        w, v, info = syevd(a[i], compute_v=1, lower=int(lower))
        v_out[i], w_out[i] = (v, w) if info == 0 else (np.nan, np.nan)
    return [v_out, w_out]


def _eigh_abstract(avals: Sequence[ShapedArray], params: Params) -> list[ShapedArray]:
    a = _one("eigh", avals)
    check_matrix("eigh", a, square=True)
    get_bool("eigh", params, "lower")
    return [ShapedArray(a.shape, a.dtype), ShapedArray(a.shape[:-1], real_dtype(a.dtype))]


def _eigh_jvp(
    primals: Sequence[Value], tangents: Sequence[Tangent], params: Params
) -> tuple[list[Value], list[Tangent]]:
    (a,), (da,) = primals, tangents
    v, w = bind(eigh_p, (a,), params)
    if isinstance(da, Zero):
        return [v, w], [zero_like(v), zero_like(w)]
    n = aval_of(a).shape[-1]
    wc = _as(w, v)  # (complex for a complex operand, as JAX's)
    eye = _const_like(np.eye(n), v)
    # F[i, j] = 1 / (w[j] - w[i]) off the diagonal, 0 on it
    gap = add(eye, sub(_rows(wc), _cols(wc)))
    f = sub(div(_const_like(np.ones((n, n)), v), gap), eye)
    vt_da_v = _matmul(_matmul(_H(v), da), v)
    dv = _matmul(v, mul(f, vt_da_v))
    dw = _diag_of(vt_da_v)
    return [v, w], [dv, real(dw) if _is_complex(dw) else dw]


def _eigh_lower(ctx: LoweringContext, eqn: Eqn, args: Sequence[HloValue]) -> list[HloValue]:
    gpu = _prepare_lapack("eigh", ctx)
    a_aval = eqn.inputs[0].aval
    v_aval, w_aval = (v.aval for v in eqn.out_binders)
    if a_aval.shape[-1] == 0:
        return [full(0.0, v_aval), full(0.0, w_aval)]
    lower = get_bool("eigh", eqn.params, "lower")
    info_aval = ShapedArray(a_aval.shape[:-2], int32)
    if gpu:  # algorithm 0: cuSOLVER's choice, as JAX's default
        v, w, info = _cusolver("syevd", args, [v_aval, w_aval, info_aval], {"lower": lower, "algorithm": 0}, (0, 0))
    else:
        v, w, info = _lapack("heevd" if a_aval.dtype in COMPLEX else "syevd", a_aval.dtype, args,
                             [v_aval, w_aval, info_aval],
                             {"mode": "V", "uplo": "L" if lower else "U"}, (0, 0))
    return [_nan_unless_ok(info, v, v_aval), _nan_unless_ok(info, w, w_aval)]


eigh_p = Primitive(
    "eigh", _eigh_impl, _eigh_abstract,
    rules_for=lambda p: Rules(jvp=_eigh_jvp, batch=_front_batch(p), lower=_eigh_lower, eval_on_device=_on_gpu),
)


# -- svd(a; full_matrices, compute_uv) -> (s, u, vt) | (s,) --------------------------------
def _svd_params(params: Params) -> tuple[bool, bool]:
    return get_bool("svd", params, "full_matrices"), get_bool("svd", params, "compute_uv")


def _svd_shapes(a: ShapedArray, full_matrices: bool) -> tuple[ShapedArray, ShapedArray, ShapedArray]:
    batch, (m, n) = a.shape[:-2], a.shape[-2:]
    k = min(m, n)
    um, vn = (m, n) if full_matrices else (k, k)
    return (ShapedArray(batch + (k,), real_dtype(a.dtype)), ShapedArray(batch + (m, um), a.dtype),
            ShapedArray(batch + (vn, n), a.dtype))


def _svd_impl(args: Sequence[NDArray], params: Params) -> list[NDArray]:
    from scipy.linalg import lapack

    (a,) = args
    full_matrices, compute_uv = _svd_params(params)
    s_aval, u_aval, vt_aval = _svd_shapes(aval_of(a), full_matrices)
    s_out = np.zeros(s_aval.shape, s_aval.dtype)
    u_out, vt_out = np.zeros(u_aval.shape, a.dtype), np.zeros(vt_aval.shape, a.dtype)
    gesdd = lapack.get_lapack_funcs("gesdd", dtype=a.dtype)
    m, n = a.shape[-2:]
    for i in _each_matrix(a):
        if m == 0 or n == 0:
            u_out[i] = np.eye(*u_aval.shape[-2:], dtype=a.dtype)
            vt_out[i] = np.eye(*vt_aval.shape[-2:], dtype=a.dtype)
            continue
        u, s, vt, info = gesdd(a[i], compute_uv=int(compute_uv), full_matrices=int(full_matrices))
        if info != 0:
            s_out[i], u_out[i], vt_out[i] = np.nan, np.nan, np.nan
        else:
            s_out[i] = s
            if compute_uv:
                u_out[i], vt_out[i] = u, vt
    return [s_out, u_out, vt_out] if compute_uv else [s_out]


def _svd_abstract(avals: Sequence[ShapedArray], params: Params) -> list[ShapedArray]:
    a = _one("svd", avals)
    check_matrix("svd", a, square=False)
    full_matrices, compute_uv = _svd_params(params)
    s, u, vt = _svd_shapes(a, full_matrices)
    return [s, u, vt] if compute_uv else [s]


def _svd_jvp(
    primals: Sequence[Value], tangents: Sequence[Tangent], params: Params
) -> tuple[list[Value], list[Tangent]]:
    (a,), (da,) = primals, tangents
    full_matrices, compute_uv = _svd_params(params)
    m, n = aval_of(a).shape[-2:]
    if compute_uv and full_matrices and m != n:  # (as JAX: a square matrix's full SVD is its thin one)
        raise NotImplementedError("Singular value decomposition JVP not implemented for full matrices")
    s, u, vt = bind(svd_p, (a,), params_of(("full_matrices", False), ("compute_uv", True)))
    if isinstance(da, Zero):
        outs: list[Value] = [s, u, vt] if compute_uv else [s]
        return outs, [zero_like(o) for o in outs]
    ut, v = _H(u), _H(vt)
    ds_mat = _matmul(_matmul(ut, da), v)
    ds = _diag_of(real(ds_mat) if _is_complex(ds_mat) else ds_mat)
    if not compute_uv:
        return [s], [ds]
    k = aval_of(s).shape[-1]
    srow, scol = _rows(s), _cols(s)  # s[..., None, :], s[..., :, None] (real)
    eye = _const_like(np.eye(k), srow)
    s_diffs = mul(add(srow, scol), sub(srow, scol))
    f = _as(sub(div(_const_like(np.ones((k, k)), srow), add(s_diffs, eye)), eye), ds_mat)
    dss = mul(_as(srow, ds_mat), ds_mat)
    sds = mul(_as(scol, ds_mat), ds_mat)
    s_zeros = convert(eq(s, full_like_scalar(0.0, s)), aval_of(s).dtype)
    s_inv = sub(div(full_like_scalar(1.0, s), add(s, s_zeros)), s_zeros)
    s_inv_mat = _as(mul(_rows(s_inv), eye), ds_mat)
    dudv_diag = mul(mul(sub(ds_mat, _H(ds_mat)), s_inv_mat), _const_like(np.full((k, k), 0.5), ds_mat))
    du = _matmul(u, add(mul(f, add(dss, _H(dss))), dudv_diag))
    dv = _matmul(v, mul(f, add(sds, _H(sds))))
    if m > n:
        dav = _matmul(da, v)
        du = add(du, div(sub(dav, _matmul(u, _matmul(ut, dav))), _as(_rows_m(s, m), du)))
    if n > m:
        dahu = _matmul(_H(da), u)
        dv = add(dv, div(sub(dahu, _matmul(v, _matmul(vt, dahu))), _as(_rows_m(s, n), dv)))
    return [s, u, vt], [ds, du, _H(dv)]


def full_like_scalar(value: float, like: Value) -> Value:
    a = aval_of(like)
    return broadcast_to(np.asarray(value, a.dtype), a.shape, tuple(range(a.ndim)))


def _rows_m(v: Value, rows: int) -> Value:
    """``v[..., None, :]`` broadcast to ``[..., rows, k]``."""
    a = aval_of(v)
    return broadcast_to(v, a.shape[:-1] + (rows, a.shape[-1]), (a.ndim - 1,))


def _svd_lower(ctx: LoweringContext, eqn: Eqn, args: Sequence[HloValue]) -> list[HloValue]:
    gpu = _prepare_lapack("svd", ctx)
    a_aval = eqn.inputs[0].aval
    full_matrices, compute_uv = _svd_params(eqn.params)
    s_aval, u_aval, vt_aval = _svd_shapes(a_aval, full_matrices)
    m, n = a_aval.shape[-2:]
    if m == 0 or n == 0:
        def eye(aval: ShapedArray) -> HloValue:
            c = np.ascontiguousarray(np.broadcast_to(np.eye(*aval.shape[-2:], dtype=aval.dtype), aval.shape))
            return hlo.constant(ir.DenseElementsAttr.get(c, type=tensor_type(aval)))  # type: ignore[call-overload]  # an ndarray is a buffer
        return [full(0.0, s_aval), eye(u_aval), eye(vt_aval)] if compute_uv else [full(0.0, s_aval)]
    info_aval = ShapedArray(a_aval.shape[:-2], int32)
    if gpu:
        s, u, vt, info = _svd_cusolver(args[0], a_aval, full_matrices, compute_uv)
    else:
        mode = ("A" if full_matrices else "S") if compute_uv else "N"
        _, s, u, vt, info = _lapack("gesdd", a_aval.dtype, args, [a_aval, s_aval, u_aval, vt_aval, info_aval],
                                    {"mode": mode}, (0, 0))
    outs = [_nan_unless_ok(info, s, s_aval)]
    if compute_uv:
        outs += [_nan_unless_ok(info, u, u_aval), _nan_unless_ok(info, vt, vt_aval)]
    return outs


def _svd_cusolver(
    a: HloValue, a_aval: ShapedArray, full_matrices: bool, compute_uv: bool,
) -> tuple[HloValue, HloValue, HloValue, HloValue]:
    """``(s, u, vt, info)`` from cuSOLVER, as JAX's ``_svd_gpu_sub_lowering``
    (its default algorithm): Jacobi (``gesvdj``) up to 1024 x 1024, which
    computes ``v`` (transposed here) and, up to 32 x 32 or with
    ``full_matrices``, full ``u`` and ``v`` (sliced here); ``gesvd`` above,
    on the transposed (row-major) matrix when it is wide. ``u``/``vt`` are
    placeholders without ``compute_uv``."""
    s_aval, u_aval, vt_aval = _svd_shapes(a_aval, full_matrices)
    batch, (m, n) = a_aval.shape[:-2], a_aval.shape[-2:]
    nb, k = len(batch), min(m, n)
    info_aval = ShapedArray(batch, int32)
    if not compute_uv:
        u_aval = vt_aval = ShapedArray((), a_aval.dtype)
    if m <= 1024 and n <= 1024:
        econ = not full_matrices and m > 32 and n > 32
        ju = ShapedArray(batch + (m, k if econ else m), a_aval.dtype)
        jv = ShapedArray(batch + (n, k if econ else n), a_aval.dtype)
        _, s, u, v, info = _cusolver("gesvdj", [a], [a_aval, s_aval, ju, jv, info_aval],
                                     {"full_matrices": not econ, "compute_uv": compute_uv}, (0, 0))
        vt = v
        if compute_uv:
            vt = hlo.transpose(v, list(range(nb)) + [nb + 1, nb])
            if a_aval.dtype in COMPLEX:  # vt is v's conjugate transpose (found on an H200: v's transpose alone was conj(vt))
                vt = hlo.complex(hlo.real(vt), hlo.negate(hlo.imag(vt)))
            if not full_matrices and not econ:
                nd = nb + 2
                u = hlo.slice(u, [0] * nd, list(batch) + [m, k], [1] * nd)
                vt = hlo.slice(vt, [0] * nd, list(batch) + [k, n], [1] * nd)
        return s, u, vt, info
    transposed = m < n
    outs = [a_aval, s_aval, vt_aval, u_aval, info_aval] if transposed else [a_aval, s_aval, u_aval, vt_aval, info_aval]
    _, s, u, vt, info = _cusolver("gesvd", [a], outs, {"full_matrices": full_matrices, "compute_uv": compute_uv,
                                                      "transposed": transposed}, (0, 0), column_major=not transposed)
    return (s, vt, u, info) if transposed else (s, u, vt, info)


svd_p = Primitive(
    "svd", _svd_impl, _svd_abstract,
    rules_for=lambda p: Rules(jvp=_svd_jvp, batch=_front_batch(p), lower=_svd_lower, eval_on_device=_on_gpu),
)


# -- eig(a; compute_left_eigenvectors, compute_right_eigenvectors) -> (w, [vl], [vr]) ----
_EIG_FLAGS = ("compute_left_eigenvectors", "compute_right_eigenvectors", "enable_eigvec_derivs")


def _eig_params(params: Params) -> tuple[bool, bool]:
    return get_bool("eig", params, _EIG_FLAGS[0]), get_bool("eig", params, _EIG_FLAGS[1])


def eig_params(left: bool, right: bool, derivs: bool = False) -> Params:
    return params_of((_EIG_FLAGS[0], left), (_EIG_FLAGS[1], right), (_EIG_FLAGS[2], derivs))


def _complex_of(d: np.dtype[np.generic]) -> np.dtype[np.generic]:
    return d if d in COMPLEX else COMPLEX_OF[d]


def _unpack_real_vectors(wi: NDArray, v: NDArray, dtype: np.dtype[np.generic]) -> NDArray:
    """LAPACK's real ``geev`` packs a conjugate pair's vectors as (re, im) in
    two adjacent columns; the complex vectors, as jaxlib's kernel gives them."""
    out = v.astype(dtype)
    re = v.astype(np.float64)
    j = 0
    n = wi.shape[0]
    while j < n:
        if wi[j] != 0 and j + 1 < n:
            out[:, j] = re[:, j] + 1j * re[:, j + 1]
            out[:, j + 1] = re[:, j] - 1j * re[:, j + 1]
            j += 2
        else:
            j += 1
    return out


def _eig_impl(args: Sequence[NDArray], params: Params) -> list[NDArray]:
    from scipy.linalg import lapack

    (a,) = args
    left, right = _eig_params(params)
    cd = _complex_of(a.dtype)
    w_out = np.zeros(a.shape[:-1], cd)
    vl_out, vr_out = np.zeros(a.shape, cd), np.zeros(a.shape, cd)
    geev = lapack.get_lapack_funcs("geev", dtype=a.dtype)
    for i in _each_matrix(a):
        if a.shape[-1] == 0:
            continue
        if a.dtype in COMPLEX:
            w, vl, vr, info = geev(a[i], compute_vl=int(left), compute_vr=int(right))
        else:
            wr, wi, vl, vr, info = geev(a[i], compute_vl=int(left), compute_vr=int(right))
            w = wr + 1j * wi
            vl, vr = _unpack_real_vectors(wi, vl, cd), _unpack_real_vectors(wi, vr, cd)
        if info != 0:
            w_out[i], vl_out[i], vr_out[i] = np.nan, np.nan, np.nan
            continue
        w_out[i] = w
        if left:
            vl_out[i] = vl
        if right:
            vr_out[i] = vr
    return [w_out] + ([vl_out] if left else []) + ([vr_out] if right else [])


def _eig_abstract(avals: Sequence[ShapedArray], params: Params) -> list[ShapedArray]:
    a = _one("eig", avals)
    check_matrix("eig", a, square=True)
    left, right = _eig_params(params)
    get_bool("eig", params, _EIG_FLAGS[2])
    cd = _complex_of(a.dtype)
    v = ShapedArray(a.shape, cd)
    return [ShapedArray(a.shape[:-1], cd)] + [v] * (int(left) + int(right))


def _eig_vec_jvp(w: Value, v: Value, v_inv: Value, da: Value) -> tuple[Value, Value]:
    """The derivatives of the eigenvalues ``w`` and the eigenvectors ``v`` (JAX's
    ``_eig_vec_jvp``) under LAPACK's normalization: ``P = v^-1 da v``,
    ``dw = diag(P)``, ``dv_j = u_j + c_j v_j`` with ``u = v (F * P)`` and
    ``c_j`` the constant that keeps ``v_j`` of unit norm and its largest
    component real."""
    nd = aval_of(v).ndim
    n = aval_of(v).shape[-1]
    p = _matmul(_matmul(v_inv, da), v)
    eye = _const_like(np.eye(n), v)
    f = sub(div(_const_like(np.ones((n, n)), v), add(eye, sub(_rows(w), _cols(w)))), eye)
    u = _matmul(v, mul(f, p))
    k = argmax(bind1(abs_p, (v,), params_of()), nd - 2, int32)  # the largest component of each column
    rows = broadcasted_iota(int32, aval_of(v).shape, nd - 2)
    mask = convert(eq(rows, _rows(k)), aval_of(v).dtype)
    c_re = neg(real(reduce_sum(mul(conj(v), u), (nd - 2,))))
    c_im = neg(div(imag(reduce_sum(mul(mask, u), (nd - 2,))), real(reduce_sum(mul(mask, v), (nd - 2,)))))
    c = bind1(complex_p, (c_re, c_im), params_of())
    return _diag_of(p), add(u, mul(v, _rows(c)))


def _eig_jvp(
    primals: Sequence[Value], tangents: Sequence[Tangent], params: Params
) -> tuple[list[Value], list[Tangent]]:
    """The eigenvalues' derivative ``dw_j = u_j^H da v_j / (u_j^H v_j)``
    (``u``, ``v``: the left and right eigenvectors; the diagonal of
    ``v^-1 da v``, JAX's formula, as ``v^-1`` is ``u^H`` with row ``j``
    scaled by ``1 / (u_j^H v_j)`` for distinct eigenvalues); the
    eigenvectors' with ``enable_eigvec_derivs`` only, as JAX's (valid for
    distinct eigenvalues and an unambiguous largest component)."""
    (a,), (da,) = primals, tangents
    left, right = _eig_params(params)
    derivs = get_bool("eig", params, _EIG_FLAGS[2])
    if (left or right) and not derivs:
        raise NotImplementedError(
            "Derivatives of non-symmetric eigenvectors are only valid under assumptions on the input that "
            "JAX cannot check (see the enable_eigvec_derivs argument to jax.lax.linalg.eig). Pass "
            "enable_eigvec_derivs=True to jax.lax.linalg.eig to opt in, or differentiate the eigenvalues "
            "alone (jnp.linalg.eigvals). See https://github.com/jax-ml/jax/issues/2748 for discussion."
        )
    w, vl, vr = bind(eig_p, (a,), eig_params(True, True, derivs))
    primal_out: list[Value] = [w]
    primal_out += [vl] if left else []
    primal_out += [vr] if right else []
    if isinstance(da, Zero):
        return primal_out, [zero_like(x) for x in primal_out]
    dac = _as(da, vr)
    scale = _diag_of(_matmul(_H(vl), vr))  # u_j^H v_j
    vr_inv = div(_H(vl), _cols(scale))
    dw, dvr = _eig_vec_jvp(w, vr, vr_inv, dac)
    tangent_out: list[Tangent] = [dw]
    if left:  # vl: the right eigenvectors of a^H, with eigenvalues conj(w)
        vl_inv = div(_H(vr), _cols(conj(scale)))
        tangent_out.append(_eig_vec_jvp(conj(w), vl, vl_inv, _H(dac))[1])
    if right:
        tangent_out.append(dvr)
    return primal_out, tangent_out


def _eig_lower(ctx: LoweringContext, eqn: Eqn, args: Sequence[HloValue]) -> list[HloValue]:
    if ctx.platform != "cpu":
        raise NotImplementedError(
            f"eig: typedax lowers eig only for the CPU (jaxlib's LAPACK geev), not for {ctx.platform!r}; "
            "compute it eagerly or under jit on the CPU"
        )
    _prepare_lapack("eig", ctx)
    a_aval = eqn.inputs[0].aval
    left, right = _eig_params(eqn.params)
    outs_avals = [v.aval for v in eqn.out_binders]
    w_aval = outs_avals[0]
    v_aval = ShapedArray(a_aval.shape, w_aval.dtype)
    if a_aval.shape[-1] == 0:
        return [full(0.0, o) for o in outs_avals]
    info_aval = ShapedArray(a_aval.shape[:-2], int32)
    real_w = ShapedArray(a_aval.shape[:-1], a_aval.dtype)
    complex_a = a_aval.dtype in COMPLEX
    results = ([w_aval] if complex_a else [real_w, real_w]) + [v_aval, v_aval, info_aval]
    outs = _lapack("geev", a_aval.dtype, args, results,
                   {"compute_left": "V" if left else "N", "compute_right": "V" if right else "N"}, None)
    *ws, vl, vr, info = outs
    w = ws[0] if complex_a else hlo.complex(ws[0], ws[1])
    res = [_nan_unless_ok(info, w, w_aval)]
    if left:
        res.append(_nan_unless_ok(info, vl, v_aval))
    if right:
        res.append(_nan_unless_ok(info, vr, v_aval))
    return res


eig_p = Primitive(
    "eig", _eig_impl, _eig_abstract,
    # no CUDA lowering yet: eager eig on a GPU stays LAPACK's on the host
    rules_for=lambda p: Rules(jvp=_eig_jvp, batch=_front_batch(p), lower=_eig_lower, host_on_accelerator=True),
)


# -- lu(a) -> (lu, pivots, permutation) -------------------------------------------------
def _lu_shapes(a: ShapedArray) -> tuple[ShapedArray, ShapedArray, ShapedArray]:
    batch, (m, n) = a.shape[:-2], a.shape[-2:]
    return ShapedArray(a.shape, a.dtype), ShapedArray(batch + (min(m, n),), int32), ShapedArray(batch + (m,), int32)


def _host_permutation(pivots: NDArray, m: int) -> NDArray:
    """The permutation of ``range(m)`` the row swaps ``pivots`` (``[..., k]``,
    applied in order) make, on the host (a negative swap counts from the end,
    as JAX's indexing; the others must be in range)."""
    perm = np.broadcast_to(np.arange(m, dtype=np.int32), pivots.shape[:-1] + (m,)).copy()
    for b in np.ndindex(*pivots.shape[:-1]):
        p = perm[b]
        for i, j in enumerate(pivots[b]):
            j = int(j) + m if j < 0 else int(j)
            p[i], p[j] = p[j], p[i]
    return perm


def _lu_impl(args: Sequence[NDArray], params: Params) -> list[NDArray]:
    from scipy.linalg import lapack

    (a,) = args
    lu_aval, piv_aval, _ = _lu_shapes(aval_of(a))
    out = np.array(a, copy=True)
    piv = np.zeros(piv_aval.shape, np.int32)
    m, n = a.shape[-2:]
    if m and n:
        getrf = lapack.get_lapack_funcs("getrf", dtype=a.dtype)
        for i in _each_matrix(a):
            lu, p, info = getrf(a[i])  # SciPy's pivots are 0-based
            out[i], piv[i] = (lu, p) if info >= 0 else (np.nan, p)
    return [out, piv, _host_permutation(piv, m)]


def _lu_abstract(avals: Sequence[ShapedArray], params: Params) -> list[ShapedArray]:
    a = _one("lu", avals)
    check_matrix("lu", a, square=False)
    return list(_lu_shapes(a))


def take_rows(x: Value, rows: Value) -> Array:
    """``x[..., rows[...], :]``: each matrix of ``x`` (``[..., m, n]``) with
    its rows taken by the int32 indices ``rows`` (``[..., m]``), through one
    gather on the matrices stacked."""
    xa = aval_of(x)
    batch, (m, n) = xa.shape[:-2], xa.shape[-2:]
    count = int(np.prod(batch, dtype=np.int64))
    if m == 0 or count == 0:  # no rows to take (a gather's slice would not fit)
        return bind1(reshape_p, (x,), params_of(("new_sizes", xa.shape)))
    flat_rows = rows
    if batch:
        starts = np.arange(count, dtype=np.int32).reshape(batch) * m
        flat_rows = add(rows, broadcast_to(starts, batch + (m,), (len(batch),)))
    flat_rows = reshape(flat_rows, (count * m, 1))
    g = GatherParams((1,), (0,), (0,), (1, n), "promise_in_bounds", None, False, False)
    return bind1(reshape_p, (gather_(reshape(x, (count * m, n)), flat_rows, g),), params_of(("new_sizes", xa.shape)))


def _lu_jvp(
    primals: Sequence[Value], tangents: Sequence[Tangent], params: Params
) -> tuple[list[Value], list[Tangent]]:
    """JAX's ``_lu_jvp_rule`` (De Hoog, Anderssen and Lukas): with
    ``X = L^-1 P dA U^-1``, ``dL = L tril(X, -1)``, ``dU = triu(X) U``, and
    the packed tangent ``dL + dU``; the pivots' and permutation's are zero."""
    (a,), (da,) = primals, tangents
    lu, piv, perm = bind(lu_p, (a,), params)
    if isinstance(da, Zero):
        return [lu, piv, perm], [zero_like(lu), zero_like(piv), zero_like(perm)]
    xa = aval_of(lu)
    nd, (m, n) = xa.ndim, xa.shape[-2:]
    k = min(m, n)
    zero = np.zeros((), xa.dtype)
    no_pad = ((0, 0, 0),) * (nd - 2)
    lower = _tri_mask(slice_(lu, (0,) * nd, xa.shape[:-1] + (k,), (1,) * nd) if k < n else lu, True, -1)
    if k < m:
        lower = pad_(lower, zero, no_pad + ((0, 0, 0), (0, m - k, 0)))
    ell = add(lower, _const_like(np.eye(m), lower))
    upper = _tri_mask(slice_(lu, (0,) * nd, xa.shape[:-2] + (k, n), (1,) * nd) if k < m else lu, False)
    if k < n:
        upper = pad_(upper, zero, no_pad + ((0, n - k, 0), (0, 0, 0)))
        upper = add(upper, _const_like(np.pad(np.eye(n - k), ((k, 0), (k, 0))), upper))
    la = triangular_solve_(ell, take_rows(da, perm), left_side=True, lower=True, transpose_a=False,
                           unit_diagonal=True)
    lau = triangular_solve_(upper, la, left_side=False, lower=False, transpose_a=False)
    dlu = add(_matmul(ell, _tri_mask(lau, True, -1)), _matmul(_tri_mask(lau, False), upper))
    return [lu, piv, perm], [dlu, zero_like(piv), zero_like(perm)]


def _iota(aval: ShapedArray, dim: int) -> HloValue:
    return hlo.iota(tensor_type(aval), dim)


def _permutation_loop(pivots: HloValue, piv_aval: ShapedArray, perm_aval: ShapedArray) -> HloValue:
    """The permutation the row swaps ``pivots`` make (JAX's
    ``_generic_lu_pivots_to_permutation``) as one StableHLO ``while`` over
    the swaps: step ``i`` exchanges ``perm[..., i]`` and ``perm[..., j]``,
    ``j = pivots[..., i]`` (negative: from the end), through compares and
    selects on each row so a batch needs no gather."""
    batch, k, m = piv_aval.shape[:-1], piv_aval.shape[-1], perm_aval.shape[-1]
    nb = len(batch)
    perm0 = _iota(perm_aval, nb)
    if k == 0 or m == 0:
        return perm0
    i32 = ShapedArray((), int32)
    one_col = ShapedArray(batch + (1,), int32)
    types = [tensor_type(i32), tensor_type(piv_aval), tensor_type(perm_aval)]
    op = hlo.WhileOp(types, [full(0, i32), pivots, perm0])
    cond = op.cond.blocks.append(*types)
    with ir.InsertionPoint(cond):
        hlo.return_([compare(cond.arguments[0], full(k, i32), int32, "LT")])
    body = op.body.blocks.append(*types)
    with ir.InsertionPoint(body):
        i, piv, state = body.arguments
        perm: HloValue = state
        starts = [full(0, i32)] * nb + [i]
        j = hlo.dynamic_slice(piv, starts, list(one_col.shape))
        j = hlo.select(compare(j, full(0, one_col), int32, "LT"), hlo.add(j, full(m, one_col)), j)
        x = hlo.dynamic_slice(perm, starts, list(one_col.shape))
        dims = list(range(nb + 1))
        ids = _iota(perm_aval, nb)
        is_j = compare(ids, hlo.broadcast_in_dim(tensor_type(perm_aval), j, dims), int32, "EQ")
        y = reduce(hlo.select(is_j, perm, full(0, perm_aval)), perm_aval, ShapedArray(batch, int32), [nb], 0, hlo.add)
        is_i = compare(ids, hlo.broadcast_in_dim(tensor_type(perm_aval), i, []), int32, "EQ")
        perm = hlo.select(is_i, hlo.broadcast_in_dim(tensor_type(perm_aval), y, list(range(nb))), perm)
        perm = hlo.select(is_j, hlo.broadcast_in_dim(tensor_type(perm_aval), x, dims), perm)
        hlo.return_([hlo.add(i, full(1, i32)), piv, perm])
    out: HloValue = op.results[2]
    return out


def _pivots_to_permutation(gpu: bool, pivots: HloValue, piv_aval: ShapedArray, perm_aval: ShapedArray) -> HloValue:
    if gpu:  # jaxlib's CUDA kernel, row-major, as JAX's GPU lowering
        (perm,) = _ffi_call("cu_lu_pivots_to_permutation", [pivots], [perm_aval], {}, None, column_major=False)
        return perm
    return _permutation_loop(pivots, piv_aval, perm_aval)


def _lu_lower(ctx: LoweringContext, eqn: Eqn, args: Sequence[HloValue]) -> list[HloValue]:
    """JAX's ``_lu_cpu_gpu_lowering``: ``getrf`` (LAPACK's on the CPU,
    cuSOLVER's on CUDA), its 1-based pivots made 0-based, NaN where
    ``info < 0``, then the permutation of the pivots."""
    gpu = _prepare_lapack("lu", ctx)
    a_aval = eqn.inputs[0].aval
    lu_aval, piv_aval, perm_aval = (v.aval for v in eqn.out_binders)
    info_aval = ShapedArray(a_aval.shape[:-2], int32)
    outs = [a_aval, piv_aval, info_aval]
    if gpu:
        lu, piv, info = _cusolver("getrf", args, outs, {}, (0, 0))
    else:
        lu, piv, info = _lapack("getrf", a_aval.dtype, args, outs, {}, (0, 0))
    piv = hlo.subtract(piv, full(1, piv_aval))
    lu = _nan_unless_ok(info, lu, lu_aval, "GE")
    return [lu, piv, _pivots_to_permutation(gpu, piv, piv_aval, perm_aval)]


lu_p = Primitive(
    "lu", _lu_impl, _lu_abstract,
    rules_for=lambda p: Rules(jvp=_lu_jvp, batch=_front_batch(p), lower=_lu_lower, eval_on_device=_on_gpu),
)


# -- lu_pivots_to_permutation(pivots; permutation_size) -> permutation ---------------------
def _perm_size(params: Params) -> int:
    return get_int("lu_pivots_to_permutation", params, "permutation_size")


def _ptp_impl(args: Sequence[NDArray], params: Params) -> list[NDArray]:
    return [_host_permutation(args[0], _perm_size(params))]


def _ptp_abstract(avals: Sequence[ShapedArray], params: Params) -> list[ShapedArray]:
    p = _one("lu_pivots_to_permutation", avals)
    size = _perm_size(params)
    if p.dtype != int32 or p.ndim < 1:
        raise PrimitiveTypeError(
            f"lu_pivots_to_permutation: the pivots must be int32 of rank >= 1, got {p.str_short()}"
        )
    if size < p.shape[-1]:
        raise ShapeError(
            f"lu_pivots_to_permutation: Output permutation size {size} has to exceed the trailing "
            f"dimension of the pivots. Got pivots size {p.shape[-1]}"
        )
    return [ShapedArray(p.shape[:-1] + (size,), int32)]


def _ptp_lower(ctx: LoweringContext, eqn: Eqn, args: Sequence[HloValue]) -> list[HloValue]:
    gpu = ctx.platform == "cuda"
    if gpu:
        _prepare_lapack("lu_pivots_to_permutation", ctx)
    return [_pivots_to_permutation(gpu, args[0], eqn.inputs[0].aval, eqn.out_binders[0].aval)]


def _ptp_jvp(
    primals: Sequence[Value], tangents: Sequence[Tangent], params: Params
) -> tuple[list[Value], list[Tangent]]:
    out = bind1(lu_pivots_to_permutation_p, primals, params)
    return [out], [zero_like(out)]


lu_pivots_to_permutation_p = Primitive(
    "lu_pivots_to_permutation", _ptp_impl, _ptp_abstract,
    rules_for=lambda p: Rules(jvp=_ptp_jvp, batch=_front_batch(p), lower=_ptp_lower),
)


FAMILY = Family("linalg", (cholesky_p, triangular_solve_p, qr_p, eigh_p, svd_p, eig_p, lu_p,
                           lu_pivots_to_permutation_p))
