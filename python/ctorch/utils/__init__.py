"""ctorch.utils (torch.utils)."""
