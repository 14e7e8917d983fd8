"""Where typedax loads the CUDA plugin itself, it does what the plugin's
``initialize`` does for JAX (``_install_cuda_custom_call_handler``): routes
XLA's CUDA custom-call and custom-type registrations to the plugin's FFI
extension, flushes the registrations queued before (cuSOLVER's, made at
lowering time), and registers the plugin's own FFI handlers (host
callbacks' ``xla_ffi_python_gpu_callback``) and types. Checked here with a
stand-in extension and ``xla_client``; on a GPU, a process where typedax
alone loaded the plugin runs cuSOLVER kernels and host callbacks
(``tests/test_callbacks.py``, ``tests/test_linalg_decomp.py`` under
``TYPEDAX_PLATFORM=cuda``)."""

from __future__ import annotations

import types
from collections.abc import Callable, Iterator

import pytest

from typedax.lowering import jaxlib_api as jx


class _FakeXlaClient:
    """``xla_client``'s registration queue and handler table, for CUDA."""

    def __init__(self) -> None:
        self.handler: Callable[..., None] | None = None
        self.type_handler: Callable[..., None] | None = None
        self.queued: list[tuple[str, object, int]] = [("cusolver_potrf_ffi", "potrf", 1)]
        self.types: list[tuple[str, object]] = []

    def register_custom_call_handler(self, platform: str, handler: Callable[..., None]) -> None:
        assert platform == "CUDA"
        if self.handler is None:
            self.handler = handler
            for name, fn, version in self.queued:
                handler(name, fn, platform, version, 0)
            self.queued = []

    def register_custom_call_target(self, name: str, fn: object, platform: str, api_version: int = 0) -> None:
        if self.handler is None:
            self.queued.append((name, fn, api_version))
        else:
            self.handler(name, fn, platform, api_version, 0)

    def register_custom_type_handler(self, platform: str, handler: Callable[..., None]) -> None:
        self.type_handler = handler

    def register_custom_type(self, name: str, info: object, platform: str) -> None:
        assert self.type_handler is not None
        self.type_handler(name, info)


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[_FakeXlaClient, list[tuple[object, ...]]]]:
    calls: list[tuple[object, ...]] = []
    extension = types.SimpleNamespace(
        register_custom_call_target=lambda *a: calls.append(("target", *a)),
        register_custom_type=lambda *a: calls.append(("type", *a)),
        ffi_handlers=lambda: {"xla_ffi_python_gpu_callback": "cb"},
        ffi_types=lambda: {"some_state": "info"},
    )
    client = _FakeXlaClient()
    monkeypatch.setattr(jx, "xc", client)
    monkeypatch.setattr(jx, "importlib", types.SimpleNamespace(import_module=lambda name: extension))
    monkeypatch.setattr(jx, "_CUDA_C_API", ["c_api"])
    monkeypatch.setattr(jx, "_CUDA_HANDLER_READY", [])
    yield client, calls


def test_the_plugin_typedax_loads_gets_its_handlers_and_the_queued_kernels(
    fake: tuple[_FakeXlaClient, list[tuple[object, ...]]],
) -> None:
    client, calls = fake
    jx._install_cuda_custom_call_handler()
    assert ("target", "c_api", "cusolver_potrf_ffi", "potrf", "CUDA", 1, 0) in calls  # the queue, flushed
    assert ("target", "c_api", "xla_ffi_python_gpu_callback", "cb", "CUDA", 1, 0) in calls  # host callbacks
    assert ("type", "c_api", "some_state", "info") in calls
    assert client.queued == []
    # once per process: a second call registers nothing more
    n = len(calls)
    jx._install_cuda_custom_call_handler()
    assert len(calls) == n
    # a kernel registered afterwards goes straight to the plugin
    client.register_custom_call_target("cusolver_syevd_ffi", "syevd", "CUDA", 1)
    assert calls[-1] == ("target", "c_api", "cusolver_syevd_ffi", "syevd", "CUDA", 1, 0)


def test_where_jax_loaded_the_plugin_typedax_installs_nothing(
    fake: tuple[_FakeXlaClient, list[tuple[object, ...]]], monkeypatch: pytest.MonkeyPatch,
) -> None:
    client, calls = fake
    monkeypatch.setattr(jx, "_CUDA_C_API", [])
    jx._install_cuda_custom_call_handler()
    assert calls == [] and client.handler is None


def test_older_plugins_name_their_handlers_ffi_registrations(
    fake: tuple[_FakeXlaClient, list[tuple[object, ...]]], monkeypatch: pytest.MonkeyPatch,
) -> None:
    _, calls = fake
    old = types.SimpleNamespace(
        register_custom_call_target=lambda *a: calls.append(("target", *a)),
        ffi_registrations=lambda: {"xla_ffi_python_gpu_callback": "cb"},
    )
    monkeypatch.setattr(jx, "importlib", types.SimpleNamespace(import_module=lambda name: old))
    jx._install_cuda_custom_call_handler()
    assert ("target", "c_api", "xla_ffi_python_gpu_callback", "cb", "CUDA", 1, 0) in calls
    assert not any(c[0] == "type" for c in calls)
