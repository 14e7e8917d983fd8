"""Pure ``Jaxpr -> Jaxpr`` transformations (the second face of each
transformation; the interpreters are the first)."""

from .interpreters.batching import vmap_jaxpr as vmap_jaxpr
from .interpreters.dce import dce_jaxpr as dce_jaxpr
from .interpreters.jvp import jvp_jaxpr as jvp_jaxpr
from .interpreters.linearize import linearize_jaxpr as linearize_jaxpr
from .interpreters.partial_eval import partial_eval_jaxpr as partial_eval_jaxpr
from .interpreters.transpose import transpose_jaxpr as transpose_jaxpr
