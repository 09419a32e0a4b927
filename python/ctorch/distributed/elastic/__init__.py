"""ctorch.distributed.elastic: the pieces of torchelastic that the launcher
(ctorch.distributed.run) and training scripts use: worker processes and
their error files (multiprocessing, multiprocessing.errors), and the static
and c10d rendezvous (rendezvous)."""
