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
    """The TD(0) loss of a linear Q-function, with the bootstrapped target treated as a constant.

    Q(s) = s @ weight, Q_target(s) = s @ target_weight (both (N, D) @ (D, A) -> (N, A)).
    target = rewards + gamma * max_a Q_target(next_states)  (no bootstrap where dones is True).
    loss = mean((Q(states)[i, actions[i]] - target[i]) ** 2); call loss.backward().

    Returns {"loss": float, "weight_grad": weight.grad, "target_weight_grad": target_weight.grad}.
    """
    q = states @ weight
    target = rewards + gamma * (next_states @ target_weight).max(dim=1).values
    loss = ((q.max(dim=1).values - target) ** 2).mean()  # TODO: the taken actions, dones, the stop-gradient
    loss.backward()
    return {"loss": loss.item(), "weight_grad": weight.grad, "target_weight_grad": target_weight.grad}
