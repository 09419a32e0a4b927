"""ctorch.distributed.launcher: LaunchConfig and elastic_launch, the
launcher's engine (ctorch.distributed.run parses the flags into these)."""
from .api import LaunchConfig, elastic_launch, launch_agent  # noqa: F401
