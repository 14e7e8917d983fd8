"""Control flow as higher-order primitives, one module each with every rule:
``cond``, ``while_loop`` (primitive ``while``), ``scan``; and ``fori_loop``,
written with ``scan`` or ``while_loop``."""

from .cond import cond as cond
from .cond import cond_p as cond_p
from .fori_loop import fori_loop as fori_loop
from .scan import scan as scan
from .scan import scan_p as scan_p
from .while_loop import while_loop as while_loop
from .while_loop import while_p as while_p
