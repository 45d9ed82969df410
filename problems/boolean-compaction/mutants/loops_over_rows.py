# rule: vectorised
import torch


def compact_rows(x, mask):
    # right rows and indices, found one row at a time
    kept = [i for i in range(mask.shape[0]) if mask[i]]
    indices = torch.tensor(kept, dtype=torch.long)
    return x[indices], indices
