"""The library's primitives, family by family: what ``parse_jaxpr`` and the
registry test read.

This is the one place that lists the families. Adding a primitive to an
existing family needs no change here; adding a family is one line. Nothing
registers itself by being imported: each family module exports a ``FAMILY``
value and this module collects them.
"""

from __future__ import annotations

from .control_flow import cond_p, scan_p, while_p
from .control_flow import callbacks, checkpoints, custom_calls, reduce_windows
from .core.parse import install_default_registry
from .core.rules import Family, Registry
from .jitting import jit_p
from .jitting import shard_map
from .primitives import dot, dynamic_slicing, elementwise, gather_scatter, reductions, shaping, slicing, structural
from .primitives import cumulative, sorting
from .primitives import windowed
from .primitives import bitcast, bitwise, special
from .primitives import complex_numbers
from .primitives import fft
from .primitives import optimization_barrier, rng_bit_generator  # issue 29 item 7
from .control_flow import solves  # issue 29 item 7
from .primitives import keys, prng
from .primitives import convolution
from .primitives import linalg
from .primitives import sharding_constraint
from .primitives import collectives

FAMILIES: tuple[Family, ...] = (
    structural.FAMILY,
    elementwise.FAMILY,
    special.FAMILY,
    complex_numbers.FAMILY,
    bitwise.FAMILY,
    bitcast.FAMILY,
    reductions.FAMILY,
    cumulative.FAMILY,
    sorting.FAMILY,
    dot.FAMILY,
    slicing.FAMILY,
    dynamic_slicing.FAMILY,
    shaping.FAMILY,
    gather_scatter.FAMILY,
    windowed.FAMILY,
    reduce_windows.FAMILY,
    prng.FAMILY,
    keys.FAMILY,
    convolution.FAMILY,
    linalg.FAMILY,
    sharding_constraint.FAMILY,
    collectives.FAMILY,
    fft.FAMILY,
    optimization_barrier.FAMILY,  # issue 29 item 7
    rng_bit_generator.FAMILY,  # issue 29 item 7
    solves.FAMILY,  # issue 29 item 7
    Family("control flow", (cond_p, while_p, scan_p)),
    Family("jit", (jit_p,)),
    shard_map.FAMILY,
    custom_calls.FAMILY,
    checkpoints.FAMILY,
    callbacks.FAMILY,
)

REGISTRY: Registry = Registry(FAMILIES)
"""Every primitive typedax defines, by name."""

install_default_registry(REGISTRY)  # parse_jaxpr without a registry reads this one
