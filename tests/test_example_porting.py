"""``examples/porting.py`` (part of ``make demo``) prints what JAX prints for
the same program: float32 kept beside Python scalars, the custom JVP's stable
derivative, JAX's Poisson counts, JAX's typed keys and their jaxpr."""

from __future__ import annotations

import io
from contextlib import redirect_stdout

import jax
import numpy as np

from examples import porting

jax.config.update("jax_enable_x64", True)  # type: ignore[no-untyped-call]  # jax's config is untyped


def test_the_porting_example_prints_jax_s_answers() -> None:
    out = io.StringIO()
    with redirect_stdout(out):
        porting.main()
    text = out.getvalue()
    assert "w * scale: float32 | w / math.sqrt(4): float32" in text
    assert "jit(step)(w_f32, 0.1): float32" in text
    assert "grad(log1pexp)(100.): 1.0 | jit: 1.0" in text
    assert "Array(0.07065082, dtype=float64, weak_type=True)" in text
    counts = np.asarray(jax.random.poisson(jax.random.PRNGKey(42), 3.0, (8,)))
    assert str(counts) in text
    keys = jax.random.split(jax.random.key(0), 3)
    assert repr(keys[0]) in text  # Array((), dtype=key<fry>) overlaying: its words
    assert f"one normal per key: {jax.vmap(jax.random.normal)(keys)}" in text
    for piece in ("a:key<fry>[]", "random_split [ shape=(2,) ]", "random_fold_in", "random_bits [ bit_width=32, shape=(2,) ]"):
        assert piece in text
