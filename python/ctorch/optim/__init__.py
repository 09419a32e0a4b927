"""ctorch.optim: optimizers and learning-rate schedulers."""
