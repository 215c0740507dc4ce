"""sessdex: find, resume, read and count every AI coding agent session on this machine."""

__version__ = "0.1.0"

__all__ = ["__version__"]
