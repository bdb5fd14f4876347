"""A real IMAP server for the tests: Debian's Dovecot, started as an unprivileged process with a
throw-away configuration, mail folder and user (passdb and userdb from a passwd-file), listening
on a free port of 127.0.0.1 without TLS. Written for Dovecot 2.3 (Debian 12's)."""

from __future__ import annotations

import os
import pwd
import grp
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

USER, PASSWORD = "alice", "s3cret-app-password"


def dovecot_binary() -> str | None:
    return shutil.which("dovecot") or (
        "/usr/sbin/dovecot" if os.access("/usr/sbin/dovecot", os.X_OK) else None)


def unsupported_version() -> str | None:
    """Why this Dovecot cannot be driven with the configuration below, or None. Dovecot 2.4 changed
    the configuration language (Debian 13 ships it); only 2.3's is written here, and tested."""
    found = subprocess.run([dovecot_binary(), "--version"], capture_output=True, text=True).stdout.strip()
    return None if found.startswith("2.3.") else f"Dovecot {found or '(unknown version)'}: the tests configure 2.3"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _run_as() -> tuple[int, int, str, str]:
    """Dovecot refuses to run its login processes as root: under root, run it all as nobody."""
    if os.geteuid() != 0:
        uid, gid = os.getuid(), os.getgid()
    else:
        uid, gid = pwd.getpwnam("nobody").pw_uid, grp.getgrnam("nogroup").gr_gid
    return uid, gid, pwd.getpwuid(uid).pw_name, grp.getgrgid(gid).gr_name


CONFIG = """\
base_dir = {root}/run
state_dir = {root}/state
log_path = {root}/dovecot.log
protocols = imap
listen = 127.0.0.1
ssl = no
disable_plaintext_auth = no
auth_mechanisms = plain login
mail_location = maildir:~/Maildir
mail_fsync = never
default_internal_user = {user}
default_internal_group = {group}
default_login_user = {user}
first_valid_uid = {uid}
first_valid_gid = {gid}
passdb {{
  driver = passwd-file
  args = scheme=PLAIN username_format=%u {root}/users
}}
userdb {{
  driver = passwd-file
  args = username_format=%u {root}/users
}}
service imap-login {{
  chroot =
  inet_listener imap {{
    address = 127.0.0.1
    port = {port}
  }}
  inet_listener imaps {{
    port = 0
  }}
}}
service anvil {{
  chroot =
}}
service stats {{
  unix_listener stats-reader {{
    user = {user}
    group = {group}
  }}
  unix_listener stats-writer {{
    user = {user}
    group = {group}
  }}
}}
namespace inbox {{
  inbox = yes
  mailbox Sent {{
    special_use = \\Sent
    auto = create
  }}
  mailbox Archive {{
    auto = create
  }}
}}
"""


@dataclass
class Dovecot:
    root: Path
    port: int
    process: subprocess.Popen | None = None

    def start(self) -> None:
        """Start (or start again, on the same port and mail) and wait until it answers."""
        uid, gid, _, _ = _run_as()
        self.process = subprocess.Popen([dovecot_binary(), "-F", "-c", str(self.root / "dovecot.conf")],
                                        user=uid, group=gid, extra_groups=[], stdout=subprocess.DEVNULL,
                                        stderr=subprocess.DEVNULL, start_new_session=True)
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1) as s:
                    if s.recv(100).startswith(b"* OK"):
                        return
            except OSError:
                time.sleep(0.1)
        self.stop()
        raise RuntimeError(f"dovecot did not start: {self.log()}")

    def stop(self) -> None:
        """The whole server goes, its connections' processes with it (as when its machine goes down)."""
        if self.process is None:
            return
        os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait()
        self.process = None

    def log(self) -> str:
        path = self.root / "dovecot.log"
        return path.read_text(errors="replace")[-2000:] if path.exists() else "(no log)"


def make_dovecot() -> Dovecot:
    # the run folder holds unix sockets, whose paths must stay short (about 100 bytes)
    root = Path(tempfile.mkdtemp(prefix="dvc-", dir="/tmp"))
    uid, gid, user, group = _run_as()
    for sub in ("run", "state", "mail"):
        (root / sub).mkdir()
    port = _free_port()
    (root / "users").write_text(f"{USER}:{{PLAIN}}{PASSWORD}:{uid}:{gid}::{root}/mail/{USER}::\n")
    (root / "dovecot.conf").write_text(CONFIG.format(root=root, user=user, group=group, uid=uid, gid=gid, port=port))
    for path in [root, *root.rglob("*")]:
        os.chown(path, uid, gid)
    return Dovecot(root=root, port=port)
