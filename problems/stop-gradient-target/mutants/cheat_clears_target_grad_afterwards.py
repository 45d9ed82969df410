# rule: stop-gradient-inside
# kind: cheat
# No detach: the gradient flows through the target, and the target's .grad is wiped afterwards so it
# looks stopped. With one shared weight the bootstrap's gradient is already mixed into weight.grad.
def td_loss_and_grads(weight, target_weight, states, actions, rewards, next_states, dones, gamma):
    q_taken = (states @ weight).gather(1, actions.unsqueeze(1)).squeeze(1)
    next_value = (next_states @ target_weight).max(dim=1).values
    target = rewards + gamma * next_value * (~dones)
    loss = ((q_taken - target) ** 2).mean()
    loss.backward()
    if target_weight is not weight:
        target_weight.grad = None
    return {"loss": loss.item(), "weight_grad": weight.grad, "target_weight_grad": target_weight.grad}
