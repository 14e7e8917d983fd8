"""Run every example in order."""

from . import tracing

tracing.main()
