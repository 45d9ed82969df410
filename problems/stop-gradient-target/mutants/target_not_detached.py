# rule: stop-gradient-inside
def td_loss_and_grads(weight, target_weight, states, actions, rewards, next_states, dones, gamma):
    q_taken = (states @ weight).gather(1, actions.unsqueeze(1)).squeeze(1)
    next_value = (next_states @ target_weight).max(dim=1).values
    target = rewards + gamma * next_value * (~dones)  # gradient flows into the target too
    loss = ((q_taken - target) ** 2).mean()
    loss.backward()
    return {"loss": loss.item(), "weight_grad": weight.grad, "target_weight_grad": target_weight.grad}
