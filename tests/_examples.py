"""Example counts of the expensive hypothesis properties, per profile
(the profiles are tests/conftest.py's).

Some properties cost an XLA compilation (typedax's or JAX's), or a run of
JAX's eager dispatch, in every example: ``make test`` (the ``ci`` profile)
must finish within 10 minutes on 2 cores, so these run fewer examples there,
and keep their count everywhere else::

    @ci_examples(20)                   # ci: 20; any other profile: its own count
    @ci_examples(30, otherwise=100)    # ci: 30; any other profile: 100

``otherwise`` keeps a count the property fixed for every profile before
(``@settings(max_examples=100)``): ``make test-long`` (the ``long`` profile)
and the default ``dev`` profile run exactly what they ran before. Other
settings pass through (``@ci_examples(20, otherwise=40, deadline=None)``).
The ``ci`` examples stay derandomized: a property runs the same examples on
every machine.
"""

from __future__ import annotations

import os
from typing import Any

from hypothesis import settings

#: The profile tests/conftest.py loads (the same variable, the same default).
PROFILE = os.environ.get("HYPOTHESIS_PROFILE", "dev")


def ci_examples(ci: int, *, otherwise: int | None = None, **kwargs: Any) -> settings:
    """Settings with ``ci`` examples under the ``ci`` profile; under any other,
    ``otherwise`` examples, or the profile's own count when it is None."""
    if PROFILE == "ci":
        return settings(max_examples=ci, **kwargs)
    if otherwise is None:
        return settings(**kwargs)
    return settings(max_examples=otherwise, **kwargs)
