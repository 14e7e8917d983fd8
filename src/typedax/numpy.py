"""``jax.numpy`` for typedax: NumPy-style functions on arrays and tracers.

This module is a face: it defines nothing and only re-exports the numpy
layer's implementations (``typedax/_numpy/``; docs/architecture.md). Dtype
promotion and broadcasting happen there, then the strict ``lax`` primitives
are bound. Every function returns a typedax ``Array``.

Promotion is JAX's (``core/promotion.py``), not NumPy's: ``int32 + float32``
is float32, and a Python scalar is weakly typed -- it takes the array's dtype
when that can hold it (``x_f32 * 2.0`` stays float32, ``x_i32 + 2.5`` is
float64).
"""

from __future__ import annotations

# -- promotion, creation, shapes, reductions, element-wise math, convolutions: _numpy/lax_numpy.py --
from ._numpy.lax_numpy import abs as abs
from ._numpy.lax_numpy import absolute as absolute
from ._numpy.lax_numpy import add as add
from ._numpy.lax_numpy import array as array
from ._numpy.lax_numpy import asarray as asarray
from ._numpy.lax_numpy import astype as astype
from ._numpy.lax_numpy import cos as cos
from ._numpy.lax_numpy import divide as divide
from ._numpy.lax_numpy import dot as dot
from ._numpy.lax_numpy import equal as equal
from ._numpy.lax_numpy import exp as exp
from ._numpy.lax_numpy import floor_divide as floor_divide
from ._numpy.lax_numpy import greater as greater
from ._numpy.lax_numpy import greater_equal as greater_equal
from ._numpy.lax_numpy import invert as invert
from ._numpy.lax_numpy import less as less
from ._numpy.lax_numpy import less_equal as less_equal
from ._numpy.lax_numpy import log as log
from ._numpy.lax_numpy import matmul as matmul
from ._numpy.lax_numpy import max as max
from ._numpy.lax_numpy import maximum as maximum
from ._numpy.lax_numpy import mean as mean
from ._numpy.lax_numpy import min as min
from ._numpy.lax_numpy import minimum as minimum
from ._numpy.lax_numpy import mod as mod
from ._numpy.lax_numpy import multiply as multiply
from ._numpy.lax_numpy import negative as negative
from ._numpy.lax_numpy import not_equal as not_equal
from ._numpy.lax_numpy import power as power
from ._numpy.lax_numpy import promote_types as promote_types
from ._numpy.lax_numpy import ravel as ravel
from ._numpy.lax_numpy import remainder as remainder
from ._numpy.lax_numpy import reshape as reshape
from ._numpy.lax_numpy import result_type as result_type
from ._numpy.lax_numpy import sin as sin
from ._numpy.lax_numpy import sqrt as sqrt
from ._numpy.lax_numpy import subtract as subtract
from ._numpy.lax_numpy import sum as sum
from ._numpy.lax_numpy import tanh as tanh
from ._numpy.lax_numpy import transpose as transpose
from ._numpy.lax_numpy import where as where
from ._numpy.lax_numpy import zeros_like as zeros_like
from ._numpy.lax_numpy import zeros as zeros
from ._numpy.lax_numpy import ones as ones
from ._numpy.lax_numpy import full as full
from ._numpy.lax_numpy import full_like as full_like
from ._numpy.lax_numpy import ones_like as ones_like
from ._numpy.lax_numpy import iinfo as iinfo
from ._numpy.lax_numpy import finfo as finfo
from ._numpy.lax_numpy import arange as arange
from ._numpy.lax_numpy import clip as clip
from ._numpy.lax_numpy import concatenate as concatenate
from ._numpy.lax_numpy import expand_dims as expand_dims
from ._numpy.lax_numpy import flip as flip
from ._numpy.lax_numpy import pad as pad
from ._numpy.lax_numpy import squeeze as squeeze
from ._numpy.lax_numpy import stack as stack
from ._numpy.lax_numpy import all as all
from ._numpy.lax_numpy import any as any
from ._numpy.lax_numpy import argmax as argmax
from ._numpy.lax_numpy import argmin as argmin
from ._numpy.lax_numpy import argsort as argsort
from ._numpy.lax_numpy import cumprod as cumprod
from ._numpy.lax_numpy import cumsum as cumsum
from ._numpy.lax_numpy import prod as prod
from ._numpy.lax_numpy import sort as sort
from ._numpy.lax_numpy import arccos as arccos
from ._numpy.lax_numpy import arccosh as arccosh
from ._numpy.lax_numpy import arcsin as arcsin
from ._numpy.lax_numpy import arcsinh as arcsinh
from ._numpy.lax_numpy import arctan as arctan
from ._numpy.lax_numpy import arctan2 as arctan2
from ._numpy.lax_numpy import arctanh as arctanh
from ._numpy.lax_numpy import around as around
from ._numpy.lax_numpy import bitwise_and as bitwise_and
from ._numpy.lax_numpy import bitwise_not as bitwise_not
from ._numpy.lax_numpy import bitwise_or as bitwise_or
from ._numpy.lax_numpy import bitwise_xor as bitwise_xor
from ._numpy.lax_numpy import cosh as cosh
from ._numpy.lax_numpy import deg2rad as deg2rad
from ._numpy.lax_numpy import exp2 as exp2
from ._numpy.lax_numpy import expm1 as expm1
from ._numpy.lax_numpy import fabs as fabs
from ._numpy.lax_numpy import heaviside as heaviside
from ._numpy.lax_numpy import hypot as hypot
from ._numpy.lax_numpy import isfinite as isfinite
from ._numpy.lax_numpy import isinf as isinf
from ._numpy.lax_numpy import isnan as isnan
from ._numpy.lax_numpy import left_shift as left_shift
from ._numpy.lax_numpy import log10 as log10
from ._numpy.lax_numpy import log1p as log1p
from ._numpy.lax_numpy import log2 as log2
from ._numpy.lax_numpy import logaddexp as logaddexp
from ._numpy.lax_numpy import logical_and as logical_and
from ._numpy.lax_numpy import logical_not as logical_not
from ._numpy.lax_numpy import logical_or as logical_or
from ._numpy.lax_numpy import logical_xor as logical_xor
from ._numpy.lax_numpy import nan_to_num as nan_to_num
from ._numpy.lax_numpy import rad2deg as rad2deg
from ._numpy.lax_numpy import reciprocal as reciprocal
from ._numpy.lax_numpy import right_shift as right_shift
from ._numpy.lax_numpy import rint as rint
from ._numpy.lax_numpy import round as round
from ._numpy.lax_numpy import sign as sign
from ._numpy.lax_numpy import sinc as sinc
from ._numpy.lax_numpy import sinh as sinh
from ._numpy.lax_numpy import square as square
from ._numpy.lax_numpy import tan as tan
from ._numpy.lax_numpy import convolve as convolve
from ._numpy.lax_numpy import correlate as correlate
from ._numpy.lax_numpy import linspace as linspace
from ._numpy.lax_numpy import newaxis as newaxis
from ._numpy.lax_numpy import pi as pi
from ._numpy.lax_numpy import rot90 as rot90
from ._numpy.lax_numpy import amax as amax
from ._numpy.lax_numpy import amin as amin
from ._numpy.lax_numpy import broadcast_to as broadcast_to

__all__ = [
    "abs",
    "absolute",
    "add",
    "array",
    "asarray",
    "astype",
    "cos",
    "divide",
    "dot",
    "equal",
    "exp",
    "floor_divide",
    "greater",
    "greater_equal",
    "invert",
    "less",
    "less_equal",
    "log",
    "matmul",
    "max",
    "maximum",
    "mean",
    "min",
    "minimum",
    "mod",
    "multiply",
    "negative",
    "not_equal",
    "power",
    "promote_types",
    "ravel",
    "remainder",
    "reshape",
    "result_type",
    "sin",
    "sqrt",
    "subtract",
    "sum",
    "tanh",
    "transpose",
    "where",
    "zeros_like",
    "zeros",
    "ones",
    "full",
    "full_like",
    "ones_like",
    "iinfo",
    "finfo",
    "arange",
    "clip",
    "concatenate",
    "expand_dims",
    "flip",
    "pad",
    "squeeze",
    "stack",
    "all",
    "any",
    "argmax",
    "argmin",
    "argsort",
    "cumprod",
    "cumsum",
    "prod",
    "sort",
    "arccos",
    "arccosh",
    "arcsin",
    "arcsinh",
    "arctan",
    "arctan2",
    "arctanh",
    "around",
    "bitwise_and",
    "bitwise_not",
    "bitwise_or",
    "bitwise_xor",
    "cosh",
    "deg2rad",
    "exp2",
    "expm1",
    "fabs",
    "heaviside",
    "hypot",
    "isfinite",
    "isinf",
    "isnan",
    "left_shift",
    "log10",
    "log1p",
    "log2",
    "logaddexp",
    "logical_and",
    "logical_not",
    "logical_or",
    "logical_xor",
    "nan_to_num",
    "rad2deg",
    "reciprocal",
    "right_shift",
    "rint",
    "round",
    "sign",
    "sinc",
    "sinh",
    "square",
    "tan",
    "convolve",
    "correlate",
    "linspace",
    "newaxis",
    "pi",
    "rot90",
    "broadcast_to",
]

# -- more of jax.numpy (issue 12), defined in typedax/_numpy/ ---------------------------
from ._numpy.elementwise import acos as acos
from ._numpy.elementwise import acosh as acosh
from ._numpy.elementwise import allclose as allclose
from ._numpy.elementwise import array_equal as array_equal
from ._numpy.elementwise import array_equiv as array_equiv
from ._numpy.elementwise import asin as asin
from ._numpy.elementwise import asinh as asinh
from ._numpy.elementwise import atan as atan
from ._numpy.elementwise import atan2 as atan2
from ._numpy.elementwise import atanh as atanh
from ._numpy.elementwise import cbrt as cbrt
from ._numpy.elementwise import ceil as ceil
from ._numpy.elementwise import copysign as copysign
from ._numpy.elementwise import degrees as degrees
from ._numpy.elementwise import e as e
from ._numpy.elementwise import euler_gamma as euler_gamma
from ._numpy.elementwise import inf as inf
from ._numpy.elementwise import nan as nan
from ._numpy.elementwise import float_power as float_power
from ._numpy.elementwise import floor as floor
from ._numpy.elementwise import fmax as fmax
from ._numpy.elementwise import fmin as fmin
from ._numpy.elementwise import fmod as fmod
from ._numpy.elementwise import isclose as isclose
from ._numpy.elementwise import isneginf as isneginf
from ._numpy.elementwise import isposinf as isposinf
from ._numpy.elementwise import isscalar as isscalar
from ._numpy.elementwise import ldexp as ldexp
from ._numpy.elementwise import logaddexp2 as logaddexp2
from ._numpy.elementwise import ndim as ndim
from ._numpy.elementwise import nextafter as nextafter
from ._numpy.elementwise import positive as positive
from ._numpy.elementwise import pow as pow  # noqa: A004 - jnp's name
from ._numpy.elementwise import radians as radians
from ._numpy.elementwise import shape as shape
from ._numpy.elementwise import signbit as signbit
from ._numpy.elementwise import size as size
from ._numpy.elementwise import true_divide as true_divide
from ._numpy.elementwise import trunc as trunc
from ._numpy.creation import diag as diag
from ._numpy.creation import diagonal as diagonal
from ._numpy.creation import empty as empty
from ._numpy.creation import empty_like as empty_like
from ._numpy.creation import eye as eye
from ._numpy.creation import identity as identity
from ._numpy.creation import indices as indices
from ._numpy.creation import meshgrid as meshgrid
from ._numpy.creation import trace as trace
from ._numpy.creation import tri as tri
from ._numpy.creation import tril as tril
from ._numpy.creation import triu as triu
from ._numpy.manipulation import append as append
from ._numpy.manipulation import array_split as array_split
from ._numpy.manipulation import atleast_1d as atleast_1d
from ._numpy.manipulation import atleast_2d as atleast_2d
from ._numpy.manipulation import atleast_3d as atleast_3d
from ._numpy.manipulation import broadcast_arrays as broadcast_arrays
from ._numpy.manipulation import broadcast_shapes as broadcast_shapes
from ._numpy.manipulation import column_stack as column_stack
from ._numpy.manipulation import concat as concat
from ._numpy.manipulation import cross as cross
from ._numpy.manipulation import diff as diff
from ._numpy.manipulation import dsplit as dsplit
from ._numpy.manipulation import dstack as dstack
from ._numpy.manipulation import ediff1d as ediff1d
from ._numpy.manipulation import fliplr as fliplr
from ._numpy.manipulation import flipud as flipud
from ._numpy.manipulation import hsplit as hsplit
from ._numpy.manipulation import hstack as hstack
from ._numpy.manipulation import inner as inner
from ._numpy.manipulation import kron as kron
from ._numpy.manipulation import matrix_transpose as matrix_transpose
from ._numpy.manipulation import moveaxis as moveaxis
from ._numpy.manipulation import outer as outer
from ._numpy.manipulation import permute_dims as permute_dims
from ._numpy.manipulation import repeat as repeat
from ._numpy.manipulation import roll as roll
from ._numpy.manipulation import split as split
from ._numpy.manipulation import swapaxes as swapaxes
from ._numpy.manipulation import take as take
from ._numpy.manipulation import take_along_axis as take_along_axis
from ._numpy.manipulation import tensordot as tensordot
from ._numpy.manipulation import tile as tile
from ._numpy.manipulation import trapezoid as trapezoid
from ._numpy.manipulation import unstack as unstack
from ._numpy.manipulation import vdot as vdot
from ._numpy.manipulation import vsplit as vsplit
from ._numpy.manipulation import vstack as vstack
from ._numpy.creation import geomspace as geomspace
from ._numpy.creation import logspace as logspace
from ._numpy.statistics import average as average
from ._numpy.statistics import corrcoef as corrcoef
from ._numpy.statistics import count_nonzero as count_nonzero
from ._numpy.statistics import cov as cov
from ._numpy.statistics import median as median
from ._numpy.statistics import nanargmax as nanargmax
from ._numpy.statistics import nanargmin as nanargmin
from ._numpy.statistics import nanmax as nanmax
from ._numpy.statistics import nanmean as nanmean
from ._numpy.statistics import nanmedian as nanmedian
from ._numpy.statistics import nanmin as nanmin
from ._numpy.statistics import nanpercentile as nanpercentile
from ._numpy.statistics import nanprod as nanprod
from ._numpy.statistics import nanquantile as nanquantile
from ._numpy.statistics import nanstd as nanstd
from ._numpy.statistics import nansum as nansum
from ._numpy.statistics import nanvar as nanvar
from ._numpy.statistics import percentile as percentile
from ._numpy.statistics import ptp as ptp
from ._numpy.statistics import quantile as quantile
from ._numpy.statistics import std as std
from ._numpy.statistics import var as var
from ._numpy.searching import argwhere as argwhere
from ._numpy.searching import bincount as bincount
from ._numpy.searching import digitize as digitize
from ._numpy.searching import flatnonzero as flatnonzero
from ._numpy.searching import histogram as histogram
from ._numpy.searching import histogram_bin_edges as histogram_bin_edges
from ._numpy.lax_numpy import nonzero as nonzero
from ._numpy.searching import searchsorted as searchsorted
from ._numpy.searching import unique as unique
from ._numpy.einsum import einsum as einsum
from ._numpy import linalg as linalg  # typedax.numpy.linalg
from ._numpy import fft_face as fft  # typedax.numpy.fft
from ._numpy.elementwise import angle as angle
from ._numpy.elementwise import bitwise_count as bitwise_count
from ._numpy.elementwise import bitwise_invert as bitwise_invert
from ._numpy.elementwise import bitwise_left_shift as bitwise_left_shift
from ._numpy.elementwise import bitwise_right_shift as bitwise_right_shift
from ._numpy.elementwise import conj as conj
from ._numpy.elementwise import conjugate as conjugate
from ._numpy.elementwise import copy as copy  # noqa: A004 - jnp's name
from ._numpy.elementwise import divmod as divmod  # noqa: A004 - jnp's name
from ._numpy.elementwise import imag as imag
from ._numpy.elementwise import iscomplex as iscomplex
from ._numpy.elementwise import iscomplexobj as iscomplexobj
from ._numpy.elementwise import isin as isin
from ._numpy.elementwise import isreal as isreal
from ._numpy.elementwise import isrealobj as isrealobj
from ._numpy.elementwise import modf as modf
from ._numpy.elementwise import real as real
from ._numpy.indexing import compress as compress
from ._numpy.indexing import delete as delete
from ._numpy.indexing import diag_indices as diag_indices
from ._numpy.indexing import diag_indices_from as diag_indices_from
from ._numpy.indexing import extract as extract
from ._numpy.indexing import fill_diagonal as fill_diagonal
from ._numpy.indexing import put_along_axis as put_along_axis
from ._numpy.indexing import select as select
from ._numpy.indexing import tril_indices as tril_indices
from ._numpy.indexing import tril_indices_from as tril_indices_from
from ._numpy.indexing import triu_indices as triu_indices
from ._numpy.indexing import triu_indices_from as triu_indices_from
from ._numpy.indexing import unravel_index as unravel_index
from ._numpy.manipulation import apply_along_axis as apply_along_axis
from ._numpy.manipulation import apply_over_axes as apply_over_axes
from ._numpy.manipulation import cumulative_prod as cumulative_prod
from ._numpy.manipulation import cumulative_sum as cumulative_sum
from ._numpy.manipulation import fromfunction as fromfunction
from ._numpy.manipulation import matvec as matvec
from ._numpy.manipulation import nancumprod as nancumprod
from ._numpy.manipulation import nancumsum as nancumsum
from ._numpy.manipulation import resize as resize
from ._numpy.manipulation import rollaxis as rollaxis
from ._numpy.manipulation import vecdot as vecdot
from ._numpy.manipulation import vecmat as vecmat
from ._numpy.polynomial import bartlett as bartlett
from ._numpy.polynomial import blackman as blackman
from ._numpy.polynomial import hamming as hamming
from ._numpy.polynomial import hanning as hanning
from ._numpy.polynomial import polyadd as polyadd
from ._numpy.polynomial import polyder as polyder
from ._numpy.polynomial import polyint as polyint
from ._numpy.polynomial import polymul as polymul
from ._numpy.polynomial import polysub as polysub
from ._numpy.polynomial import polyval as polyval
from ._numpy.polynomial import vander as vander
from ._numpy.elementwise import gcd as gcd
from ._numpy.elementwise import lcm as lcm
from ._numpy.searching import interp as interp
from ._numpy.sorting import argpartition as argpartition
from ._numpy.sorting import lexsort as lexsort
from ._numpy.sorting import partition as partition
from ._numpy.sorting import sort_complex as sort_complex
from ._numpy.setops import intersect1d as intersect1d
from ._numpy.setops import setdiff1d as setdiff1d
from ._numpy.setops import setxor1d as setxor1d
from ._numpy.setops import union1d as union1d
from ._numpy.setops import unique_all as unique_all
from ._numpy.setops import unique_counts as unique_counts
from ._numpy.setops import unique_inverse as unique_inverse
from ._numpy.setops import unique_values as unique_values
from ._numpy.manipulation import gradient as gradient
from ._numpy.manipulation import trim_zeros as trim_zeros
from ._numpy.creation import block as block
from ._numpy.creation import diagflat as diagflat
from ._numpy.indexing import choose as choose
from ._numpy.indexing import index_exp as index_exp
from ._numpy.indexing import ix_ as ix_
from ._numpy.indexing import s_ as s_
from ._numpy.functional import can_cast as can_cast
from ._numpy.functional import character as character
from ._numpy.functional import complexfloating as complexfloating
from ._numpy.functional import double as double
from ._numpy.functional import dtype as dtype
from ._numpy.functional import flexible as flexible
from ._numpy.functional import float_ as float_
from ._numpy.functional import floating as floating
from ._numpy.functional import generic as generic
from ._numpy.functional import inexact as inexact
from ._numpy.functional import int_ as int_
from ._numpy.functional import integer as integer
from ._numpy.functional import isdtype as isdtype
from ._numpy.functional import issubdtype as issubdtype
from ._numpy.functional import iterable as iterable
from ._numpy.functional import ndarray as ndarray
from ._numpy.functional import number as number
from ._numpy.functional import piecewise as piecewise
from ._numpy.functional import ravel_multi_index as ravel_multi_index
from ._numpy.functional import signedinteger as signedinteger
from ._numpy.functional import single as single
from ._numpy.functional import uint as uint
from ._numpy.functional import unsignedinteger as unsignedinteger
from ._numpy.functional import vectorize as vectorize
from ._numpy.indexing import insert as insert
from ._numpy.creation import mgrid as mgrid
from ._numpy.creation import ogrid as ogrid
from ._numpy.elementwise import frexp as frexp
from ._numpy.elementwise import spacing as spacing
from ._numpy.manipulation import unwrap as unwrap
from ._numpy.indexing import put as put
from ._numpy.polynomial import poly as poly
from ._numpy.polynomial import polydiv as polydiv

__all__ += [
    "acos", "acosh", "allclose", "array_equal", "array_equiv", "asin", "asinh", "atan", "atan2",
    "atanh", "cbrt", "ceil", "copysign", "degrees", "e", "euler_gamma", "float_power", "inf", "nan",
    "floor", "fmax", "fmin", "fmod", "isclose", "isneginf", "isposinf", "isscalar", "ldexp",
    "logaddexp2", "ndim", "nextafter", "positive", "pow", "radians", "shape",
    "signbit", "size", "true_divide", "trunc",
    "append", "array_split", "atleast_1d", "atleast_2d", "atleast_3d", "broadcast_arrays",
    "broadcast_shapes", "broadcast_to", "column_stack", "concat", "cross", "diag", "diagonal",
    "diff", "dsplit", "dstack", "ediff1d", "empty", "empty_like", "eye", "fliplr", "flipud",
    "hsplit", "hstack", "identity", "indices", "inner", "kron", "matrix_transpose", "meshgrid",
    "moveaxis", "outer", "permute_dims", "repeat", "roll", "split", "swapaxes", "take",
    "take_along_axis", "tensordot", "tile", "trace", "trapezoid", "tri", "tril", "triu", "unstack",
    "vdot", "vsplit", "vstack",
    "argwhere", "average", "bincount", "corrcoef", "count_nonzero", "cov", "digitize", "einsum",
    "flatnonzero", "geomspace", "histogram", "histogram_bin_edges", "logspace", "median",
    "nanargmax", "nanargmin", "nanmax", "nanmean", "nanmedian", "nanmin", "nanpercentile",
    "nanprod", "nanquantile", "nanstd", "nansum", "nanvar", "nonzero", "percentile", "ptp",
    "quantile", "searchsorted", "std", "unique", "var",
    "linalg",
    "fft",
    "angle", "apply_along_axis", "apply_over_axes", "bartlett", "bitwise_count", "bitwise_invert",
    "bitwise_left_shift", "bitwise_right_shift", "blackman", "compress", "conj", "conjugate",
    "copy", "cumulative_prod", "cumulative_sum", "delete", "diag_indices", "diag_indices_from",
    "divmod", "extract", "fill_diagonal", "fromfunction", "hamming", "hanning", "imag",
    "iscomplex", "iscomplexobj", "isin", "isreal", "isrealobj", "matvec", "modf", "nancumprod",
    "nancumsum", "polyadd", "polyder", "polyint", "polymul", "polysub", "polyval",
    "put_along_axis", "real", "resize", "rollaxis", "select", "tril_indices", "tril_indices_from",
    "triu_indices", "triu_indices_from", "unravel_index", "vander", "vecdot", "vecmat",
    "argpartition", "gcd", "interp", "lcm", "lexsort", "partition",
    "block", "choose", "diagflat", "gradient", "index_exp", "intersect1d", "ix_", "s_", "setdiff1d",
    "setxor1d", "trim_zeros", "union1d", "unique_all", "unique_counts", "unique_inverse", "unique_values",
    "can_cast", "character", "complexfloating", "double", "dtype", "flexible", "float_",
    "floating", "generic", "inexact", "int_", "integer", "isdtype", "issubdtype", "iterable",
    "ndarray", "number", "piecewise", "ravel_multi_index", "signedinteger", "single", "uint",
    "unsignedinteger", "vectorize", "insert", "mgrid", "ogrid", "frexp", "spacing", "unwrap", "put",
    "poly", "polydiv",
]

# -- more of jax.numpy's names (issue 29, item 7) --
from ._numpy.bessel import i0 as i0
from ._numpy.bessel import kaiser as kaiser
from ._numpy.bits import packbits as packbits
from ._numpy.bits import unpackbits as unpackbits
from ._numpy.creation import c_ as c_
from ._numpy.creation import frombuffer as frombuffer
from ._numpy.creation import fromiter as fromiter
from ._numpy.creation import fromstring as fromstring
from ._numpy.creation import r_ as r_
from ._numpy.einsum import einsum_path as einsum_path
from ._numpy.indexing import mask_indices as mask_indices
from ._numpy.indexing import place as place
from ._numpy.polynomial import polyfit as polyfit
from ._numpy.polynomial import roots as roots
from ._numpy.printing import get_printoptions as get_printoptions
from ._numpy.printing import printoptions as printoptions
from ._numpy.printing import set_printoptions as set_printoptions
from ._numpy.searching import histogram2d as histogram2d
from ._numpy.searching import histogramdd as histogramdd
from ._numpy.numpy_io import array_repr as array_repr
from ._numpy.numpy_io import fromfile as fromfile
from ._numpy.numpy_io import load as load
from ._numpy.numpy_io import object_ as object_
from ._numpy.numpy_io import save as save
from ._numpy.numpy_io import savez as savez

__all__ += [  # (issue 29, item 7)
    "c_", "einsum_path", "frombuffer", "fromiter", "fromstring", "get_printoptions", "histogram2d",
    "histogramdd", "i0", "kaiser", "mask_indices", "packbits", "place", "polyfit", "printoptions", "r_",
    "roots", "set_printoptions", "unpackbits",
    "array_repr", "fromfile", "load", "object_", "save", "savez",  # (issue 29 leftovers)
]

# -- the scalar types (``tnp.float32(0.5)`` is an Array; ``tnp.float32`` stands for its dtype) --
from ._numpy.scalar_types import bfloat16 as bfloat16
from ._numpy.scalar_types import bool_ as bool_
from ._numpy.scalar_types import complex64 as complex64
from ._numpy.scalar_types import complex128 as complex128
from ._numpy.scalar_types import cdouble as cdouble  # the complex aliases
from ._numpy.scalar_types import complex_ as complex_  # the complex aliases
from ._numpy.scalar_types import csingle as csingle  # the complex aliases
from ._numpy.printing import ComplexWarning as ComplexWarning  # the complex aliases
from ._numpy.printing import array_str as array_str  # the complex aliases
from ._numpy.scalar_types import float16 as float16
from ._numpy.scalar_types import float32 as float32
from ._numpy.scalar_types import float64 as float64
from ._numpy.scalar_types import int8 as int8
from ._numpy.scalar_types import int16 as int16
from ._numpy.scalar_types import int32 as int32
from ._numpy.scalar_types import int64 as int64
from ._numpy.scalar_types import uint8 as uint8
from ._numpy.scalar_types import uint16 as uint16
from ._numpy.scalar_types import uint32 as uint32
from ._numpy.scalar_types import uint64 as uint64

__all__ += [
    "bfloat16", "bool_", "float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "uint16",
    "uint32", "uint64", "amax", "amin", "complex64", "complex128", "sort_complex",
]


# -- ml_dtypes' small floats (issue 29, item 7, float8) --
from ._numpy.scalar_types import float4_e2m1fn as float4_e2m1fn
from ._numpy.scalar_types import float8_e3m4 as float8_e3m4
from ._numpy.scalar_types import float8_e4m3 as float8_e4m3
from ._numpy.scalar_types import float8_e4m3b11fnuz as float8_e4m3b11fnuz
from ._numpy.scalar_types import float8_e4m3fn as float8_e4m3fn
from ._numpy.scalar_types import float8_e4m3fnuz as float8_e4m3fnuz
from ._numpy.scalar_types import float8_e5m2 as float8_e5m2
from ._numpy.scalar_types import float8_e5m2fnuz as float8_e5m2fnuz
from ._numpy.scalar_types import float8_e8m0fnu as float8_e8m0fnu

__all__ += [  # (issue 29, item 7, float8)
    "float4_e2m1fn", "float8_e3m4", "float8_e4m3", "float8_e4m3b11fnuz", "float8_e4m3fn",
    "float8_e4m3fnuz", "float8_e5m2", "float8_e5m2fnuz", "float8_e8m0fnu",
]


# -- the array API standard (2024.12) namespace, as jax.numpy (issue 31): _numpy/array_api.py --
from ._numpy.array_api import __array_api_version__ as __array_api_version__
from ._numpy.array_api import __array_namespace_info__ as __array_namespace_info__
from ._numpy.array_api import from_dlpack as from_dlpack

__all__ += ["from_dlpack"]

# ``tnp.bool``: the array API's and jax.numpy's name for ``bool_`` (a face
# defines no functions, so binding the builtin's name here shadows nothing).
from ._numpy.scalar_types import bool_ as bool

# An array's operators and methods (``x + y``, ``x.sum()``, ``x[idx]``, ``x.at``) are this
# module's functions: the numpy layer installs them into the core, as jax.numpy does.
import sys as _sys  # noqa: E402
from ._numpy.array_methods import install_array_methods as _install_array_methods  # noqa: E402

_install_array_methods(_sys.modules[__name__])
