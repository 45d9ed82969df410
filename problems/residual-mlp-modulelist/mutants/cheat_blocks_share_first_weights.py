# rule: independent-registered-blocks
# kind: cheat
# Every block is a module of its own, but from the second on its Linear weights are the first
# block's Parameters: the module tree looks independent, the weights are shared.


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
        self.blocks = nn.ModuleList([ResidualBlock(dim, hidden) for _ in range(num_blocks)])
        for block in list(self.blocks)[1:]:
            first = self.blocks[0]
            block.fc1.weight = first.fc1.weight
            block.fc2.weight = first.fc2.weight

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for block in self.blocks:
            x = block(x)
        return x


def build_residual_mlp(dim: int, hidden: int, num_blocks: int) -> nn.Module:
    return ResidualMLP(dim, hidden, num_blocks)
