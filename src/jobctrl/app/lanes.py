"""Choosing a lane's provider and model (the ``providers:`` map of config.yaml)."""

from __future__ import annotations

from jobctrl import config as config_file
from jobctrl.app.configuration import LaneView, list_lanes
from jobctrl.config import LANES, OUTPUT_MODES, PROVIDERS, LaneProvider
from jobctrl.domain.errors import INVALID_INPUT, JobctrlError
from jobctrl.home import Home

__all__ = ["OUTPUT_MODES", "set_lane"]


def set_lane(
    home: Home,
    lane: str,
    provider: str,
    model: str,
    base_url: str | None,
    api_key_env: str | None,
    output: str = "tool",
) -> LaneView:
    """Set ``lane`` to ``provider`` and ``model``, asking for structured output as
    ``output`` says (``OUTPUT_MODES``); the lane as ``llm list`` shows it."""
    if lane not in LANES:
        raise JobctrlError(f"unknown lane {lane!r}; one of: {', '.join(LANES)}", code=INVALID_INPUT)
    if provider not in PROVIDERS:
        raise JobctrlError(
            f"unknown provider {provider!r}; one of: {', '.join(PROVIDERS)}", code=INVALID_INPUT
        )
    if base_url and not base_url.startswith(("http://", "https://")):
        raise JobctrlError("--base-url must be an http(s) URL", code=INVALID_INPUT)
    if api_key_env and not api_key_env.replace("_", "").isalnum():
        raise JobctrlError(
            "--api-key-env takes the NAME of an environment variable", code=INVALID_INPUT
        )
    if output not in OUTPUT_MODES:
        raise JobctrlError(
            f"unknown output mode {output!r}; one of: {', '.join(OUTPUT_MODES)}",
            code=INVALID_INPUT,
        )
    lp = LaneProvider.model_validate(
        {
            "provider": provider,
            "model": model,
            "base_url": base_url,
            "api_key_env": api_key_env,
            "output": output,
        }
    )
    config_file.set_lane(home, lane, lp)
    return next(r for r in list_lanes(home) if r.lane == lane)
