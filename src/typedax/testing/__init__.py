"""Hypothesis strategies that generate well-typed jaxprs (and arguments that
keep their evaluation finite), so users can property-test their own
transformations::

    from hypothesis import given
    from typedax.testing import jaxprs_with_args

    @given(jaxprs_with_args(max_eqns=6))
    def test_my_transform(case):
        jaxpr, args = case
        ...
"""

from ._env import INPUT_RANGES as INPUT_RANGES
from ._interval import Interval as Interval
from ._laws import assert_roundtrips as assert_roundtrips
from ._strategies import FIRST_ORDER_PRIMITIVES as FIRST_ORDER_PRIMITIVES
from ._strategies import args_for as args_for
from ._strategies import avals as avals
from ._strategies import covered_primitives as covered_primitives
from ._strategies import dtypes as dtypes
from ._strategies import jaxprs as jaxprs
from ._strategies import jaxprs_with_args as jaxprs_with_args
from ._strategies import shapes as shapes
from ._strategies import values as values

__all__ = [
    "FIRST_ORDER_PRIMITIVES", "INPUT_RANGES", "Interval", "args_for", "assert_roundtrips", "avals",
    "covered_primitives", "dtypes", "jaxprs", "jaxprs_with_args", "shapes", "values",
]
