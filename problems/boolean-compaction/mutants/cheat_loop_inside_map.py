# rule: vectorised
# kind: cheat
# Row by row, the loop hidden in filter() and map(): no `for` in sight.
import torch


def compact_rows(x, mask):
    kept = list(filter(lambda i: bool(mask[i]), range(mask.shape[0])))
    indices = torch.tensor(kept, dtype=torch.int64)
    rows = list(map(lambda i: x[i], kept))
    return (torch.stack(rows) if rows else x[:0]), indices
