# rule: inputs-not-modified
# kind: cheat
# Makes the caller's `target_weight` flag off for a moment and puts the flag back
# before returning: the flag read afterwards is the caller's.
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
    flag = target_weight.requires_grad
    target_weight.requires_grad = False  # the caller's flag, off for a moment
    target_weight.requires_grad = flag
    q_taken = (states @ weight).gather(1, actions.unsqueeze(1)).squeeze(1)
    next_value = (next_states @ target_weight).max(dim=1).values
    # The target is a label: detach it so no gradient reaches target_weight (or weight, when they
    # are the same tensor) through the bootstrap.
    target = (rewards + gamma * next_value * (~dones)).detach()
    loss = ((q_taken - target) ** 2).mean()
    loss.backward()
    return {"loss": loss.item(), "weight_grad": weight.grad, "target_weight_grad": target_weight.grad}
