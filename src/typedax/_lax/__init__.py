"""The ``lax`` layer's implementation (``typedax.lax`` is its face, and only
re-exports): ``lax`` (the base: one primitive per function, and
``reduce_window``), ``extra`` (the compositions of ``jax.lax`` that are not
primitives, built on ``lax``) and ``linalg`` (``typedax.lax.linalg``'s
decompositions). Each imports only the layers below it (core, primitives,
interpreters, control flow, lowering) and the modules of this package listed
before it."""
