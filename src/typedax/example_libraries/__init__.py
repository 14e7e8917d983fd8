"""``typedax.example_libraries`` (``jax.example_libraries``): ``optimizers``
(Adam, momentum, SM3, ... as ``(init_fn, update_fn, params_fn)`` triples)
and ``stax`` (neural-network layers as ``(init_fun, apply_fun)`` pairs),
with JAX's names, signatures and numbers.

As JAX's, these are small example libraries: programs written against
``jax.example_libraries`` port by changing their imports. Import the
modules themselves (``from typedax.example_libraries import optimizers,
stax``); this package imports nothing until then.
"""

from __future__ import annotations

__all__ = ["optimizers", "stax"]
