# rule: vectorised
# kind: cheat
# The loop over rows hides in map() and a reduce: no `for` in sight.
import functools

import torch


def segment_sum(values, segment_ids, num_segments):
    out = values.new_zeros((num_segments, values.shape[1]))
    rows = map(
        lambda pair: torch.nn.functional.one_hot(pair[1], num_segments).to(values.dtype)[:, None] * pair[0],
        zip(values, segment_ids),
    )
    return functools.reduce(torch.add, rows, out)
