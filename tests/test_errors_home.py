"""Every library exception class is defined in ``typedax.core.errors`` (and
re-exported where users meet it), so there is one place to find them."""

from __future__ import annotations

import ast
from pathlib import Path

import typedax
from typedax.core import errors

SRC = Path(typedax.__file__).parent


def test_exception_classes_are_defined_in_core_errors() -> None:
    elsewhere = []
    for path in SRC.rglob("*.py"):
        if path == SRC / "core" / "errors.py":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ClassDef) and any(
                isinstance(b, ast.Name) and (b.id.endswith("Error") or b.id == "Exception") for b in node.bases
            ):
                elsewhere.append(f"{path.relative_to(SRC)}: {node.name}")
    assert not elsewhere, f"exception classes outside core/errors.py: {elsewhere}"


def test_every_library_error_is_a_typedax_error() -> None:
    classes = [v for v in vars(errors).values() if isinstance(v, type) and issubclass(v, Exception)]
    assert len(classes) > 10
    assert all(issubclass(c, errors.TypedaxError) for c in classes)
