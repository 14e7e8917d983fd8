"""The first-order primitive families, lowest first: ``structural`` (linear
shape ops), ``elementwise``, ``reductions``, ``dot``. Each module defines its
primitives with every rule and exports a ``FAMILY``."""

from .elementwise import abs_p as abs_p
from .elementwise import ceil_p as ceil_p
from .elementwise import clamp_p as clamp_p
from .elementwise import floor_p as floor_p
from .elementwise import add_p as add_p
from .elementwise import convert_element_type_p as convert_element_type_p
from .elementwise import cos_p as cos_p
from .elementwise import div_p as div_p
from .elementwise import eq_p as eq_p
from .elementwise import exp_p as exp_p
from .elementwise import ge_p as ge_p
from .elementwise import greater_p as greater_p
from .elementwise import integer_pow_p as integer_pow_p
from .elementwise import le_p as le_p
from .elementwise import less_p as less_p
from .elementwise import log_p as log_p
from .elementwise import logistic_p as logistic_p
from .elementwise import max_p as max_p
from .elementwise import min_p as min_p
from .elementwise import mul_p as mul_p
from .elementwise import ne_p as ne_p
from .elementwise import neg_p as neg_p
from .elementwise import pow_p as pow_p
from .elementwise import rem_p as rem_p
from .elementwise import select_n_p as select_n_p
from .elementwise import sin_p as sin_p
from .elementwise import sqrt_p as sqrt_p
from .elementwise import sub_p as sub_p
from .elementwise import tanh_p as tanh_p
from .structural import broadcast_p as broadcast_p
from .dot import dot_general_p as dot_general_p
from .reductions import reduce_max_p as reduce_max_p
from .reductions import reduce_min_p as reduce_min_p
from .structural import reduce_sum_p as reduce_sum_p
from .structural import reshape_p as reshape_p
from .structural import transpose_p as transpose_p
from .slicing import dynamic_slice_p as dynamic_slice_p
from .slicing import dynamic_update_slice_p as dynamic_update_slice_p
from .slicing import slice_p as slice_p
from .shaping import concatenate_p as concatenate_p
from .shaping import iota_p as iota_p
from .shaping import pad_p as pad_p
from .shaping import rev_p as rev_p
from .shaping import squeeze_p as squeeze_p
