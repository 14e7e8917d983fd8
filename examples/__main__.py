"""Run every example in order."""

from . import cnn_digits, control_flow, convolutions, forward, indexing, mlp, mnist_classifier_fromscratch, porting, reverse, tracing

tracing.main()
forward.main()
reverse.main()
mlp.main()
mnist_classifier_fromscratch.main()
control_flow.main()
indexing.main()
porting.main()
convolutions.main()
cnn_digits.main()
