"""The larger part of ``typedax.numpy``, one module per kind of function.

Each module composes ``lax`` functions and ``typedax.numpy``'s helpers;
``typedax/numpy.py`` re-exports the public names. ``typedax.numpy`` imports
these modules, so they import it inside their functions (never at module
level: that would be an import cycle, ``tests/test_layers.py``).
"""
