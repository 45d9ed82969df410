# rule: no-builtin-cross-entropy
# kind: cheat
# The C binding behind F.cross_entropy, with its own label_smoothing argument.
import torch


def label_smoothed_cross_entropy(logits, target, smoothing, ignore_index=-100):
    return torch._C._nn.cross_entropy_loss(logits, target, None, 1, ignore_index, smoothing)
