# rule: one-shared-parameter
import torch
import torch.nn as nn


class TiedLanguageModel(nn.Module):
    def __init__(self, vocab_size: int, dim: int) -> None:
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, dim)
        self.proj = nn.Linear(dim, dim)
        self.lm_head = nn.Linear(dim, vocab_size, bias=False)
        # Tie: both modules now hold the *same* Parameter object. Embedding.weight is (V, D) and
        # Linear(D, V).weight is (V, D) too, so no transpose is needed.
        self.lm_head.weight = nn.Parameter(self.embedding.weight)  # a second Parameter over the same memory

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        h = torch.tanh(self.proj(self.embedding(tokens)))
        return self.lm_head(h)


def build_tied_lm(vocab_size: int, dim: int) -> nn.Module:
    return TiedLanguageModel(vocab_size, dim)
