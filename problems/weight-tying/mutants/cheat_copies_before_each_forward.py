# rule: one-shared-parameter
# kind: cheat
# Two parameters kept equal by copying the embedding into the head before every forward: the values
# always agree, but the head's gradient never reaches the embedding.
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
        with torch.no_grad():
            self.lm_head.weight.copy_(self.embedding.weight)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        with torch.no_grad():
            self.lm_head.weight.copy_(self.embedding.weight)
        h = torch.tanh(self.proj(self.embedding(tokens)))
        return self.lm_head(h)


def build_tied_lm(vocab_size: int, dim: int) -> nn.Module:
    return TiedLanguageModel(vocab_size, dim)
