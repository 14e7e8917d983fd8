"""Run every example in order."""

from . import forward, reverse, tracing

tracing.main()
forward.main()
reverse.main()
