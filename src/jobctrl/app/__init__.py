"""The application layer: every command and query the CLI and the HTTP API offer.

One function per command or query, split by feature; each takes a ``Home`` and plain
arguments and returns plain data (camelCase keys), so the CLI prints it as text or JSON
and the API serves the same shapes. Nothing above this package touches the store, the
stages or Temporal; a command that fails raises a ``JobctrlError`` with a stable code.

- ``home``: set up a home.
- ``jobs``: add a posting, retry a failed stage.
- ``discovery``: start or cancel a discovery run.
- ``materials``: approve, reject or regenerate a job's materials.
- ``settings``, ``sources``, ``profile``, ``lanes``: change what config.yaml and the
  settings table say.
- ``projections``: rebuild the read models.
- ``queries``: every read (jobs, runs, spend, events, settings, artifacts, profile).
- ``runtime``: reaching Temporal, and a polling worker, for a command.
- ``worker``: running the worker process (heavy to import: the CLI loads it only in
  the commands that start a worker).
"""
