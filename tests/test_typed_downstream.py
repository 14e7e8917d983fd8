"""The typed-downstream acceptance test (issue 10).

* ``tests/downstream/`` -- a program written as a careful team writes a JAX
  program, with typedax -- passes ``mypy --strict`` with no ``cast``,
  ``# type: ignore`` or ``Any`` in its source, and runs: its loss falls and
  its values match NumPy.
* ``tests/downstream_fail/mistakes.py`` holds one mistake per line through
  each transformation; mypy reports an error with the marked code on exactly
  the marked lines, and the set of (transformation, mistake) pairs caught is
  recorded here (``CAUGHT``), next to those the signatures let through
  (``NOT_CAUGHT``).
* mypy's ``reveal_type`` of a few expressions is recorded (``REVEALED``).

One mypy run per file, with the repo's ``mypy.ini`` plus ``--strict``, and
one cache directory shared by the runs.
"""

from __future__ import annotations

import io
import re
import subprocess
import sys
import tokenize
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest

import typedax as tdx
import typedax.numpy as tnp
from downstream import model
from downstream.model import Params

HERE = Path(__file__).parent
ROOT = HERE.parent
CONFIG = ROOT / "mypy.ini"
DOWNSTREAM = HERE / "downstream"
MISTAKES = HERE / "downstream_fail" / "mistakes.py"

F64 = npt.NDArray[np.float64]

_MESSAGE = re.compile(r"^(?P<path>.+?):(?P<line>\d+): (?P<kind>error|note): (?P<text>.*)$")
_CODE = re.compile(r"  \[(?P<code>[a-z-]+)\]$")


# -- running mypy -----------------------------------------------------------------
@pytest.fixture(scope="module")
def mypy_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One cache directory for every mypy run of this module (the first run
    analyses typedax and NumPy's stubs; the later ones reuse them)."""
    return tmp_path_factory.mktemp("mypy-cache")


class Message:
    def __init__(self, path: str, line: int, kind: str, text: str) -> None:
        self.path, self.line, self.kind, self.text = path, line, kind, text
        m = _CODE.search(text)
        self.code = m.group("code") if m else None

    def __repr__(self) -> str:
        return f"{Path(self.path).name}:{self.line}: {self.kind}: {self.text}"


def run_mypy(cache: Path, *targets: Path) -> list[Message]:
    """mypy's errors and notes on ``targets`` (``mypy.ini`` and ``--strict``)."""
    proc = subprocess.run(
        [
            sys.executable, "-m", "mypy", "--config-file", str(CONFIG), "--strict",
            "--cache-dir", str(cache), "--show-error-codes", "--no-error-summary",
            "--no-pretty", "--no-color-output", *(str(t) for t in targets),
        ],
        capture_output=True, text=True, cwd=ROOT, timeout=300, check=False,
    )
    assert proc.returncode in (0, 1), proc.stdout + proc.stderr  # 2: a crash or a bad command line
    out: list[Message] = []
    for text in proc.stdout.splitlines():
        m = _MESSAGE.match(text)
        if m:
            out.append(Message(m.group("path"), int(m.group("line")), m.group("kind"), m.group("text")))
    return out


# -- the downstream package type-checks ------------------------------------------------
def test_downstream_source_has_no_cast_ignore_or_any() -> None:
    found: list[str] = []
    for path in sorted(DOWNSTREAM.glob("*.py")):
        tokens = tokenize.generate_tokens(io.StringIO(path.read_text()).readline)
        for tok in tokens:
            if tok.type == tokenize.NAME and tok.string in ("Any", "cast"):
                found.append(f"{path.name}:{tok.start[0]}: {tok.string}")
            if tok.type == tokenize.COMMENT and re.search(r"type:\s*ignore", tok.string):
                found.append(f"{path.name}:{tok.start[0]}: {tok.string}")
    assert found == []


@pytest.mark.first
def test_downstream_passes_mypy_strict(mypy_cache: Path) -> None:
    errors = [m for m in run_mypy(mypy_cache, DOWNSTREAM) if m.kind == "error"]
    assert errors == []


# -- the downstream package runs --------------------------------------------------------
N, N_IN, N_HIDDEN, N_OUT = 64, 3, 16, 2


@pytest.fixture(scope="module")
def problem() -> tuple[Params, tdx.Array, tdx.Array]:
    x, y = model.make_data(N, N_IN, N_OUT)
    return model.init_params(N_IN, N_HIDDEN, N_OUT), x, y


def _np(p: Params) -> tuple[F64, F64, F64, F64]:
    return np.asarray(p.w1), np.asarray(p.b1), np.asarray(p.w2), np.asarray(p.b2)


def _np_gradients(p: Params, x: tdx.Array, y: tdx.Array) -> tuple[F64, tuple[F64, F64, F64, F64], F64]:
    """The loss, its gradients with respect to the parameters and to ``x``, by hand in NumPy."""
    w1, b1, w2, b2 = _np(p)
    xs, ys = np.asarray(x), np.asarray(y)
    h = np.tanh(xs @ w1 + b1)
    r = h @ w2 + b2 - ys
    d_out = 2.0 * r / r.size
    d_z = (d_out @ w2.T) * (1.0 - h**2)
    grads = (xs.T @ d_z, d_z.sum(0), h.T @ d_out, d_out.sum(0))
    return np.asarray(np.mean(r**2)), grads, d_z @ w1.T


def test_fit_lowers_the_loss(problem: tuple[Params, tdx.Array, tdx.Array]) -> None:
    params, x, y = problem
    trained, losses = model.fit(params, x, y, steps=60, lr=0.2)
    assert len(losses) == 60
    assert all(b < a for a, b in zip(losses, losses[1:]))
    assert losses[-1] < 0.5 * losses[0]
    assert isinstance(trained, Params)
    assert all(isinstance(a, tdx.Array) for a in trained)
    np.testing.assert_allclose(losses[0], _np_gradients(params, x, y)[0], rtol=1e-12)


def test_jit_value_and_grad_matches_numpy(problem: tuple[Params, tdx.Array, tdx.Array]) -> None:
    params, x, y = problem
    value, grads = model.loss_and_grad(params, x, y)
    want_value, want_grads, _ = _np_gradients(params, x, y)
    assert isinstance(value, tdx.Array)
    assert isinstance(grads, Params)
    np.testing.assert_allclose(np.asarray(value), want_value, rtol=1e-12)
    for got, want in zip(grads, want_grads):
        assert isinstance(got, tdx.Array)
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-9, atol=1e-12)


def test_scan_training_loop_matches_the_python_loop(problem: tuple[Params, tdx.Array, tdx.Array]) -> None:
    params, x, y = problem
    trained, losses = model.fit(params, x, y, steps=30, lr=0.2)
    scanned, scan_losses = model.fit_scan(params, x, y, tnp.full(30, 0.2))
    assert isinstance(scanned, Params)
    assert isinstance(scan_losses, tdx.Array)
    assert scan_losses.shape == (30,)
    np.testing.assert_allclose(np.asarray(scan_losses), losses, rtol=1e-9)
    for a, b in zip(scanned, trained):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-9, atol=1e-12)


def test_cond_clips_long_vectors_only() -> None:
    long, short = tnp.asarray(np.array([3.0, 4.0])), tnp.asarray(np.array([0.3, 0.4]))
    np.testing.assert_allclose(np.asarray(model.clip(long, 1.0)), [0.6, 0.8], rtol=1e-12)
    np.testing.assert_allclose(np.asarray(model.clip(short, 1.0)), [0.3, 0.4], rtol=1e-12)


def test_vmap_per_example_losses(problem: tuple[Params, tdx.Array, tdx.Array]) -> None:
    params, x, y = problem
    per = model.per_example_losses(params, x, y)
    w1, b1, w2, b2 = _np(params)
    want = np.sum((np.tanh(np.asarray(x) @ w1 + b1) @ w2 + b2 - np.asarray(y)) ** 2, axis=1)
    assert isinstance(per, tdx.Array)
    assert per.shape == (N,)
    np.testing.assert_allclose(np.asarray(per), want, rtol=1e-12)


def test_grad_with_argnums(problem: tuple[Params, tdx.Array, tdx.Array]) -> None:
    params, x, y = problem
    _, want_params, want_x = _np_gradients(params, x, y)
    gx = model.input_gradient(params, x, y)
    assert isinstance(gx, tdx.Array)
    assert gx.shape == (N, N_IN)
    np.testing.assert_allclose(np.asarray(gx), want_x, rtol=1e-9, atol=1e-14)
    g_params, g_x = model.both_gradients(params, x, y)
    assert isinstance(g_params, Params)
    np.testing.assert_allclose(np.asarray(g_x), want_x, rtol=1e-9, atol=1e-14)
    for got, want in zip(g_params, want_params):
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-9, atol=1e-12)


def test_jvp_vjp_jacobians_of_a_layer(problem: tuple[Params, tdx.Array, tdx.Array]) -> None:
    params, x, _ = problem
    w, b = params.w1, params.b1
    x0, v = x[0], x[1]
    wn, bn, x0n, vn = np.asarray(w), np.asarray(b), np.asarray(x0), np.asarray(v)
    out = np.tanh(x0n @ wn + bn)
    slope = 1.0 - out**2

    y, y_dot = model.layer_jvp(w, b, x0, v)
    assert isinstance(y, tdx.Array)
    assert isinstance(y_dot, tdx.Array)
    np.testing.assert_allclose(np.asarray(y), out, rtol=1e-12)
    np.testing.assert_allclose(np.asarray(y_dot), slope * (vn @ wn), rtol=1e-10, atol=1e-14)

    ct = np.linspace(-1.0, 1.0, N_HIDDEN)
    ct_x = model.layer_vjp(w, b, x0, tnp.asarray(ct))
    assert isinstance(ct_x, tdx.Array)
    np.testing.assert_allclose(np.asarray(ct_x), (slope * ct) @ wn.T, rtol=1e-10, atol=1e-14)

    j_fwd, j_rev = model.layer_jacobians(w, b, x0)
    want = slope[:, None] * wn.T  # d out_i / d x_j
    assert j_fwd.shape == j_rev.shape == (N_HIDDEN, N_IN)
    np.testing.assert_allclose(np.asarray(j_fwd), want, rtol=1e-10, atol=1e-14)
    np.testing.assert_allclose(np.asarray(j_rev), want, rtol=1e-10, atol=1e-14)


def test_hessian(problem: tuple[Params, tdx.Array, tdx.Array]) -> None:
    _, x, _ = problem
    x0 = x[0]
    t = np.tanh(np.asarray(x0))
    s = 1.0 - t**2
    want = np.diag(2.0 * s**2 - 4.0 * t**2 * s + 6.0 * np.asarray(x0) ** 2)
    h = model.energy_hessian(x0)
    assert isinstance(h, tdx.Array)
    assert h.shape == (N_IN, N_IN)
    np.testing.assert_allclose(np.asarray(h), want, rtol=1e-10, atol=1e-14)
    np.testing.assert_allclose(np.asarray(model.scaled_hessian(x0, 2.5)), 2.5 * want, rtol=1e-10, atol=1e-14)


# -- mistakes are reported ------------------------------------------------------------
#: The mistakes mypy reports through each transformation today (each is a
#: line of ``mistakes.py`` marked ``E: <code>``) ...
CAUGHT: frozenset[tuple[str, str]] = frozenset({
    ("jit", "wrong-keyword"), ("jit", "missing-argument"), ("jit", "wrong-type"),
    ("jit", "result-misuse"), ("jit", "wrong-keyword-to-jit"),
    ("grad", "wrong-keyword"), ("grad", "missing-argument"), ("grad", "wrong-type"),
    ("grad", "result-misuse"), ("grad", "non-scalar-function"),
    ("value_and_grad", "wrong-keyword"), ("value_and_grad", "missing-argument"),
    ("value_and_grad", "wrong-type"), ("value_and_grad", "result-misuse"),
    ("vmap", "wrong-keyword"), ("vmap", "missing-argument"), ("vmap", "wrong-type"),
    ("vmap", "result-misuse"),
    ("jvp", "wrong-keyword"), ("jvp", "result-misuse"), ("jvp", "missing-argument"), ("jvp", "wrong-type"),
    ("vjp", "wrong-keyword"), ("vjp", "result-misuse"), ("vjp", "wrong-cotangent-type"),
    ("vjp", "missing-argument"), ("vjp", "wrong-type"),
    ("jacfwd", "wrong-keyword"), ("jacfwd", "missing-argument"), ("jacfwd", "wrong-type"),
    ("jacfwd", "result-misuse"),
    ("jacrev", "wrong-keyword"), ("jacrev", "missing-argument"), ("jacrev", "wrong-type"),
    ("jacrev", "result-misuse"),
    ("hessian", "wrong-keyword"), ("hessian", "missing-argument"), ("hessian", "wrong-type"),
    ("hessian", "result-misuse"),
    ("scan", "wrong-keyword"), ("scan", "missing-argument"), ("scan", "wrong-type-xs"),
    ("scan", "result-misuse"),
    ("cond", "wrong-keyword"), ("cond", "wrong-type-pred"), ("cond", "result-misuse"),
    ("cond", "missing-argument"), ("cond", "wrong-type"),
})

#: ... and those the signatures let through (marked ``(not caught)``):
#: ``scan`` takes ``init: object``, and ``tree.map`` takes
#: ``f: Callable[..., object]`` (a lambda's parameters are ``Any``). (``jvp``
#: and ``cond`` tie their function's parameters to the primals / operands
#: with a ``TypeVarTuple``, so a missing or mistyped one is caught.)
NOT_CAUGHT: frozenset[tuple[str, str]] = frozenset({
    ("scan", "wrong-type"),
    ("tree.map", "leaf-misuse"),
})

TRANSFORMATIONS = (
    "jit", "grad", "value_and_grad", "vmap", "jvp", "vjp", "jacfwd", "jacrev", "hessian",
    "scan", "cond",
)
MISTAKE_KINDS = ("wrong-keyword", "missing-argument", "wrong-type", "result-misuse")

_MARKER = re.compile(
    r"#\s*(?P<t>[\w.]+)/(?P<m>[\w-]+)\s*(?:E:\s*(?P<code>[a-z-]+)|(?P<nc>\(not caught\)))\s*$"
)


def _markers() -> dict[int, tuple[tuple[str, str], str | None]]:
    """Line -> ((transformation, mistake), expected error code or None)."""
    out: dict[int, tuple[tuple[str, str], str | None]] = {}
    for i, text in enumerate(MISTAKES.read_text().splitlines(), start=1):
        m = _MARKER.search(text)
        if m:
            out[i] = ((m.group("t"), m.group("m")), m.group("code"))
    return out


def test_mistakes_file_covers_each_transformation_once_per_kind() -> None:
    pairs = [pair for pair, _ in _markers().values()]
    assert len(pairs) == len(set(pairs)), "a (transformation, mistake) pair is marked twice"
    for t in TRANSFORMATIONS:
        for kind in MISTAKE_KINDS:
            assert (t, kind) in pairs, f"no line for {t}/{kind}"
    assert set(pairs) == CAUGHT | NOT_CAUGHT and not CAUGHT & NOT_CAUGHT
    for pair, code in _markers().values():
        assert (code is not None) == (pair in CAUGHT), pair


def test_each_mistake_is_reported_with_its_code(mypy_cache: Path) -> None:
    markers = _markers()
    errors = [m for m in run_mypy(mypy_cache, MISTAKES) if m.kind == "error"]
    assert all(Path(e.path).name == MISTAKES.name for e in errors), errors
    by_line: dict[int, list[Message]] = {}
    for e in errors:
        by_line.setdefault(e.line, []).append(e)
    unmarked = {line: msgs for line, msgs in by_line.items() if line not in markers}
    assert unmarked == {}, "errors on lines without a mistake marker"
    caught = {pair for line, (pair, _) in markers.items() if line in by_line}
    assert caught == CAUGHT, (
        f"newly caught: {sorted(caught - CAUGHT)}; no longer caught: {sorted(CAUGHT - caught)}"
    )
    for line, (pair, code) in markers.items():
        if code is not None:
            codes = {e.code for e in by_line[line]}
            assert code in codes, (pair, by_line[line])


# -- reveal_type --------------------------------------------------------------------
#: mypy's ``reveal_type`` of each expression, with ``x: tdx.Array`` and
#: ``f``, ``loss`` and ``step`` as in ``_REVEAL_PRELUDE``.
_PARAMS = (
    "tuple[typedax.core.array.Array, typedax.core.array.Array, fallback=test_reveal.Params]"
)
REVEALED: dict[str, str] = {
    "tdx.jit(f)": (
        "typedax.jitting.api.Jitted[[x: typedax.core.array.Array], typedax.core.array.Array]"
    ),
    "tdx.grad(f)": "def (typedax.core.array.Array) -> typedax.core.array.Array",
    "lax.sin(x)": "typedax.core.array.Array",
    "tnp.sum(x)": "typedax.core.array.Array",
    "x + 1": "typedax.core.array.Array",
    "2.0 * x": "typedax.core.array.Array",
    "x @ x": "typedax.core.array.Array",
    "x.shape": "tuple[int, ...]",
    "tdx.vmap(f)": "def (x: typedax.core.array.Array) -> typedax.core.array.Array",
    # mypy spells a NamedTuple type as tuple[<fields>, fallback=<the class>]
    "tdx.value_and_grad(loss)": (
        f"def ({_PARAMS}, x: typedax.core.array.Array) -> "
        f"tuple[typedax.core.array.Array, {_PARAMS}]"
    ),
    "tdx.grad(loss, argnums=(0, 1))": (
        f"def ({_PARAMS}, typedax.core.array.Array) -> "
        f"tuple[{_PARAMS}, typedax.core.array.Array]"
    ),
    "tdx.jvp(f, (x,), (x,))": "tuple[typedax.core.array.Array, typedax.core.array.Array]",
    "tdx.jacrev(f)": "def (x: typedax.core.array.Array) -> typedax.core.array.Array",
    "tdx.hessian(f)": "def (x: typedax.core.array.Array) -> typedax.core.array.Array",
    "lax.scan(step, x, x)": "tuple[typedax.core.array.Array, typedax.core.array.Array]",
    "lax.cond(x > 0, f, f, x)": "typedax.core.array.Array",
    "tdx.tree.map(tnp.zeros_like, Params(x, x))": _PARAMS,
}

_REVEAL_PRELUDE = '''\
from typing import NamedTuple

import typedax as tdx
import typedax.numpy as tnp
from typedax import lax


class Params(NamedTuple):
    w: tdx.Array
    b: tdx.Array


def f(x: tdx.Array) -> tdx.Array:
    return tnp.tanh(x)


def loss(params: Params, x: tdx.Array) -> tdx.Array:
    return tnp.sum(params.w * x + params.b)


def step(c: tdx.Array, x: tdx.Array) -> tuple[tdx.Array, tdx.Array]:
    return c + x, c * x


def reveal(x: tdx.Array) -> None:
'''


def test_reveal_types(mypy_cache: Path, tmp_path: Path) -> None:
    lines = _REVEAL_PRELUDE.splitlines()
    line_of: dict[int, str] = {}
    for expr in REVEALED:
        lines.append(f"    reveal_type({expr})")
        line_of[len(lines)] = expr
    path = tmp_path / "test_reveal.py"
    path.write_text("\n".join(lines) + "\n")
    messages = run_mypy(mypy_cache, path)
    assert [m for m in messages if m.kind == "error"] == []
    revealed: dict[str, str] = {}
    for m in messages:
        r = re.fullmatch(r'Revealed type is "(.*)"', m.text)
        if m.kind == "note" and r:
            revealed[line_of[m.line]] = r.group(1)
    assert revealed == REVEALED
