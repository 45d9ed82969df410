import torch


def accumulated_step(model, optimizer, loss_fn, inputs, targets, micro_batch_size: int) -> float:
    """One optimizer step on the whole batch (inputs, targets), computed in micro-batches of
    `micro_batch_size` samples (the last one may be smaller), so that the step equals the step of
    one big batch. loss_fn returns the mean loss of a batch. Returns the big batch's mean loss.
    """
    # TODO: zero the gradients, backward each scaled micro-batch loss, step once
    raise NotImplementedError("accumulated_step is not implemented yet")
