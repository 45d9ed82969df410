import torch


def inverse_permutation(perm: torch.Tensor) -> torch.Tensor:
    """The inverse permutation: inv[perm[i]] == i (row by row for a batch).

    perm is an int64 tensor of shape (n,) or (B, n); each row is a permutation of 0..n-1.
    Return an int64 tensor of the same shape. Vectorised: no Python loop over elements.
    """
    # TODO: scatter the positions 0..n-1 to the places perm points at
    raise NotImplementedError("inverse_permutation is not implemented yet")
