"""typedax.testing.assert_roundtrips accepts good jaxprs and rejects bad ones."""

import numpy as np
import pytest

import typedax as tdx
from typedax.core import Eqn, Jaxpr, JaxprTypeError, ShapedArray, Var
from typedax.primitives import sin_p
from typedax.testing import assert_roundtrips
from pyrsistent import pmap


def test_accepts_a_staged_jaxpr() -> None:
    assert_roundtrips(tdx.make_jaxpr(lambda x: tdx.numpy.sum(tdx.numpy.sin(x)))(np.ones(3)).jaxpr)


def test_rejects_an_ill_typed_jaxpr() -> None:
    x = Var(ShapedArray((3,), np.dtype(np.float64)))
    wrong = Var(ShapedArray((2,), np.dtype(np.float64)))
    bad = Jaxpr((x,), (Eqn(sin_p, (x,), pmap(), (wrong,)),), (wrong,))
    with pytest.raises(JaxprTypeError, match="sin"):
        assert_roundtrips(bad)
