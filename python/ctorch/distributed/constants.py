"""Constants of torch.distributed."""
from datetime import timedelta

# Default timeout of a process group's operations (gloo): 30 minutes, as c10d.
default_pg_timeout = timedelta(minutes=30)
