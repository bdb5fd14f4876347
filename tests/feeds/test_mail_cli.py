"""`biographer mail` against a real Dovecot, the password read from the .env entry it names."""

from __future__ import annotations

import json
from pathlib import Path

from bot.cli import main
from tests.feeds.conftest import real_emails
from tests.feeds.dovecot import PASSWORD, USER


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_add_sync_list_and_remove_with_the_password_in_dotenv(tmp_path: Path, capsys, dovecot, mailbox_of):
    mailbox_of.append("INBOX", real_emails()[:3])
    (tmp_path / ".env").write_text(f"HOME_MAIL_PASSWORD={PASSWORD}\n")  # the test runs in tmp_path
    code, out, _ = run(capsys, "mail", "add", "home", "--host", "127.0.0.1", "--port", str(dovecot.port),
                       "--user", USER, "--password-env", "HOME_MAIL_PASSWORD")
    assert code == 0 and "mail home" in out
    code, out, _ = run(capsys, "mail", "sync")
    assert (code, out.strip()) == (0, "mail home: 3 new e-mails in 3 threads")
    code, out, _ = run(capsys, "mail", "list", "--json")
    [account] = json.loads(out)
    assert account["last_added"] == 3 and account["password_env"] == "HOME_MAIL_PASSWORD"
    assert PASSWORD not in out
    database = (tmp_path / "data" / "biographer.sqlite3").read_bytes()
    assert PASSWORD.encode() not in database
    code, out, _ = run(capsys, "sources", "--json")
    sources = json.loads(out)
    assert [s["feed"]["name"] for s in sources] == ["home"] * 3 and all(s["feed"]["last_read"] for s in sources)
    code, out, _ = run(capsys, "doctor", "--json")
    [feed] = json.loads(out)["feeds"]
    assert (feed["kind"], feed["name"], feed["last_added"], feed["last_error"]) == ("mail", "home", 3, None)
    # forget erases a mail like any source, and the next sync does not bring it back
    assert run(capsys, "forget", str(sources[0]["id"]), "--yes")[0] == 0
    assert run(capsys, "mail", "sync", "home")[1].strip() == "mail home: 0 new e-mails in 0 threads"
    assert len(json.loads(run(capsys, "sources", "--json")[1])) == 2
    code, out, _ = run(capsys, "mail", "remove", "home")
    assert code == 0 and run(capsys, "mail", "list")[1].startswith("no mail account")


def test_a_wrong_password_is_one_error_line_and_a_hint(tmp_path: Path, capsys, dovecot, monkeypatch):
    monkeypatch.setenv("HOME_MAIL_PASSWORD", "wrong")
    run(capsys, "mail", "add", "home", "--host", "127.0.0.1", "--port", str(dovecot.port), "--user", USER,
        "--password-env", "HOME_MAIL_PASSWORD")
    code, out, err = run(capsys, "mail", "sync", "home")
    assert code == 2
    lines = err.strip().splitlines()
    assert lines[0] == f"error: mail home: 127.0.0.1 refused the password of {USER}"
    assert len(lines) == 2 and "HOME_MAIL_PASSWORD" in lines[1]


def test_tls_is_required_except_to_this_machine():
    from core.feeds.mail import new_account

    assert not new_account(host="127.0.0.1", port=None, user="a", password_env="P").tls
    remote = new_account(host="imap.example.com", port=None, user="a", password_env="P")
    assert remote.tls and remote.port == 993
