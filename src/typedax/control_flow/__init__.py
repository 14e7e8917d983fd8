"""Control flow as higher-order primitives, one module each with every rule
and its ``lax`` function: ``conditionals`` (``cond``), ``while_loops``
(``while_loop``, primitive ``while``), ``scans`` (``scan``); and
``fori_loops`` (``fori_loop``, written with ``scan`` or ``while_loop``); and
``reduce_windows``, the general ``reduce_window`` primitive (a body jaxpr
folded over windows: its JVP differentiates the body).
The modules are named apart from the functions they define."""

from .conditionals import CondParams as CondParams
from .conditionals import cond as cond
from .conditionals import cond_p as cond_p
from .fori_loops import fori_loop as fori_loop
from .scans import ScanParams as ScanParams
from .scans import scan as scan
from .scans import scan_p as scan_p
from .while_loops import WhileParams as WhileParams
from .while_loops import while_loop as while_loop
from .while_loops import while_p as while_p
