# rule: inputs-not-modified
# Right batch, but the caller's sequences are shifted in place and only the padded copy shifted back.
import torch
from torch.nn.utils.rnn import pad_sequence


def pad_collate(batch):
    sequences = [sequence for sequence, _ in batch]
    labels = torch.tensor([int(label) for _, label in batch], dtype=torch.int64)
    lengths = torch.tensor([sequence.shape[0] for sequence in sequences], dtype=torch.int64)
    for s in sequences:
        s.add_(1)
    padded = pad_sequence(sequences, batch_first=True, padding_value=1) - 1
    # position j of row i is real when j < length_i: one broadcast comparison builds the whole mask
    mask = torch.arange(padded.shape[1]) < lengths.unsqueeze(1)
    return {"padded": padded, "lengths": lengths, "mask": mask, "labels": labels}
