"""multitool: several intents in one chat message, one reviewed card per action."""

from pathlib import Path

__version__ = "0.1.0"

FOLDER = Path(__file__).parent
"""The package's folder: its data files (``schemas/``, the layer's holiday table) are read from it by
path (``importlib.resources.files`` would load its readers, four more modules, for the same read)."""
