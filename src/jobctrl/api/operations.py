"""HTTP routes for issue 13 (being built)."""

from __future__ import annotations

from fastapi import FastAPI

from jobctrl.home import Home


def register_operations(app: FastAPI, home: Home) -> None:
    """Add this feature's routes to ``app``."""
