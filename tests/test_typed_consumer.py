"""A strictly typed codebase can use typedax: ``mypy --strict`` (with the
repo's mypy.ini, plus ``--disallow-any-expr`` so no ``Any`` leaks out of the
API) accepts ``typed_consumer/consumer_ok.py`` and reports each deliberate
mistake in ``typed_consumer/consumer_bad_must_fail.py``. One mypy run."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
from mypy import api

HERE = Path(__file__).parent
OK = HERE / "typed_consumer" / "consumer_ok.py"
BAD = HERE / "typed_consumer" / "consumer_bad_must_fail.py"
CONFIG = HERE.parent / "mypy.ini"


@pytest.fixture(scope="module")
def mypy_errors() -> list[tuple[str, int, str]]:
    """(file name, line, message) of each error mypy reports on both files."""
    # mypy's main raises the process's recursion limit (to 2**14) and leaves
    # it so: restored, or later tests in this worker see another limit (the
    # too-deep pytree tests of test_audit2_pytrees stop raising)
    limit = sys.getrecursionlimit()
    try:
        stdout, stderr, status = api.run(
            [
                "--config-file", str(CONFIG), "--strict", "--disallow-any-expr",
                "--no-error-summary", "--show-error-codes", str(OK), str(BAD),
            ]
        )
    finally:
        sys.setrecursionlimit(limit)
    assert status in (0, 1), stdout + stderr  # 2 would be a crash or a bad command line
    errors = []
    for line in stdout.splitlines():
        m = re.match(r"(.*?):(\d+): error: (.*)", line)
        if m:
            errors.append((Path(m.group(1)).name, int(m.group(2)), m.group(3)))
    return errors


@pytest.mark.first
def test_consumer_passes_strict_with_no_any(mypy_errors: list[tuple[str, int, str]]) -> None:
    assert [e for e in mypy_errors if e[0] == OK.name] == []


def test_consumer_runs() -> None:
    import runpy

    runpy.run_path(str(OK))


def test_each_deliberate_mistake_is_reported(mypy_errors: list[tuple[str, int, str]]) -> None:
    marked = [
        i for i, line in enumerate(BAD.read_text().splitlines(), start=1) if "# error:" in line
    ]
    reported = sorted({line for name, line, _ in mypy_errors if name == BAD.name})
    assert reported == marked, mypy_errors
    messages = " ".join(msg for name, _, msg in mypy_errors if name == BAD.name)
    assert 'expression has type "Jaxpr", variable has type "str"' in messages
    assert 'Argument 1 to "eval_jaxpr" has incompatible type "str"; expected "Jaxpr | ClosedJaxpr"' in messages
    assert 'Argument 1 to "parse_jaxpr" has incompatible type "Jaxpr"; expected "str"' in messages
    assert "Too many arguments" in messages
