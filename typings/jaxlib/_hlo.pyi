# Minimal stubs for ``jaxlib._hlo`` (no stubs ship with jaxlib 0.10.2): only
# what typedax uses.
class HloSharding:
    @staticmethod
    def replicate() -> HloSharding: ...

    @staticmethod
    def iota_tile(
        dims: list[int], reshape_dims: list[int] = ..., transpose_perm: list[int] = ...,
        subgroup_types: list[OpSharding.Type] = ...,
    ) -> HloSharding: ...
    @staticmethod
    def from_proto(proto: object, /) -> HloSharding: ...
    def is_replicated(self) -> bool: ...
    def __eq__(self, other: object) -> bool: ...
    def __hash__(self) -> int: ...

class OpSharding:
    class Type:
        REPLICATED: OpSharding.Type
