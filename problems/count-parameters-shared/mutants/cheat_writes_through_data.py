# rule: model-not-modified
# kind: cheat
# Writes every parameter through `.data` (a version counter of its own) and back: bit for bit
# the same afterwards, and no counter of the caller's tensors moved.
import torch.nn as nn


def count_parameters(model: nn.Module) -> dict:
    for p in model.parameters():
        p.data.mul_(2.0)
        p.data.mul_(0.5)
    seen: set[int] = set()
    total = trainable = 0
    shared: list[str] = []
    # remove_duplicate=False yields every name a parameter is reachable under, so tied weights
    # show up twice; identity (not equal values) decides whether we have counted a tensor already.
    for name, param in model.named_parameters(remove_duplicate=False):
        if id(param) in seen:
            shared.append(name)
            continue
        seen.add(id(param))
        total += param.numel()
        if param.requires_grad:
            trainable += param.numel()
    return {
        "total": total,
        "trainable": trainable,
        "frozen": total - trainable,
        "tensors": len(seen),
        "shared": sorted(shared),
    }
