"""Side-by-side benchmarks of typedax and JAX (``python -m benchmarks``).

Not part of the test suite; JAX is installed only for these.
"""
