"""Run every example in order."""

from . import forward, tracing

tracing.main()
forward.main()
