import torch


def amp_train_step(model, optimizer, scaler, loss_fn, inputs, targets, max_norm: float) -> dict:
    """One mixed-precision training step on CPU.

    Forward in torch.autocast("cpu", dtype=torch.bfloat16), loss in float32, backward through the
    GradScaler, unscale before clipping to max_norm, step through the scaler (skipped on inf/NaN
    gradients), update the scale. Returns {"loss", "grad_norm", "stepped", "scale"}.
    """
    optimizer.zero_grad()
    outputs = model(inputs)
    loss = loss_fn(outputs, targets)
    loss.backward()
    grad_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
    optimizer.step()
    # TODO: autocast, scaler.scale / unscale_ / step / update, report whether the step was taken
    raise NotImplementedError("amp_train_step is not implemented yet")
