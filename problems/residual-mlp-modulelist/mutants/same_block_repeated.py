# rule: independent-registered-blocks
import torch
import torch.nn as nn


class ResidualBlock(nn.Module):
    def __init__(self, dim: int, hidden: int) -> None:
        super().__init__()
        self.fc1 = nn.Linear(dim, hidden)
        self.fc2 = nn.Linear(hidden, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + self.fc2(torch.relu(self.fc1(x)))


class ResidualMLP(nn.Module):
    def __init__(self, dim: int, hidden: int, num_blocks: int) -> None:
        super().__init__()
        # ModuleList registers every block as a submodule: their parameters show up in
        # parameters(), state_dict(), .to(device) and the optimizer. A Python list would hide them.
        self.blocks = nn.ModuleList([ResidualBlock(dim, hidden)] * num_blocks)  # one block, num_blocks times

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for block in self.blocks:
            x = block(x)
        return x


def build_residual_mlp(dim: int, hidden: int, num_blocks: int) -> nn.Module:
    return ResidualMLP(dim, hidden, num_blocks)
