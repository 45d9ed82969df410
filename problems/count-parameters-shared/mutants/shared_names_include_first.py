import torch.nn as nn


def count_parameters(model: nn.Module) -> dict:
    total = trainable = 0
    names: dict[int, list[str]] = {}
    for name, param in model.named_parameters(remove_duplicate=False):
        names.setdefault(id(param), []).append(name)
    for param in model.parameters():
        total += param.numel()
        if param.requires_grad:
            trainable += param.numel()
    # Lists every name of a tied tensor, the first (owning) one too.
    shared = sorted(n for group in names.values() if len(group) > 1 for n in group)
    return {
        "total": total,
        "trainable": trainable,
        "frozen": total - trainable,
        "tensors": len(names),
        "shared": shared,
    }
