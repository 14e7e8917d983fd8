"""A downstream package written as a careful team writes a JAX program, with
``typedax`` in place of ``jax``: annotated with the one array type
``tdx.Array``, operators instead of function chains, and no ``cast``,
``# type: ignore`` or ``Any`` anywhere. It must pass ``mypy --strict``
(``tests/test_typed_downstream.py`` runs mypy on it, and imports and runs it).
"""
