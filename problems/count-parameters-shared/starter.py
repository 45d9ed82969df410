import torch.nn as nn


def count_parameters(model: nn.Module) -> dict:
    """Count the parameters of ``model``, each tied (shared) tensor once.

    Returns {"total": int, "trainable": int, "frozen": int, "tensors": int,
             "shared": sorted list of the names that alias an already-counted tensor}.
    Buffers are not parameters. The model must not be modified.
    """
    # TODO: walk the named parameters, skip tensors you have already counted
    raise NotImplementedError("count_parameters is not implemented yet")
