# rule: vectorised
# kind: cheat
# The loop hides in map() over unbound tensor methods, with no `for` in sight.
import functools

import torch


def pairwise_sq_dists(x, y):
    if x.shape[0] == 0:
        return x.new_zeros((0, y.shape[0]))
    rows = map(functools.partial(torch.Tensor.sub, y), x)
    return torch.stack(list(map(lambda r: r.pow(2).sum(dim=1), rows)))
