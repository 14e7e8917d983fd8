# Minimal stubs for ``jaxlib._hlo`` (no stubs ship with jaxlib 0.10.2): only
# what typedax uses.
class HloSharding:
    @staticmethod
    def replicate() -> HloSharding: ...
