import torch


def segment_sum(values: torch.Tensor, segment_ids: torch.Tensor, num_segments: int) -> torch.Tensor:
    """Sum the rows of values (n, d) into num_segments rows by segment id.

    out[g] = sum of values[i] over every i with segment_ids[i] == g; segments without
    any row are zeros. segment_ids is int64 (n,), unsorted, values in [0, num_segments).
    Returns (num_segments, d) with values' dtype. Do not modify the inputs.
    """
    # TODO: zeros, then an accumulating scatter (scatter_add_ or index_add_)
    raise NotImplementedError("segment_sum is not implemented yet")
