# rule: inputs-not-modified
# kind: cheat
# Writes the caller's states through `.data` (a version counter of its own) and back: bit for bit
# the same afterwards, and no counter of the caller's tensors moved.
import torch


def td_loss_and_grads(
    weight: torch.Tensor,
    target_weight: torch.Tensor,
    states: torch.Tensor,
    actions: torch.Tensor,
    rewards: torch.Tensor,
    next_states: torch.Tensor,
    dones: torch.Tensor,
    gamma: float,
) -> dict:
    states.data.mul_(2.0)
    states.data.mul_(0.5)
    q_taken = (states @ weight).gather(1, actions.unsqueeze(1)).squeeze(1)
    next_value = (next_states @ target_weight).max(dim=1).values
    # The target is a label: detach it so no gradient reaches target_weight (or weight, when they
    # are the same tensor) through the bootstrap.
    target = (rewards + gamma * next_value * (~dones)).detach()
    loss = ((q_taken - target) ** 2).mean()
    loss.backward()
    return {"loss": loss.item(), "weight_grad": weight.grad, "target_weight_grad": target_weight.grad}
