"""Loggers named as torchelastic names them, so the launcher's log lines
read as PyTorch's do ("WARNING:torch.distributed.elastic...:...")."""
import logging
import os


def get_logger(name=None):
    """The logger for `name`, shown under torch's name for a ctorch module,
    at the level in $LOGLEVEL (WARNING by default).  It has no handler of
    its own: the launcher installs logging's basic configuration."""
    if name and name.startswith("ctorch."):
        name = name[1:]
    log = logging.getLogger(name)
    log.setLevel(os.environ.get("LOGLEVEL", "WARNING"))
    return log
