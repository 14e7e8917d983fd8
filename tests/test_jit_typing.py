"""``tdx.jit`` keeps the signature of the function it wraps: a strictly typed
consumer type-checks, and a call with a misspelled keyword is reported."""

from __future__ import annotations

from pathlib import Path

from mypy import api

HERE = Path(__file__).parent
OK = HERE / "typed_consumer" / "jit_consumer.py"
BAD = HERE / "typed_consumer" / "jit_wrong_keyword_must_fail.py"
CONFIG = HERE.parent / "mypy.ini"


def test_typed_consumer_passes_and_wrong_keyword_fails() -> None:
    stdout, stderr, status = api.run(
        ["--config-file", str(CONFIG), "--no-error-summary", "--show-error-codes", str(OK), str(BAD)]
    )
    lines = [line for line in stdout.splitlines() if ": error:" in line]
    assert status == 1, stdout + stderr
    assert not [line for line in lines if "jit_consumer.py" in line], stdout
    assert len(lines) == 1, stdout
    (error,) = lines
    assert "jit_wrong_keyword_must_fail.py:19" in error
    assert 'Unexpected keyword argument "factr"' in error and "[call-arg]" in error
