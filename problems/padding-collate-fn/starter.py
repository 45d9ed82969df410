import torch
from torch.nn.utils.rnn import pad_sequence


def pad_collate(batch):
    """collate_fn for a DataLoader whose items are (sequence, label) pairs.

    sequence: tensor of shape (L_i,) or (L_i, F), lengths differ; label: a Python int.
    Returns {"padded": (B, L_max[, F]) same dtype as the sequences, zero-padded at the end,
             "lengths": int64 (B,), "mask": bool (B, L_max) True on real positions,
             "labels": int64 (B,)}, in the order of the batch.
    """
    # TODO
    raise NotImplementedError("pad_collate is not implemented yet")
