"""``jit``: the API (``api.py``: ``jit``, ``Jitted``, ahead-of-time
``Traced``/``Lowered``/``Compiled``) and the primitive it stages to
(``primitive.py``: ``jit_p`` with every rule)."""

from .api import Compiled as Compiled
from .api import Jitted as Jitted
from .api import Lowered as Lowered
from .api import Traced as Traced
from .api import jit as jit
from .primitive import JitParams as JitParams
from .primitive import jit_p as jit_p
