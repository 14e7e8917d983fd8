"""Every private jaxlib API typedax uses, in one place.

jaxlib's public Python surface does not cover what a JAX core needs (PjRt
clients, transfers, result handlers, executables, plugins, the C++ pytree
registry), so typedax reads ``jaxlib._jax`` and ``jaxlib._hlo``, and only
here: the rest of the library imports these names from this module. When a
jaxlib release changes one of them, this is the one file to change.
``PRIVATE_NAMES`` lists them; ``tests/test_jaxlib_api.py`` checks that each
exists in the installed jaxlib.

Supported: jaxlib 0.10.x and 0.11.x (``pyproject.toml``). Differences
between them are handled here: ``array_result_handler`` lost its
``_skip_checks`` argument in 0.11; the CUDA plugin package is
``jax-cuda13-plugin`` (``jax_plugins.xla_cuda13``) beside the older
``jax-cuda12-plugin``.
"""

from __future__ import annotations

import importlib.util
import inspect
from pathlib import Path

import numpy as np

from jaxlib import _hlo, _jax
from jaxlib import xla_client as xc
from jaxlib._jax import Array as Array
from jaxlib._jax import Client as Client
from jaxlib._jax import CompileOptions as CompileOptions
from jaxlib._jax import Device as Device
from jaxlib._jax import DeviceList as DeviceList
from jaxlib._jax import HostBufferSemantics as HostBufferSemantics
from jaxlib._jax import LoadedExecutable as LoadedExecutable
from jaxlib._jax import PyTreeDef as PyTreeDef
from jaxlib._jax import ResultHandler as ResultHandler
from jaxlib._jax import SingleDeviceSharding as SingleDeviceSharding
from jaxlib._jax import GSPMDSharding as GSPMDSharding
from jaxlib._jax import batched_device_put as batched_device_put

#: (module, name) of every private jaxlib name read here.
PRIVATE_NAMES: tuple[tuple[str, str], ...] = (
    ("jaxlib._jax", "Array"),
    ("jaxlib._jax", "ArrayImpl._single_device_array_to_np_array_did_copy"),
    ("jaxlib._jax", "Client"),
    ("jaxlib._jax", "CompileOptions"),
    ("jaxlib._jax", "Device"),
    ("jaxlib._jax", "DeviceList"),
    ("jaxlib._jax", "HostBufferSemantics"),
    ("jaxlib._jax", "LoadedExecutable"),
    ("jaxlib._jax", "PyTreeDef"),
    ("jaxlib._jax", "ResultHandler"),
    ("jaxlib._jax", "SingleDeviceSharding"),
    ("jaxlib._jax", "GSPMDSharding"),
    ("jaxlib._jax", "batched_device_put"),
    ("jaxlib._jax", "array_result_handler"),
    ("jaxlib._jax", "get_c_api_client"),
    ("jaxlib._jax", "load_pjrt_plugin"),
    ("jaxlib._jax", "pjrt_plugin_loaded"),
    ("jaxlib._jax", "pjrt_plugin_initialized"),
    ("jaxlib._jax", "initialize_pjrt_plugin"),
    ("jaxlib._jax", "pytree"),
    ("jaxlib._hlo", "HloSharding"),
    ("jaxlib.xla_client", "make_cpu_client"),
    ("jaxlib.xla_client", "register_custom_call_target"),
    ("jaxlib.cpu._lapack", "registrations"),
    ("jaxlib.cpu._lapack", "initialize"),
)

#: CUDA PjRt plugin packages, newest first: (module, pip package).
CUDA_PLUGINS: tuple[tuple[str, str], ...] = (
    ("jax_plugins.xla_cuda13", "jax-cuda13-plugin"),
    ("jax_plugins.xla_cuda12", "jax-cuda12-plugin"),
)


def replicated_hlo_sharding() -> _hlo.HloSharding:
    return _hlo.HloSharding.replicate()


def make_cpu_client(asynchronous: bool) -> Client:
    return xc.make_cpu_client(asynchronous=asynchronous)


def _takes_skip_checks() -> bool:
    try:
        return "_skip_checks" in inspect.signature(_jax.array_result_handler).parameters
    except (TypeError, ValueError):  # a builtin without a readable signature: ask its docstring
        return "_skip_checks" in (_jax.array_result_handler.__doc__ or "")


_SKIP_CHECKS = _takes_skip_checks()


def array_result_handler(aval: object, sharding: object) -> ResultHandler:
    """A handler that wraps an executable's output buffers as arrays of
    ``aval`` on ``sharding`` (committed), skipping jaxlib's Python-side
    checks where the installed jaxlib offers that (0.10)."""
    if _SKIP_CHECKS:
        return _jax.array_result_handler(aval, sharding, True, _skip_checks=True)
    return _jax.array_result_handler(aval, sharding, True)


def device_to_numpy(dev: _jax.ArrayImpl) -> np.ndarray[tuple[int, ...], np.dtype[np.generic]]:
    """A device array's value on the host, for dtypes the buffer protocol
    cannot describe (bfloat16: ``np.asarray`` would wrap the object)."""
    value, _ = dev._single_device_array_to_np_array_did_copy()
    return np.asarray(value)


def cuda_plugin_library() -> Path | None:
    """The shared library of the first CUDA PjRt plugin installed, if any."""
    for module, _ in CUDA_PLUGINS:
        spec = importlib.util.find_spec(module)
        if spec is not None and spec.origin is not None:
            return Path(spec.origin).parent / "xla_cuda_plugin.so"
    return None


def cuda_client(library: Path) -> Client:
    """A PjRt client for CUDA through the plugin at ``library``; a plugin
    already loaded and initialized in this process (by JAX, say) is reused."""
    if not _jax.pjrt_plugin_loaded("cuda"):
        _jax.load_pjrt_plugin("cuda", str(library), None)
    if not _jax.pjrt_plugin_initialized("cuda"):
        _jax.initialize_pjrt_plugin("cuda")
    return _jax.get_c_api_client("cuda", {"platform_name": "cuda"})


def pytree_flatten() -> _jax._PyTreeRegistry:
    """jaxlib's C++ pytree registry (``flatten`` in under a microsecond)."""
    return _jax.pytree.default_registry()


_LAPACK_READY: list[bool] = []


def prepare_lapack() -> None:
    """Make jaxlib's CPU LAPACK kernels (``lapack_*_ffi``: potrf, trsm,
    geqrf, orgqr, syevd, gesdd, getrf, ...) callable from a StableHLO
    ``custom_call`` in the modules typedax compiles: register each FFI
    target with XLA's CPU registry (queued until a CPU client exists, which
    then registers them; JAX registering the same targets again is harmless)
    and bind the kernels to SciPy's LAPACK (``_lapack.initialize``, about
    0.1 s, once). Called by ``typedax.lax_linalg``'s lowering rules."""
    if _LAPACK_READY:
        return
    from jaxlib.cpu import _lapack  # type: ignore[attr-defined, unused-ignore]  # a compiled module without stubs (whether mypy sees it depends on what else it checks)

    for name, target in _lapack.registrations().items():
        xc.register_custom_call_target(name, target, "cpu", int(name.endswith("_ffi")))
    _lapack.initialize()
    _LAPACK_READY.append(True)
