"""``typedax.numpy`` as a Python array API standard namespace (2024.12), as
``jax.numpy`` is (issue 31): ``__array_api_version__``,
``__array_namespace_info__()``, the ``device=`` check of the creation
functions, and ``from_dlpack``.

typedax computes on one device (``typedax.devices()``), so a ``device=``
is that device or ``None``; anything else is a ``DeviceError``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final, Protocol

import numpy as np

from ..core.array import ARRAY_API_VERSION, Array, from_numpy
from ..core.dtypes import DType, canonicalize_dtype, default_complex, default_float, default_int
from ..core.errors import DeviceError, DLPackError, PrimitiveTypeError
from ..core.trace import aval_of
from ..core.config import x64_enabled
from ..core.avals import ShapedArray
from ..lowering.array import aval_key, from_buffer
from ..lowering.jaxlib_api import DL_CUDA, Device, dlpack_to_device
from ..lowering.jaxlib_api import hardware_id as jx_hardware_id
from ..lowering.runtime import devices

if TYPE_CHECKING:
    from typing_extensions import CapsuleType  # (types.CapsuleType is Python 3.13's)

__array_api_version__: Final = ARRAY_API_VERSION


def check_device(op: str, device: object) -> None:
    """Refuse a ``device=`` that is not ``None`` or typedax's device."""
    if device is not None and device not in devices():
        raise DeviceError(
            f"{op}: device={device!r} is not a typedax device; typedax computes on "
            f"{devices()} (pass one of them, or None)"
        )


def _dtype_names() -> dict[str, tuple[str, ...]]:
    """The array API's dtype kinds over typedax's dtypes (the 64-bit and
    128-bit types only with x64 on, as ``jax.numpy``'s)."""
    wide = x64_enabled()
    signed = ("int8", "int16", "int32") + (("int64",) if wide else ())
    unsigned = ("uint8", "uint16", "uint32") + (("uint64",) if wide else ())
    floating = ("float32",) + (("float64",) if wide else ())
    complexes = ("complex64",) + (("complex128",) if wide else ())
    return {
        "bool": ("bool",),
        "signed integer": signed,
        "unsigned integer": unsigned,
        "integral": signed + unsigned,
        "real floating": floating,
        "complex floating": complexes,
        "numeric": signed + unsigned + floating + complexes,
    }


class ArrayNamespaceInfo:
    """``jax.numpy.__array_namespace_info__()``'s answers for typedax."""

    def capabilities(self) -> dict[str, bool | int]:
        # as jax.numpy's: shapes are static under transformations (no boolean
        # masks or data-dependent shapes); XLA takes up to 64 dimensions
        return {"boolean indexing": False, "data-dependent shapes": False, "max dimensions": 64}

    def default_device(self) -> None:
        return None  # as JAX's: "uncommitted", i.e. typedax's one device

    def devices(self) -> list[Device | None]:
        return [None, *devices()]

    def default_dtypes(self, *, device: Device | None = None) -> dict[str, DType]:
        check_device("default_dtypes", device)
        return {"real floating": default_float(), "complex floating": default_complex(), "integral": default_int(),
                "indexing": default_int()}

    def dtypes(self, *, device: Device | None = None,
               kind: str | tuple[str, ...] | None = None) -> dict[str, DType]:
        check_device("dtypes", device)
        table = _dtype_names()
        kinds = ("numeric", "bool") if kind is None else (kind,) if isinstance(kind, str) else kind
        out: dict[str, DType] = {}
        for k in kinds:
            if k not in table:
                raise PrimitiveTypeError(f"dtypes: unknown kind {k!r}; the kinds are {sorted(table)}")
            out.update((name, np.dtype(name)) for name in table[k])
        return out


def __array_namespace_info__() -> ArrayNamespaceInfo:  # noqa: N807 - the standard's name
    return ArrayNamespaceInfo()


class DLPackExporter(Protocol):
    """What ``from_dlpack`` reads: an object with the DLPack protocol."""

    def __dlpack__(self, *, stream: None = None) -> CapsuleType: ...
    def __dlpack_device__(self) -> tuple[int, int]: ...


def _cuda_tensor(x: DLPackExporter) -> Array | None:
    """A copy of ``x`` on typedax's GPU when ``x`` is a tensor in CUDA
    memory (JAX's GPU arrays, PyTorch's CUDA tensors), else ``None``."""
    try:
        kind, hardware_id = x.__dlpack_device__()
    except (AttributeError, TypeError, ValueError):
        return None
    if kind != DL_CUDA:
        return None
    here = [d for d in devices() if d.platform == "gpu" and jx_hardware_id(d) == hardware_id]
    if not here:
        raise DLPackError(
            f"from_dlpack: the {type(x).__name__} is in the memory of CUDA device {hardware_id}, which "
            f"typedax does not run on (its devices: {', '.join(str(d) for d in devices())})"
        )
    buf, shape, dtype = dlpack_to_device(lambda stream: x.__dlpack__(stream=stream), here[0])  # type: ignore[arg-type]  # an exporter takes the stream it is asked for
    aval = ShapedArray(shape, dtype)
    value = from_buffer(buf, aval, aval_key(aval))
    want = canonicalize_dtype(value.dtype)
    return value if want == value.dtype else value.astype(want)


def from_dlpack(x: DLPackExporter, /, *, device: Device | None = None, copy: bool | None = None) -> Array:
    """``jnp.from_dlpack``: an array from any DLPack exporter on the host
    (NumPy arrays, typedax and JAX CPU arrays, ...), read through NumPy's
    ``np.from_dlpack`` and copied -- or, for a tensor in the memory of the
    CUDA device typedax runs on, copied there on the device (typedax arrays are immutable; another
    library could change its buffer later). A typedax array is returned as
    it is; ``copy=False`` of anything else is a ``DLPackError`` (a
    ``BufferError``, as the standard asks where a copy would be needed)."""
    check_device("from_dlpack", device)
    if isinstance(x, Array) and copy is not True:
        return x
    if copy is False:
        raise DLPackError(
            f"from_dlpack: copy=False, but a {type(x).__name__} must be copied (typedax arrays own immutable values)"
        )
    on_device = _cuda_tensor(x)
    if on_device is not None:
        return on_device
    try:
        host = np.from_dlpack(x)
    except (AttributeError, BufferError, RuntimeError, TypeError) as e:
        raise DLPackError(f"from_dlpack: cannot read a {type(x).__name__} on the host through DLPack: {e}") from e
    value = np.array(host, dtype=canonicalize_dtype(host.dtype))
    aval_of(value)  # refuses the dtypes typedax lacks
    return from_numpy(value)
