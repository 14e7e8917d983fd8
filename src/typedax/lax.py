"""Primitive-level operations, named and shaped like ``jax.lax``.

Operands of binary operations must share shape and dtype; a Python scalar
takes the dtype of the array operand (weak typing), so ``lax.mul(x_f32, 2.0)``
stays float32. For NumPy-style broadcasting and promotion use
``typedax.numpy``.

A face: it defines nothing, and re-exports the ``lax`` layer
(``typedax._lax``) and the functions defined beside their primitives and in
``typedax.control_flow``, as ``jax/lax/__init__.py`` does.
"""

from . import lax_linalg as linalg  # typedax.lax.linalg, as jax.lax.linalg

# the base: one primitive per function, and reduce_window (_lax/lax.py)
from ._lax.lax import abs as abs  # noqa: A004 - jax.lax's name
from ._lax.lax import acos as acos
from ._lax.lax import acosh as acosh
from ._lax.lax import add as add
from ._lax.lax import asin as asin
from ._lax.lax import asinh as asinh
from ._lax.lax import atan as atan
from ._lax.lax import atan2 as atan2
from ._lax.lax import atanh as atanh
from ._lax.lax import bitcast_convert_type as bitcast_convert_type
from ._lax.lax import bitwise_and as bitwise_and
from ._lax.lax import bitwise_not as bitwise_not
from ._lax.lax import bitwise_or as bitwise_or
from ._lax.lax import bitwise_xor as bitwise_xor
from ._lax.lax import broadcast as broadcast
from ._lax.lax import broadcast_in_dim as broadcast_in_dim
from ._lax.lax import ceil as ceil
from ._lax.lax import convert_element_type as convert_element_type
from ._lax.lax import cos as cos
from ._lax.lax import cosh as cosh
from ._lax.lax import digamma as digamma
from ._lax.lax import div as div
from ._lax.lax import dot as dot
from ._lax.lax import dot_general as dot_general
from ._lax.lax import eq as eq
from ._lax.lax import erf as erf
from ._lax.lax import erf_inv as erf_inv
from ._lax.lax import erfc as erfc
from ._lax.lax import exp as exp
from ._lax.lax import exp2 as exp2
from ._lax.lax import expm1 as expm1
from ._lax.lax import floor as floor
from ._lax.lax import ge as ge
from ._lax.lax import gt as gt
from ._lax.lax import integer_pow as integer_pow
from ._lax.lax import is_finite as is_finite
from ._lax.lax import le as le
from ._lax.lax import lgamma as lgamma
from ._lax.lax import log as log
from ._lax.lax import log1p as log1p
from ._lax.lax import logistic as logistic
from ._lax.lax import lt as lt
from ._lax.lax import max as max  # noqa: A004 - jax.lax's name
from ._lax.lax import min as min  # noqa: A004 - jax.lax's name
from ._lax.lax import mul as mul
from ._lax.lax import ne as ne
from ._lax.lax import neg as neg
from ._lax.lax import nextafter as nextafter
from ._lax.lax import population_count as population_count
from ._lax.lax import pow as pow  # noqa: A004 - jax.lax's name
from ._lax.lax import reduce_max as reduce_max
from ._lax.lax import reduce_min as reduce_min
from ._lax.lax import reduce_precision as reduce_precision
from ._lax.lax import reduce_sum as reduce_sum
from ._lax.lax import reduce_window as reduce_window
from ._lax.lax import rem as rem
from ._lax.lax import reshape as reshape
from ._lax.lax import round as round  # noqa: A004 - jax.lax's name
from ._lax.lax import select as select
from ._lax.lax import select_n as select_n
from ._lax.lax import shift_left as shift_left
from ._lax.lax import shift_right_arithmetic as shift_right_arithmetic
from ._lax.lax import shift_right_logical as shift_right_logical
from ._lax.lax import sign as sign
from ._lax.lax import real as real
from ._lax.lax import imag as imag
from ._lax.lax import conj as conj
from ._lax.lax import complex as complex  # noqa: A004 - jax.lax's name
from ._lax.lax import sin as sin
from ._lax.lax import sinh as sinh
from ._lax.lax import sqrt as sqrt
from ._lax.lax import stop_gradient as stop_gradient
from ._lax.lax import sub as sub
from ._lax.lax import tan as tan
from ._lax.lax import tanh as tanh
from ._lax.lax import transpose as transpose

# compositions: element-wise conveniences, builders, scatter/gather conveniences, reduce (_lax/extra.py)
from ._lax.extra import batch_matmul as batch_matmul
from ._lax.extra import broadcast_like as broadcast_like
from ._lax.extra import broadcast_shapes as broadcast_shapes
from ._lax.extra import broadcast_to_rank as broadcast_to_rank
from ._lax.extra import cbrt as cbrt
from ._lax.extra import collapse as collapse
from ._lax.extra import dtype as dtype
from ._lax.extra import empty as empty
from ._lax.extra import full as full
from ._lax.extra import full_like as full_like
from ._lax.extra import index_take as index_take
from ._lax.extra import reciprocal as reciprocal
from ._lax.extra import reduce as reduce
from ._lax.extra import reduce_xor as reduce_xor
from ._lax.extra import rsqrt as rsqrt
from ._lax.extra import scatter_apply as scatter_apply
from ._lax.extra import scatter_sub as scatter_sub
from ._lax.extra import split as split
from ._lax.extra import square as square
from ._lax.extra import stack as stack
from ._lax.extra import tile as tile
from ._lax.extra import unstack as unstack

# control flow, under jax.lax's names (control_flow/)
from .control_flow import cond as cond
from .control_flow import fori_loop as fori_loop
from .control_flow import scan as scan
from .control_flow import while_loop as while_loop
from .control_flow.associative import associative_scan as associative_scan
from .control_flow.maps import map as map  # noqa: A004 - jax.lax's name
from .control_flow.switches import switch as switch

# the primitives (primitives/)
from .primitives import abs_p as abs_p
from .primitives import add_p as add_p
from .primitives import broadcast_p as broadcast_p
from .primitives import ceil_p as ceil_p
from .primitives import convert_element_type_p as convert_element_type_p
from .primitives import cos_p as cos_p
from .primitives import div_p as div_p
from .primitives import dot_general_p as dot_general_p
from .primitives import eq_p as eq_p
from .primitives import exp_p as exp_p
from .primitives import floor_p as floor_p
from .primitives import ge_p as ge_p
from .primitives import greater_p as greater_p
from .primitives import integer_pow_p as integer_pow_p
from .primitives import le_p as le_p
from .primitives import less_p as less_p
from .primitives import log_p as log_p
from .primitives import logistic_p as logistic_p
from .primitives import max_p as max_p
from .primitives import min_p as min_p
from .primitives import mul_p as mul_p
from .primitives import ne_p as ne_p
from .primitives import neg_p as neg_p
from .primitives import pow_p as pow_p
from .primitives import reduce_max_p as reduce_max_p
from .primitives import reduce_min_p as reduce_min_p
from .primitives import reduce_sum_p as reduce_sum_p
from .primitives import rem_p as rem_p
from .primitives import reshape_p as reshape_p
from .primitives import select_n_p as select_n_p
from .primitives import sin_p as sin_p
from .primitives import sqrt_p as sqrt_p
from .primitives import sub_p as sub_p
from .primitives import tanh_p as tanh_p
from .primitives import transpose_p as transpose_p
from .primitives.bitcast import bitcast_convert_type_p as bitcast_convert_type_p
from .primitives.bitcast import reduce_precision_p as reduce_precision_p
from .primitives.elementwise import clamp as clamp
from .primitives.elementwise import stop_gradient_p as stop_gradient_p

# slicing and shaping, defined beside their primitives
from .primitives.shaping import broadcasted_iota as broadcasted_iota
from .primitives.shaping import concatenate as concatenate
from .primitives.shaping import expand_dims as expand_dims
from .primitives.shaping import iota as iota
from .primitives.slicing import pad as pad
from .primitives.shaping import rev as rev
from .primitives.shaping import squeeze as squeeze
from .primitives.dynamic_slicing import dynamic_index_in_dim as dynamic_index_in_dim
from .primitives.dynamic_slicing import dynamic_slice as dynamic_slice
from .primitives.dynamic_slicing import dynamic_slice_in_dim as dynamic_slice_in_dim
from .primitives.dynamic_slicing import dynamic_update_index_in_dim as dynamic_update_index_in_dim
from .primitives.dynamic_slicing import dynamic_update_slice as dynamic_update_slice
from .primitives.dynamic_slicing import dynamic_update_slice_in_dim as dynamic_update_slice_in_dim
from .primitives.dynamic_slicing import index_in_dim as index_in_dim
from .primitives.slicing import slice as slice  # noqa: A004 - jax.lax's name
from .primitives.slicing import slice_in_dim as slice_in_dim

# gather and scatter
from .primitives.gather_scatter import gather as gather
from .primitives.gather_scatter import GatherDimensionNumbers as GatherDimensionNumbers
from .primitives.gather_scatter import GatherScatterMode as GatherScatterMode
from .primitives.gather_scatter import scatter as scatter
from .primitives.gather_scatter import scatter_add as scatter_add
from .primitives.gather_scatter import scatter_max as scatter_max
from .primitives.gather_scatter import scatter_min as scatter_min
from .primitives.gather_scatter import scatter_mul as scatter_mul
from .primitives.gather_scatter import ScatterDimensionNumbers as ScatterDimensionNumbers

# reductions, cumulative reductions, sorting, the PRNG's block cipher
from .primitives.reductions import argmax as argmax
from .primitives.reductions import argmin as argmin
from .primitives.reductions import reduce_and as reduce_and
from .primitives.reductions import reduce_or as reduce_or
from .primitives.reductions import reduce_prod as reduce_prod
from .primitives.cumulative import cumlogsumexp as cumlogsumexp
from .primitives.cumulative import cummax as cummax
from .primitives.cumulative import cummin as cummin
from .primitives.cumulative import cumprod as cumprod
from .primitives.cumulative import cumsum as cumsum
from .primitives.sorting import sort as sort
from .primitives.sorting import sort_key_val as sort_key_val
from .primitives.sorting import top_k as top_k
from .primitives.prng import threefry2x32 as threefry2x32

# special functions
from .primitives.special import RoundingMethod as RoundingMethod
# lax special functions (issue 29 item 7: _lax/special.py)
from ._lax.special import bessel_i0e as bessel_i0e
from ._lax.special import bessel_i1e as bessel_i1e
from ._lax.special import betainc as betainc
from ._lax.special import igamma as igamma
from ._lax.special import igamma_grad_a as igamma_grad_a
from ._lax.special import igammac as igammac
from ._lax.special import polygamma as polygamma
from ._lax.special import zeta as zeta
# issue 29 item 7: clz, optimization_barrier, rng_bit_generator
from ._lax.lax import clz as clz
from .primitives.optimization_barrier import optimization_barrier as optimization_barrier
from .primitives.rng_bit_generator import RandomAlgorithm as RandomAlgorithm
from .primitives.rng_bit_generator import rng_bit_generator as rng_bit_generator
from .control_flow.solves import custom_linear_solve as custom_linear_solve
from .control_flow.solves import custom_root as custom_root

# fft (primitives/fft.py)
from .primitives.fft import fft as fft
from .primitives.fft import FftType as FftType
# convolution
from .primitives.convolution import conv as conv
from .primitives.convolution import conv_dimension_numbers as conv_dimension_numbers
from .primitives.convolution import conv_general_dilated as conv_general_dilated
from .primitives.convolution import conv_general_dilated_patches as conv_general_dilated_patches
from .primitives.convolution import conv_general_permutations as conv_general_permutations
from .primitives.convolution import conv_general_shape_tuple as conv_general_shape_tuple
from .primitives.convolution import conv_shape_tuple as conv_shape_tuple
from .primitives.convolution import conv_transpose as conv_transpose
from .primitives.convolution import conv_transpose_shape_tuple as conv_transpose_shape_tuple
from .primitives.convolution import conv_with_general_padding as conv_with_general_padding
from .primitives.convolution import ConvDimensionNumbers as ConvDimensionNumbers
from .primitives.convolution import ConvGeneralDilatedDimensionNumbers as ConvGeneralDilatedDimensionNumbers
from .primitives.convolution import padtype_to_pads as padtype_to_pads
from .primitives.convolution import Precision as Precision

# collectives and sharding
from .primitives.collectives import all_gather as all_gather
from .primitives.collectives import all_to_all as all_to_all
from .primitives.collectives import axis_index as axis_index
from .primitives.collectives import axis_size as axis_size
from .primitives.collectives import pmax as pmax
from .primitives.collectives import pmean as pmean
from .primitives.collectives import pmin as pmin
from .primitives.collectives import ppermute as ppermute
from .primitives.collectives import psum as psum
from .primitives.collectives import psum_scatter as psum_scatter
from .lowering.sharding import with_sharding_constraint as with_sharding_constraint

__all__ = [
    "abs", "add", "broadcast", "broadcast_in_dim", "ceil", "convert_element_type", "cos", "div",
    "dot", "dot_general", "eq", "exp", "floor", "ge", "gt", "integer_pow", "le", "log",
    "logistic", "lt", "max", "min", "mul", "ne", "neg", "pow", "reduce_max", "reduce_min",
    "reduce_sum", "rem", "reshape",
    "select", "select_n", "sin", "sqrt", "sub", "tanh", "transpose",
    # slicing and shaping (defined in primitives/slicing.py, shaping.py; clamp in elementwise.py)
    "broadcasted_iota", "clamp", "concatenate", "dynamic_index_in_dim", "dynamic_slice",
    "dynamic_slice_in_dim", "dynamic_update_index_in_dim", "dynamic_update_slice",
    "dynamic_update_slice_in_dim", "expand_dims", "index_in_dim", "iota", "pad", "rev", "slice",
    "slice_in_dim", "squeeze",
    # gather and scatter (primitives/gather_scatter.py)
    "GatherDimensionNumbers", "GatherScatterMode", "ScatterDimensionNumbers", "gather", "scatter",
    "scatter_add", "scatter_max", "scatter_min", "scatter_mul",
    # windowed reductions (primitives/windowed.py)
    "reduce_window",
    # reductions, cumulative reductions, sorting (primitives/reductions.py, cumulative.py, sorting.py)
    "argmax", "argmin", "cumlogsumexp", "cummax", "cummin", "cumprod", "cumsum", "reduce_and",
    "reduce_or", "reduce_prod", "sort", "sort_key_val", "top_k",
    # the PRNG's block cipher (primitives/prng.py)
    "threefry2x32",
    # special functions and bitwise operations (primitives/special.py, bitwise.py)
    "RoundingMethod", "acos", "acosh", "asin", "asinh", "atan", "atan2", "atanh", "bitwise_and", "bitcast_convert_type", "reduce_precision", "stop_gradient",
    "bitwise_not", "bitwise_or", "bitwise_xor", "cosh", "digamma", "erf", "erf_inv", "erfc",
    "exp2", "expm1", "is_finite", "lgamma", "log1p", "nextafter", "population_count", "round",
    "shift_left", "shift_right_arithmetic", "shift_right_logical", "sign", "real", "imag", "conj", "complex", "sinh", "tan",
    # lax special functions (issue 29 item 7: _lax/special.py)
    "bessel_i0e", "bessel_i1e", "betainc", "igamma", "igamma_grad_a", "igammac", "polygamma", "zeta",
    # issue 29 item 7: clz, optimization_barrier, rng_bit_generator
    "RandomAlgorithm", "clz", "optimization_barrier", "rng_bit_generator",
    "custom_linear_solve", "custom_root",
    # fft (primitives/fft.py)
    "FftType", "fft",
    # convolution (primitives/convolution.py)
    "ConvDimensionNumbers", "ConvGeneralDilatedDimensionNumbers", "Precision", "conv",
    "conv_dimension_numbers", "conv_general_dilated", "conv_transpose", "conv_with_general_padding",
    "padtype_to_pads", "conv_general_dilated_patches", "conv_general_permutations",
    "conv_general_shape_tuple", "conv_shape_tuple", "conv_transpose_shape_tuple",
    # control flow built on cond and scan (control_flow/switches.py, maps.py, associative.py)
    "associative_scan", "map", "switch",
    # compositions (_lax_extra.py)
    "batch_matmul", "broadcast_like", "broadcast_shapes", "broadcast_to_rank", "cbrt", "collapse", "dtype",
    "empty", "full", "full_like", "index_take", "reciprocal", "reduce", "reduce_xor", "rsqrt", "scatter_apply",
    "scatter_sub", "split", "square", "stack", "tile", "unstack",
    # control flow (control_flow/)
    "cond", "fori_loop", "scan", "while_loop",
    # collectives and sharding (primitives/collectives.py, lowering/sharding.py)
    "all_gather", "all_to_all", "axis_index", "axis_size", "pmax", "pmean", "pmin", "ppermute", "psum",
    "psum_scatter", "with_sharding_constraint",
    # jax.lax.linalg
    "linalg",
    # the primitives
    "abs_p", "add_p", "bitcast_convert_type_p", "broadcast_p", "ceil_p", "convert_element_type_p", "cos_p",
    "div_p", "dot_general_p", "eq_p", "exp_p", "floor_p", "ge_p", "greater_p", "integer_pow_p", "le_p",
    "less_p", "log_p", "logistic_p", "max_p", "min_p", "mul_p", "ne_p", "neg_p", "pow_p", "reduce_max_p",
    "reduce_min_p", "reduce_precision_p", "reduce_sum_p", "rem_p", "reshape_p", "select_n_p", "sin_p",
    "sqrt_p", "stop_gradient_p", "sub_p", "tanh_p", "transpose_p",
]
