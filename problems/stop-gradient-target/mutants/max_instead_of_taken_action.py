def td_loss_and_grads(weight, target_weight, states, actions, rewards, next_states, dones, gamma):
    # Uses max_a Q(s, a) for the prediction too, instead of the action that was actually taken.
    q_taken = (states @ weight).max(dim=1).values
    next_value = (next_states @ target_weight).max(dim=1).values
    target = (rewards + gamma * next_value * (~dones)).detach()
    loss = ((q_taken - target) ** 2).mean()
    loss.backward()
    return {"loss": loss.item(), "weight_grad": weight.grad, "target_weight_grad": target_weight.grad}
