"""StableHLO building blocks for every family's lowering rule: an MLIR
context with the dialects, tensor types and constants of avals, the
``LoweringContext`` of a module under construction, and the interpreter that
lowers a jaxpr's equations through their primitives' ``lower`` rules (so
higher-order primitives lower their bodies with ``lower_jaxpr_body`` /
``call_jaxpr``). Imports only ``typedax.core`` and jaxlib's MLIR bindings."""

from ._mlir import HloValue as HloValue
from ._mlir import compare as compare
from ._mlir import compare_type as compare_type
from ._mlir import dtype_max as dtype_max
from ._mlir import dtype_min as dtype_min
from ._mlir import element_type as element_type
from ._mlir import full as full
from ._mlir import make_context as make_context
from ._mlir import reduce as reduce
from ._mlir import scalar_attr as scalar_attr
from ._mlir import tensor_type as tensor_type
from .context import LoweringContext as LoweringContext
from .interpret import call_jaxpr as call_jaxpr
from .interpret import lower_function as lower_function
from .interpret import lower_jaxpr_body as lower_jaxpr_body
