# rule: inputs-not-modified
# kind: cheat
# Scales the caller's values by a power of two in place and back: bit for bit the same afterwards.
import torch


def segment_sum(values, segment_ids, num_segments):
    values.mul_(2.0)
    out = values.new_zeros((num_segments, values.shape[1]))
    out = out.scatter_add(0, segment_ids.unsqueeze(1).expand_as(values), values) * 0.5
    values.mul_(0.5)
    return out
