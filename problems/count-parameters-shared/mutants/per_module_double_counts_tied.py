import torch.nn as nn


def count_parameters(model: nn.Module) -> dict:
    # Each module's own parameters, summed over modules: a tied weight is counted in both owners.
    total = trainable = tensors = 0
    for module in model.modules():
        for param in module.parameters(recurse=False):
            tensors += 1
            total += param.numel()
            if param.requires_grad:
                trainable += param.numel()
    return {
        "total": total,
        "trainable": trainable,
        "frozen": total - trainable,
        "tensors": tensors,
        "shared": [],
    }
