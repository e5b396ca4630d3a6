"""Every write of the social app, one module per sub-domain:

- ``seeks``: quick pairing, the seeks and the matcher;
- ``rematch``: playing a finished game again;
- ``chat``: the games' and the tournaments' chats;
- ``challenges``: one person inviting another;
- ``notices``: a person's notices, pushed and e-mailed, and the tournament rounds' pushes;
- ``preferences``: a person's preferences and their e-mail address.

Each service is one transaction; pushes (to a person's pages or a game's watchers) and e-mails go
out on commit. Refusals raise the shared domain errors (``InvalidInput``, ``NotAllowed``,
``NotFound``, ``Conflict``: ``core.errors``), so the API and the sockets answer them as
they answer game errors. Callers import a service from its module; the package exports nothing.
"""
