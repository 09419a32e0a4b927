"""ctorch.utils.data (torch.utils.data): datasets, samplers, collation and
the DataLoader with its worker processes.

torch's DataPipes (IterDataPipe, MapDataPipe, DataLoader2, communication)
are not part of ctorch."""
import os as _os

from .sampler import (BatchSampler, RandomSampler, Sampler, SequentialSampler,
                      SubsetRandomSampler, WeightedRandomSampler)
from .dataset import (ChainDataset, ConcatDataset, Dataset, IterableDataset, Subset,
                      TensorDataset, random_split)
from .dataloader import (DataLoader, _DatasetKind, default_collate, default_convert,
                         get_worker_info)
from .distributed import DistributedSampler

__all__ = ["BatchSampler", "ChainDataset", "ConcatDataset", "DataLoader", "Dataset",
           "DistributedSampler", "IterableDataset", "RandomSampler", "Sampler",
           "SequentialSampler", "Subset", "SubsetRandomSampler", "TensorDataset",
           "WeightedRandomSampler", "_DatasetKind", "default_collate", "default_convert",
           "get_worker_info", "random_split"]

# Printed names follow PyTorch's under ctorchrun
# (<torch.utils.data.dataloader.DataLoader object at ...>): every class of
# this package, the iterators and worker-side ones included.
if _os.environ.get("CTORCH_TORCH_NAMES") == "1":
    import sys as _sys
    for _name, _mod in list(_sys.modules.items()):
        if _name == __name__ or _name.startswith(__name__ + "."):
            for _cls in list(vars(_mod).values()):
                if isinstance(_cls, type) and _cls.__module__ == _name:
                    _cls.__module__ = "torch" + _name[len("ctorch"):]
