"""ctorch.nn.utils."""
