"""ctorch.nn.init: parameter initialization, drawing from ctorch's generator
in PyTorch's order so that seeded initializations are bit-identical."""
