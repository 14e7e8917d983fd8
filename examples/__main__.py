"""Run every example in order."""

from . import cnn_digits, control_flow, convolutions, data_parallel, forward, indexing, mlp, mnist_classifier_fromscratch, porting, reverse, tracing
from . import mnist_classifier
from . import spectral_pde

tracing.main()
forward.main()
reverse.main()
mlp.main()
mnist_classifier_fromscratch.main()
mnist_classifier.main()
control_flow.main()
indexing.main()
porting.main()
convolutions.main()
cnn_digits.main()
data_parallel.main()
spectral_pde.main()
