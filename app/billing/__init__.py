"""Buying Premium: a provider interface (Stripe Checkout), a signed webhook, one grant per event."""
