"""Hypothesis profiles.

- ``ci`` (``make test``): 25 examples per property (lowered from 200, then 60,
  then 40, as the suite grew, to keep ``make test`` under 10 minutes on 2 cores:
  9 min 22 s of tests at 60 examples on 2026-11-26, 9 min 58 s at 40 after the
  third session's ~630 new tests), *derandomized*: the
  examples are a function of the test alone, so a clean clone runs exactly
  what was run before it was submitted, and a failure reproduces anywhere.
- ``long`` (``make test-long``): 1,000 fresh random examples per property;
  run it to look for new counterexamples (each one found becomes a
  regression test).
- ``dev`` (the default): 50 random examples, for quick local runs.

A property whose every example compiles with XLA or runs JAX eagerly may run
fewer examples under ``ci`` alone: ``tests/_examples.py``'s ``ci_examples``.
"""

import importlib.metadata
import os
import tomllib
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci", max_examples=25, deadline=None, derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile(
    "long", max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile(
    "dev", max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))


@pytest.fixture
def x64_off() -> Iterator[None]:
    """Both libraries with x64 off for the test (restored after): typedax's
    and JAX's 32-bit mode. Imported here, when a test asks for it."""
    import jax

    import typedax as tdx

    jax.config.update("jax_enable_x64", False)  # type: ignore[no-untyped-call]  # jax's config is untyped
    tdx.config.update("jax_enable_x64", False)
    try:
        yield
    finally:
        tdx.config.update("jax_enable_x64", True)
        jax.config.update("jax_enable_x64", True)  # type: ignore[no-untyped-call]  # as above


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "first: a long test run in a process of its own; the suite starts with these, so "
        "that at the end no pytest worker waits alone on one (make test's wall time)",
    )
    config.addinivalue_line(
        "markers",
        "pinned_jax: compares with the surface of the JAX version pyproject.toml pins (its "
        "public names, primitive names, messages, default dtypes, lowerings), which other JAX "
        "versions change: skipped, naming both versions, where another JAX is installed "
        "(a GPU machine's)",
    )


def pinned_jax() -> str:
    """The JAX version the oracles are pinned to (pyproject.toml's ``bench``
    extra, ``jax==X``)."""
    with open(os.path.join(os.path.dirname(__file__), "..", "pyproject.toml"), "rb") as f:
        pins = tomllib.load(f)["project"]["optional-dependencies"]["bench"]
    (pin,) = [str(p) for p in pins if str(p).startswith("jax==")]
    return pin.split("==", 1)[1]


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The ``first`` tests at the front of the run (pytest-xdist hands each
    worker a contiguous share of this order and steals from its end); the
    ``pinned_jax`` tests skipped where the installed JAX is not the pinned one."""
    items.sort(key=lambda item: item.get_closest_marker("first") is None)
    pinned, installed = pinned_jax(), importlib.metadata.version("jax")
    if installed != pinned:
        skip = pytest.mark.skip(reason=f"compares with JAX {pinned}'s surface; JAX {installed} is installed")
        for item in items:
            if item.get_closest_marker("pinned_jax") is not None:
                item.add_marker(skip)
