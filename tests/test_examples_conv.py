"""The convolution examples run: ``examples/convolutions.py`` prints the
shapes and dimension numbers JAX's notebook prints (figures off, so neither
matplotlib nor a display is needed), and ``examples/cnn_digits.py`` says how
to install the demo extra when scikit-learn is missing."""

from __future__ import annotations

import builtins
from pathlib import Path
from typing import Any

import pytest

from examples import cnn_digits, convolutions

NOTEBOOK_LINES = [
    "out shape:  (1, 3, 200, 198)",
    "out shape:  (1, 3, 202, 200)",
    "ConvDimensionNumbers(lhs_spec=(0, 3, 1, 2), rhs_spec=(3, 2, 0, 1), out_spec=(0, 3, 1, 2))",
    "out shape:  (1, 200, 198, 3)",
    "out shape:  (1, 198, 196, 3) DIFFERENT from above!",
    "out shape:  (1, 100, 99, 3)  <-- half the size of above",
    "out shape:  (1, 176, 174, 3)",
    "out shape:  (1, 397, 393, 3) <-- larger than original!",
    "out shape:  (1, 400, 396, 3) <-- transposed_conv",
    "in shapes: (1, 200, 2) (3, 2, 2)",
    "ConvDimensionNumbers(lhs_spec=(0, 2, 1), rhs_spec=(2, 1, 0), out_spec=(0, 2, 1))",
    "out shape:  (1, 200, 2)",
    "in shapes: (1, 30, 30, 30, 1) (3, 3, 3, 1, 1)",
    "ConvDimensionNumbers(lhs_spec=(0, 4, 1, 2, 3), rhs_spec=(4, 3, 0, 1, 2), out_spec=(0, 4, 1, 2, 3))",
    "out shape:  (1, 30, 30, 30, 1)",
]


def test_the_convolutions_example_prints_what_the_notebook_prints(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    convolutions.main(figures=False, out_dir=tmp_path)
    lines = capsys.readouterr().out.splitlines()
    at = 0
    for want in NOTEBOOK_LINES:  # in the notebook's order
        assert want in lines[at:], f"missing (in order): {want!r}"
        at = lines.index(want, at) + 1
    assert not list(tmp_path.iterdir()), "figures=False must write nothing"


def test_the_cnn_example_explains_a_missing_scikit_learn(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    real_import = builtins.__import__

    def no_sklearn(name: str, *args: Any, **kwargs: Any) -> Any:
        if name == "sklearn" or name.startswith("sklearn."):
            raise ImportError(f"No module named {name!r}")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_sklearn)
    cnn_digits.main()
    out = capsys.readouterr().out
    assert "scikit-learn" in out and ".[demo]" in out
