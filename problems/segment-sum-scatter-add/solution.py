import torch


def segment_sum(values: torch.Tensor, segment_ids: torch.Tensor, num_segments: int) -> torch.Tensor:
    # Zeros first (empty segments stay zero), then accumulate: duplicates in segment_ids add up.
    out = values.new_zeros((num_segments, values.shape[1]))
    index = segment_ids.unsqueeze(1).expand_as(values)  # scatter_add wants an index shaped like src
    return out.scatter_add_(0, index, values)
