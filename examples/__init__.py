"""Runnable examples of the multitool building blocks (``python -m examples.weather``)."""
