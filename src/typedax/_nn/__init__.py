"""``typedax.nn``'s implementation (``typedax/nn/__init__.py`` and
``typedax/nn/initializers.py`` are its faces and only re-export):
``functions`` (activations, ``softmax`` and their relatives), ``pooling``,
``attention`` (built on ``functions``) and ``initializers`` (built on
``typedax.random``). Each imports only the layers below it (core,
primitives, lowering, ``lax``, ``numpy``), the other libraries it names
(``typedax.random``, ``typedax.scipy.special``'s ``logsumexp``) and the
modules of this package listed before it."""
