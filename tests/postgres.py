"""A real PostgreSQL server for the tests: initdb and pg_ctl in a temporary folder, on a free loopback port.

PostgreSQL refuses to run as root; as root (CI, these machines) the server runs as the `postgres`
user through runuser, in a folder that user owns. For the tests durability is switched off (fsync,
synchronous commit): they check behaviour, not crash safety of the disk, and each database is new.
"""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path

SERVER_USER = "postgres"


def find_bin() -> Path | None:
    """The folder of initdb and pg_ctl: INTERVIEW_BOT_PG_BIN, else the newest /usr/lib/postgresql/*/bin."""
    chosen = os.environ.get("INTERVIEW_BOT_PG_BIN")
    if chosen:
        return Path(chosen) if (Path(chosen) / "pg_ctl").exists() else None
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"), key=lambda p: int(Path(p).parts[-3]))
    if found:
        return Path(found[-1]).parent
    on_path = shutil.which("pg_ctl")
    return Path(on_path).parent if on_path else None


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def listening(port: int) -> bool:
    """Whether something accepts connections on the loopback port (a server started in another process)."""
    with socket.socket() as probe:
        probe.settimeout(0.2)
        return probe.connect_ex(("127.0.0.1", port)) == 0


class PostgresServer:
    """One throwaway server; `url(name)` addresses a database in it as the `postgres` superuser."""

    def __init__(self, bin_dir: Path) -> None:
        self.bin_dir = bin_dir
        self.folder = Path(tempfile.mkdtemp(prefix="interview-bot-pg-"))
        self.data = self.folder / "data"
        self.port = free_port()
        self.as_root = os.geteuid() == 0

    def _run(self, *command: str) -> None:
        prefix = ["runuser", "-u", SERVER_USER, "--"] if self.as_root else []
        subprocess.run([*prefix, *command], check=True, capture_output=True, timeout=120)

    def start(self, durable: bool = False) -> None:
        """initdb and start; `durable` keeps fsync and synchronous commit on (for benchmarks' figures)."""
        if self.as_root:
            shutil.chown(self.folder, SERVER_USER, SERVER_USER)
        self.folder.chmod(0o700)
        self._run(str(self.bin_dir / "initdb"), "-D", str(self.data), "-U", "postgres", "--auth=trust",
                  "--no-sync", "-E", "UTF8", "--locale=C")
        speed = "" if durable else "fsync = off\nsynchronous_commit = off\nfull_page_writes = off\n"
        with open(self.data / "postgresql.conf", "a") as conf:
            conf.write(f"\nlisten_addresses = '127.0.0.1'\nport = {self.port}\n"
                       f"unix_socket_directories = '{self.folder}'\n{speed}max_connections = 200\n")
        self.pg_ctl("start")

    def pg_ctl(self, action: str) -> None:
        """start, stop or restart, waiting until it is done."""
        extra = ["-m", "fast"] if action in ("stop", "restart") else []
        self._run(str(self.bin_dir / "pg_ctl"), "-D", str(self.data), "-l", str(self.folder / "server.log"),
                  "-w", *extra, action)

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{database}"

    def stop(self) -> None:
        try:
            self.pg_ctl("stop")
        finally:
            shutil.rmtree(self.folder, ignore_errors=True)
