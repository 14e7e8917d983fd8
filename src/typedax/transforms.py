"""Pure ``Jaxpr -> Jaxpr`` transformations (the second face of each
transformation; the interpreters are the first)."""

from .interpreters.batching import vmap_jaxpr as vmap_jaxpr
from .interpreters.jvp import jvp_jaxpr as jvp_jaxpr
