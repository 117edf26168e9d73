"""multitool: several intents in one chat message, one reviewed card per action."""

__version__ = "0.1.0"
