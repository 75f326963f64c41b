"""Debian's nginx in front of the suite's replicas: ``Nginx(replicas, base).start()``.

The server block is the checked-in example, ``deploy/nginx.conf``, rendered by
:func:`render`: the ``server`` lines of each upstream become the given replicas
(``127.0.0.1:port``) and ``listen 80`` a free loopback port. A minimal main config around
it keeps everything (pid, logs, temp files) in ``base``; nginx runs in the foreground
(``daemon off``) as a child of the test process, and ``stop()`` ends it (also at exit).

``find_nginx()`` is None where nginx is not installed (CI installs Debian's ``nginx``:
``.ci/run``); tests then skip, or fail under ``SS_TOOLS_REQUIRE_ALL=1``.
"""

from __future__ import annotations

import atexit
import re
import shutil
import socket
import subprocess
import time
from collections.abc import Sequence
from pathlib import Path

from app.sandbox.processes import end_process, free_port
from tests.waiting import WAIT_S

ROOT = Path(__file__).resolve().parent.parent
TEMPLATE = ROOT / "deploy" / "nginx.conf"
_UPSTREAM = re.compile(r"(upstream\s+\w+\s*\{)(.*?)(\})", re.S)
_SERVER_LINE = re.compile(r"^([ \t]*)server[ \t]+\S+([ \t][^;]*)?;[^\n]*\n", re.M)

MAIN_CONF = """\
daemon off;
worker_processes 1;
pid {base}/nginx.pid;
error_log {base}/error.log warn;
events {{ worker_connections 1024; }}
http {{
    access_log {base}/access.log;
    client_body_temp_path {base}/tmp/body;
    proxy_temp_path {base}/tmp/proxy;
    fastcgi_temp_path {base}/tmp/fastcgi;
    uwsgi_temp_path {base}/tmp/uwsgi;
    scgi_temp_path {base}/tmp/scgi;
    include {base}/ss-tools.conf;
}}
"""


class NginxError(RuntimeError):
    """nginx refused the config or did not start (its own words included)."""


def find_nginx() -> str | None:
    """The nginx binary (``PATH``, then Debian's ``/usr/sbin/nginx``), or None."""
    found = shutil.which("nginx")
    if found:
        return found
    return "/usr/sbin/nginx" if Path("/usr/sbin/nginx").exists() else None


def render(template: str, *, port: int, replicas: Sequence[str]) -> str:
    """``template`` (deploy/nginx.conf) for ``replicas`` behind ``127.0.0.1:port``: every
    upstream's ``server`` lines replaced (their options kept), ``listen 80`` replaced."""
    if not replicas:
        raise ValueError("no replicas")
    count = 0

    def upstream(match: re.Match[str]) -> str:
        nonlocal count
        seen = 0

        def server(line: re.Match[str]) -> str:  # the first line becomes all the replicas
            nonlocal seen
            seen += 1
            indent, options = line.group(1), line.group(2) or ""
            return "".join(f"{indent}server {r}{options};\n" for r in replicas) if seen == 1 else ""

        body = _SERVER_LINE.sub(server, match.group(2))
        if not seen:
            raise NginxError(f"an upstream without server lines: {match.group(1)}")
        count += 1
        return match.group(1) + body + match.group(3)

    out = _UPSTREAM.sub(upstream, template)
    out, listens = re.subn(
        r"^(\s*)listen\s+80;", rf"\g<1>listen 127.0.0.1:{port};", out, flags=re.M
    )
    if count == 0 or listens != 1:
        raise NginxError(f"deploy/nginx.conf changed shape: {count} upstreams, {listens} listens")
    return out


class Nginx:
    """One nginx on ``127.0.0.1:port`` in front of ``replicas`` (``host:port`` each)."""

    def __init__(self, replicas: Sequence[str], base: Path, port: int | None = None) -> None:
        binary = find_nginx()
        if binary is None:
            raise NginxError("nginx is not installed (apt-get install nginx)")
        self.binary, self.base = binary, base
        self.replicas = list(replicas)
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.conf = base / "nginx.conf"
        self.proc: subprocess.Popen[bytes] | None = None

    def write_config(self) -> None:
        (self.base / "tmp").mkdir(parents=True, exist_ok=True)
        site = render(TEMPLATE.read_text(), port=self.port, replicas=self.replicas)
        (self.base / "ss-tools.conf").write_text(site)
        self.conf.write_text(MAIN_CONF.format(base=self.base))

    def _argv(self, *extra: str) -> list[str]:
        # -e: the error log from the first line on (not /var/log/nginx, maybe unwritable)
        return [self.binary, "-p", str(self.base), "-c", str(self.conf), "-e",
                str(self.base / "error.log"), *extra]  # fmt: skip

    def start(self, timeout: float = WAIT_S) -> Nginx:
        self.write_config()
        check = subprocess.run(self._argv("-t"), capture_output=True, text=True, timeout=30)
        if check.returncode != 0:
            raise NginxError(f"nginx -t refused the config: {check.stderr[-1500:]}")
        log = (self.base / "nginx.out").open("ab")
        self.proc = subprocess.Popen(self._argv(), stdout=log, stderr=subprocess.STDOUT)
        atexit.register(self.stop)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise NginxError(f"nginx exited ({self.proc.returncode}): {self.tail()}")
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.5).close()
                return self
            except OSError:
                time.sleep(0.05)
        self.stop()
        raise NginxError(f"nginx did not listen on {self.port} in {timeout}s: {self.tail()}")

    def tail(self) -> str:
        try:
            return (self.base / "error.log").read_text(errors="replace")[-1500:]
        except OSError:
            return ""

    def stop(self) -> None:
        """Fast shutdown (SIGTERM to the master, which ends its workers)."""
        if self.proc is not None:
            end_process(self.proc, timeout=10)
