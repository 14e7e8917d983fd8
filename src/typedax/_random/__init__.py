"""``typedax.random``'s implementation (``typedax/random.py`` is its face and
only re-exports), one module per thing built, each importing only the layers
below (core, primitives, jit, ``lax``, ``numpy``, ``vmap``) and the modules
of this package listed before it: ``base`` (key types, argument checks,
shared numeric helpers), ``keys`` (seeds and the Threefry generator),
``samplers`` (uniform bits to floats), ``integers``, ``multivariate``,
``gamma`` and ``counts``."""
