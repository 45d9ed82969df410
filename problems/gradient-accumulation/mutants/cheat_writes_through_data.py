# rule: inputs-not-modified
# kind: cheat
# Writes the caller's inputs through `.data` (a version counter of its own) and back: bit for bit
# the same afterwards, and no counter of the caller's tensors moved.
import torch


def accumulated_step(model, optimizer, loss_fn, inputs, targets, micro_batch_size: int) -> float:
    inputs.data.mul_(2.0)
    inputs.data.mul_(0.5)
    n = inputs.shape[0]
    optimizer.zero_grad()
    total = 0.0
    for start in range(0, n, micro_batch_size):
        x = inputs[start : start + micro_batch_size]
        y = targets[start : start + micro_batch_size]
        share = x.shape[0] / n  # the last micro-batch may be smaller: weigh by samples
        loss = loss_fn(model(x), y)
        (loss * share).backward()  # gradients add up in .grad across backward calls
        total += loss.item() * share
    optimizer.step()
    return total
