"""`jobctrl executions` (issue 13, being built): orphans and stop requests."""

from __future__ import annotations

import click


@click.group("executions")
def executions_group() -> None:
    """Executions Temporal runs that the store does not expect (orphans), and stopping them."""
