"""``typedax.scipy``: SciPy functions as ``jax.scipy`` has them (import the
submodules: ``typedax.scipy.special``, ``typedax.scipy.stats``,
``typedax.scipy.signal``)."""
