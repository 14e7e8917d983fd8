"""Pure ``Jaxpr -> Jaxpr`` transformations (the second face of each
transformation; the interpreters are the first)."""
