"""Render supervisord's configuration for `make up` from the Procfile (deploy/up.sh runs this).

    python deploy/supervisord_conf.py PROCFILE WEB WEB_PORT OUTPUT

Each Procfile line becomes a supervisord program; `web` becomes WEB programs `web-1` … `web-N`,
listening on WEB_PORT … WEB_PORT + N - 1 (the ports deploy/up.sh lists in nginx's upstreams). All
are in one group, `siesta`, so that SIGINT or SIGTERM (Ctrl-C, `make down`) stops them all at once
(supervisord stops its groups one after the other). Every program is restarted alone when it
exits, at once and for ever (a crash loop backs off by a second more each try); the others keep
running. supervisord stays in the foreground, every program's output on its own standard output.

Stopping: SIGTERM to a web process's whole process group (its engine workers too); to the main
process only of a Celery worker (its warm shutdown ends its pool: a SIGTERM to the pool's
children would lose their tasks) and of nginx and beat; a program still there after
``STOP_SECONDS`` is killed with its whole group.

`supervisorctl -c var/supervisord.conf status|restart siesta:web-1|...` talks to it through the
unix socket beside the configuration. Standard library only.
"""

from __future__ import annotations

import os
import shlex
import sys
from pathlib import Path

RESTART_TRIES = 1000
"""Tries before supervisord gives a program up (FATAL): a crash loop waits 1 s, 2 s, ... between
tries, so a database or Redis away for a while does not end it."""

STOP_SECONDS = {"web": 10, "nginx": 5, "beat": 10}
"""How long a program may take to stop after SIGTERM before its group is killed. Beat holds
nothing; a Celery worker's warm shutdown finishes the tasks in hand (bot turns take seconds)."""
DEFAULT_STOP_SECONDS = 30


def procfile_entries(text: str) -> list[tuple[str, str]]:
    """(name, command) of each line of a Procfile, in order."""
    entries = []
    for line in text.splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            name, command = line.split(":", 1)
            entries.append((name.strip(), command.strip()))
    return entries


def _command(command: str, root: Path, port: int | None) -> str:
    """The Procfile's command for supervisord: ``$PORT`` filled in, the project's relative
    executables made absolute, and ``%`` doubled (supervisord expands ``%(name)s`` in commands)."""
    words = shlex.split(command)
    if port is not None:
        words = [word.replace("$PORT", str(port)) for word in words]
    if "/" in words[0] and not words[0].startswith("/"):
        words[0] = str(root / words[0])
    return shlex.join(words).replace("%", "%%")


GROUP = "siesta"
"""The one group of every program: ``supervisorctl restart siesta:web-1``."""

SIGNAL_GROUP = {"web"}
"""The programs whose SIGTERM goes to their whole process group."""


def _program(name: str, command: str, root: Path, kind: str) -> str:
    stop_group = "true" if kind in SIGNAL_GROUP else "false"
    return f"""
[program:{name}]
command={command}
directory={root}
autostart=true
autorestart=true
startsecs=1
startretries={RESTART_TRIES}
stopsignal=TERM
stopwaitsecs={STOP_SECONDS.get(kind, DEFAULT_STOP_SECONDS)}
stopasgroup={stop_group}
killasgroup=true
redirect_stderr=true
stdout_logfile=/dev/stdout
stdout_logfile_maxbytes=0
"""


def render(procfile: str, web: int, web_port: int, root: Path, var: Path) -> str:
    """supervisord's configuration (see the module's text)."""
    # As root, say so (supervisord warns otherwise); as anyone else, it runs as that user.
    user = "user=root\n" if os.geteuid() == 0 else ""
    parts = [
        f"""; Written by deploy/supervisord_conf.py from the Procfile: edit those, not this.
[supervisord]
nodaemon=true
{user}logfile=/dev/null
logfile_maxbytes=0
loglevel=info
pidfile={var}/supervisord.pid
childlogdir={var}
directory={root}

[unix_http_server]
file={var}/supervisor.sock
chmod=0700

[rpcinterface:supervisor]
supervisor.rpcinterface_factory = supervisor.rpcinterface:make_main_rpcinterface

[supervisorctl]
serverurl=unix://{var}/supervisor.sock
"""
    ]
    names = []
    for name, command in procfile_entries(procfile):
        if name == "web":
            for index in range(web):
                names.append(f"web-{index + 1}")
                parts.append(
                    _program(names[-1], _command(command, root, web_port + index), root, name)
                )
        else:
            names.append(name)
            parts.append(_program(name, _command(command, root, None), root, name))
    parts.append(f"\n[group:{GROUP}]\nprograms={','.join(names)}\n")
    return "".join(parts)


def main(argv: list[str]) -> None:
    procfile, web, web_port, output = argv
    target = Path(output).resolve()
    text = render(
        Path(procfile).read_text(), int(web), int(web_port), Path.cwd().resolve(), target.parent
    )
    target.write_text(text)


if __name__ == "__main__":
    main(sys.argv[1:])
