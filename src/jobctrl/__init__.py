"""jobctrl: a local-first, durable job-search pipeline."""

__version__ = "0.1.0"
