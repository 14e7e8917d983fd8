"""Every public name the faces exported before the one-way-layers refactor
(issue 24) is still exported.

``data/public_names.json`` was recorded from the faces as they stood before
the refactor: each module's ``__all__`` plus every other public attribute
that is a typedax object (a function, class, primitive, submodule or
constant defined in typedax). Helpers the old faces exposed only because
they defined functions themselves are listed in ``INTERNAL`` with the reason
they are no longer part of the face.
"""

from __future__ import annotations

import importlib
import json
from pathlib import Path

import pytest

RECORDED: dict[str, list[str]] = json.loads(
    (Path(__file__).parent / "data" / "public_names.json").read_text()
)

#: (module, name) the old faces exposed by accident, and why each is gone.
INTERNAL: dict[tuple[str, str], str] = {}


@pytest.mark.parametrize("module", sorted(RECORDED))
def test_face_still_exports_its_names(module: str) -> None:
    face = importlib.import_module(module)
    missing = sorted(
        n for n in RECORDED[module] if not hasattr(face, n) and (module, n) not in INTERNAL
    )
    assert not missing, f"{module} no longer exports: {', '.join(missing)}"


def test_internal_list_is_not_stale() -> None:
    stale = sorted(f"{m}.{n}" for m, n in INTERNAL if n not in RECORDED.get(m, []))
    assert not stale, "INTERNAL names names never recorded: " + ", ".join(stale)
