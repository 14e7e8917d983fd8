"""The slots a higher layer fills when it is imported ("Installed from
above", docs/architecture.md): ``import typedax`` fills every one, and an
empty one raises a ``RuntimeError`` that says which import is missing
instead of failing somewhere deeper. Each slot is emptied here for one call
(``monkeypatch`` restores it)."""

from __future__ import annotations

import numpy as np
import pytest

import typedax as tdx
import typedax.numpy as tnp
from typedax import lax
from typedax.core import array as core_array
from typedax.core import ir, parse, sharded, trace
from typedax.lowering import lower
from typedax.primitives import structural


def test_every_slot_is_filled_by_import_typedax() -> None:
    x = tnp.arange(3.0)
    assert float((x + 1)[2]) == 3.0 and x.at[0].set(5.0)[0] == 5.0
    assert x.__array_namespace__() is tnp and x.devices() == {tdx.devices()[0]}
    assert "b:f" in str(tdx.make_jaxpr(lambda v: v * 2)(1.0)).replace("float", "f")
    assert parse._DEFAULT_REGISTRY[0] is not None


def test_array_operators_without_the_numpy_layer(monkeypatch: pytest.MonkeyPatch) -> None:
    x = tnp.ones(2)
    monkeypatch.setattr(core_array, "_TNP", None)
    with pytest.raises(RuntimeError, match="typedax.numpy is not imported"):
        x + 1  # noqa: B018 - the error under test


@pytest.mark.parametrize("slot, use, what", [
    ("_GETITEM", lambda x: x[0], "x\\[idx\\]"),
    ("_INDEX_UPDATE", lambda x: x.at, "x.at"),
    ("_NAMESPACE", lambda x: x.__array_namespace__(), "__array_namespace__"),
    ("_RUNTIME", lambda x: x.devices(), "the runtime"),
    ("_KEYS_EQUAL", lambda x: tdx.random.key(0) == tdx.random.key(0), "== of typed keys"),
])
def test_array_methods_without_their_layer(monkeypatch: pytest.MonkeyPatch, slot: str, use: object, what: str) -> None:
    x = tnp.ones(2)
    monkeypatch.setattr(core_array, slot, [])
    with pytest.raises(RuntimeError, match=f"{what} is installed by a layer above the core.*import typedax"):
        use(x)  # type: ignore[operator]  # a lambda of the table


def test_eval_on_device_without_the_lowering(monkeypatch: pytest.MonkeyPatch) -> None:
    x = tnp.asarray(np.arange(4.0, dtype=np.float32))
    monkeypatch.setattr(trace, "_DEVICE_EVAL", [trace._no_device_eval])
    with pytest.raises(RuntimeError, match="reduce_sum: evaluating it runs XLA.*not imported"):
        lax.reduce_sum(x, (0,))


def test_jaxpr_text_without_the_printer(monkeypatch: pytest.MonkeyPatch) -> None:
    jaxpr = tdx.make_jaxpr(lambda v: v * 2)(1.0).jaxpr
    monkeypatch.setattr(ir, "_JAXPR_PRINTER", [ir._printer_missing])
    with pytest.raises(RuntimeError, match="typedax.core.pretty is not imported"):
        str(jaxpr)


def test_parse_without_the_registry(monkeypatch: pytest.MonkeyPatch) -> None:
    text = str(tdx.make_jaxpr(lambda v: v * 2)(1.0).jaxpr)
    monkeypatch.setattr(parse, "_DEFAULT_REGISTRY", [None])
    with pytest.raises(RuntimeError, match="no registry given.*not imported"):
        parse.parse_jaxpr(text)


def test_sharded_arrays_without_the_runtime() -> None:
    with pytest.raises(RuntimeError, match="a sharded array needs the runtime"):
        sharded._missing()


def test_zeros_of_keys_without_the_key_family(monkeypatch: pytest.MonkeyPatch) -> None:
    aval = tdx.random.key(0).aval
    monkeypatch.setattr(structural, "_WRAP_KEYS", [structural._no_keys])
    with pytest.raises(RuntimeError, match="zeros of typed keys"):
        structural.zeros_like_aval(aval)


def test_lowering_without_the_runtime_platform(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(lower, "_PLATFORM", [lower._no_platform])
    with pytest.raises(RuntimeError, match="the runtime, which says the platform, is not imported"):
        lower._platform()
