"""ctorch.nn.functional: the functional forms of the layers and losses.
Each family keeps its functions in a private module (nn/_functional_*.py)
and is re-exported here."""
