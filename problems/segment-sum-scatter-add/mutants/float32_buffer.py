import torch


def segment_sum(values, segment_ids, num_segments):
    out = torch.zeros(num_segments, values.shape[1])  # always float32, whatever values' dtype
    return out.index_add_(0, segment_ids, values.float())
