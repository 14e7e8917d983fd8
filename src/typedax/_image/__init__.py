"""``jax.image``'s implementation (issue 29 item 7); the face is ``typedax/image.py``."""
