"""typedax reads jaxlib's private API in one module, ``lowering/jaxlib_api.py``:
every name it lists exists in the installed jaxlib, and no other module of
the library imports a private jaxlib module."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

import typedax
from typedax.lowering import jaxlib_api

SRC = Path(typedax.__file__).parent
FACADE = SRC / "lowering" / "jaxlib_api.py"


@pytest.mark.parametrize("module, name", jaxlib_api.PRIVATE_NAMES)
def test_each_private_name_exists_in_the_installed_jaxlib(module: str, name: str) -> None:
    obj: object = importlib.import_module(module)
    for part in name.split("."):  # a method is named through its class
        assert hasattr(obj, part), f"{module}.{name} is gone: update {FACADE.name}"
        obj = getattr(obj, part)


def test_only_the_facade_imports_private_jaxlib_modules() -> None:
    offenders = []
    for path in SRC.rglob("*.py"):
        if path == FACADE:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            names: list[str] = []
            if isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            private = [n for n in names if n.startswith("jaxlib") and not n.startswith("jaxlib.mlir")]
            if private:
                offenders.append(f"{path.relative_to(SRC)}: {private}")
    assert not offenders, f"private jaxlib imports outside {FACADE.name}: {offenders}"


def test_result_handlers_work_with_the_installed_jaxlib() -> None:
    import numpy as np

    f = typedax.jit(lambda x: x * 2.0)
    np.testing.assert_array_equal(np.asarray(f(np.arange(3.0))), [0.0, 2.0, 4.0])


def test_cuda_discovery_names_both_plugin_packages() -> None:
    modules = [m for m, _ in jaxlib_api.CUDA_PLUGINS]
    assert modules == ["jax_plugins.xla_cuda13", "jax_plugins.xla_cuda12"]
