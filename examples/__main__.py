"""Run every example in order."""

from . import control_flow, forward, indexing, mlp, reverse, tracing

tracing.main()
forward.main()
reverse.main()
mlp.main()
control_flow.main()
indexing.main()
