import torch
import torch.nn as nn


class ResidualBlock(nn.Module):
    """x + fc2(relu(fc1(x))), with fc1 = Linear(dim, hidden) and fc2 = Linear(hidden, dim)."""

    def __init__(self, dim: int, hidden: int) -> None:
        super().__init__()
        # TODO: fc1 and fc2

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        raise NotImplementedError("ResidualBlock.forward is not implemented yet")


class ResidualMLP(nn.Module):
    """num_blocks independent ResidualBlocks, kept in self.blocks, applied in order."""

    def __init__(self, dim: int, hidden: int, num_blocks: int) -> None:
        super().__init__()
        # TODO: self.blocks, registered so that its parameters are the model's parameters

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        raise NotImplementedError("ResidualMLP.forward is not implemented yet")


def build_residual_mlp(dim: int, hidden: int, num_blocks: int) -> nn.Module:
    return ResidualMLP(dim, hidden, num_blocks)
