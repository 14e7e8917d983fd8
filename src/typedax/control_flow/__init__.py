"""Control flow as higher-order primitives: ``cond``, ``while``, ``scan``
(and ``fori_loop``, written with ``scan`` or ``while_loop``)."""

from .cond import cond as cond
from .cond import cond_p as cond_p
from .loops import fori_loop as fori_loop
from .loops import scan as scan
from .loops import scan_p as scan_p
from .loops import while_loop as while_loop
from .loops import while_p as while_p

# the rules of each interpretation register themselves in its table
from . import jvp_rules as jvp_rules  # noqa: E402
from . import batching_rules as batching_rules  # noqa: E402
from . import lowering_rules as lowering_rules  # noqa: E402
from . import reverse_rules as reverse_rules  # noqa: E402
