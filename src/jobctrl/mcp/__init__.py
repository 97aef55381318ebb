"""The MCP server (issue 35): a person's own AI assistant searches, explains and prepares
through jobctrl's application layer — never sends, submits or approves.

- ``server``: the ``MCPServer`` of one home, the tenant of each call (stdio: the
  server's; HTTP: the caller's token), errors as MCP tool errors with the CLI's codes and
  sentences.
- ``tools_read`` / ``tools_act`` / ``tools_people``: the tools (``tools_people``: contact
  research, outreach and follow-up drafts, issue 33's functions); each one's input and
  output schema is the SDK's, generated from the typed app models its function takes and
  returns.
- ``resources``: PDFs, evaluation reports and the profile by URI.
- ``http``: the streamable HTTP transport on loopback behind the API's token check.
- ``clients``: the snippet an MCP client's configuration needs.
"""
