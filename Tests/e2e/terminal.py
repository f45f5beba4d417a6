"""Terminals for the e2e tests, as a user's would be: `run_in_pty` runs a command on a new pseudo-terminal (its
controlling terminal, so prompts, echo-off password entry and [y/N] questions behave as they do for a person) and
types answers; `TmuxSession` runs a command in tmux, a real terminal emulator, whose screen is captured as a person
would see it (escape sequences applied, not just the bytes written)."""

from __future__ import annotations

import codecs
import fcntl
import itertools
import os
import select
import shlex
import signal
import stat
import subprocess
import termios
import time
from collections.abc import Callable, Sequence
from pathlib import Path


class Hidden(str):
    """An answer typed at a password prompt: typed only once the program has turned echo off (input typed before that
    is discarded when it does)."""


# Called with (transcript so far, the part of it since the last answer); returns the line to type (without its
# newline), a `Hidden` one for a password, or None to type nothing yet.
Answer = Callable[[str, str], "str | None"]


def answers(prompt: str, *texts: str, hidden: bool = False) -> Answer:
    """Types the next of `texts` each time `prompt` appears, nothing once they are used up."""
    left = list(texts)

    def answer(_transcript: str, pending: str) -> str | None:
        if prompt not in pending or not left:
            return None
        text = left.pop(0)
        return Hidden(text) if hidden else text

    return answer


def run_in_pty(
    argv: Sequence[str], cwd: Path, env: dict, answer: Answer | None = None, timeout: float = 120
) -> tuple[int, str]:
    """Runs `argv` with a new pseudo-terminal as stdin, stdout, stderr and controlling terminal; after each piece of
    output asks `answer` what to type. Returns (exit code, transcript); fails on the timeout with the transcript."""
    master, slave = os.openpty()

    def controlling_terminal():
        fcntl.ioctl(0, termios.TIOCSCTTY, 0)

    proc = subprocess.Popen(
        list(argv),
        stdin=slave,
        stdout=slave,
        stderr=slave,
        cwd=cwd,
        env=env,
        start_new_session=True,
        preexec_fn=controlling_terminal,
    )
    os.close(slave)
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    transcript, answered = "", 0
    deadline = time.monotonic() + timeout
    try:
        while True:
            assert time.monotonic() < deadline, f"{argv[0]} timed out:\n{transcript}"
            ready, _, _ = select.select([master], [], [], 0.5)
            if ready:
                try:
                    chunk = os.read(master, 65536)
                except OSError:  # EIO: every process holding the terminal has ended
                    break
                if not chunk:
                    break
                transcript += decoder.decode(chunk)
                text = answer(transcript, transcript[answered:]) if answer else None
                if text is not None:
                    if isinstance(text, Hidden):
                        while termios.tcgetattr(master)[3] & termios.ECHO:
                            assert time.monotonic() < deadline, f"echo never went off:\n{transcript}"
                            time.sleep(0.05)
                    os.write(master, (text + "\n").encode())
                    answered = len(transcript)
            elif proc.poll() is not None:
                break
    finally:
        os.close(master)
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)  # its own session (start_new_session): the command and its children
    return proc.wait(timeout=30), transcript + decoder.decode(b"", final=True)


def shell_line(argv: Sequence[str], env: dict, cwd: Path | None = None) -> str:
    """A shell line for `TmuxSession`: `argv` with the test's AIRLOCK_* and HOME variables, then `EXIT=<code>` on the
    screen, and the pane kept open a while so the screen can still be read."""
    variables = " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items() if k.startswith(("AIRLOCK_", "HOME")))
    line = f"env {variables} {' '.join(shlex.quote(str(a)) for a in argv)}; echo EXIT=$?; sleep 30"
    return f"cd {shlex.quote(str(cwd))} && {line}" if cwd else line


class TmuxSession:
    """`with TmuxSession(command, width, height) as tmux:` runs the shell line `command` in a detached tmux session of
    that size; `screen()` is what the pane shows, `send_keys` types, the session is killed on leaving."""

    _numbers = itertools.count()

    def __init__(self, command: str, width: int = 200, height: int = 60):
        self.command, self.width, self.height = command, width, height
        self.name = f"airlock-e2e-{os.getpid()}-{next(self._numbers)}"

    def __enter__(self) -> TmuxSession:
        size = ["-x", str(self.width), "-y", str(self.height)]
        started = subprocess.run(
            ["tmux", "new-session", "-d", "-s", self.name, *size, self.command], capture_output=True, text=True
        )
        # A tmux that cannot start fails the test with its reason (never a skip): tmux refuses to start when /dev/null
        # is not a character device (issue 34), so that is named too.
        assert started.returncode == 0, f"tmux could not start: {started.stderr.strip()}" + (
            "" if stat.S_ISCHR(os.lstat("/dev/null").st_mode) else " (/dev/null is not a character device)"
        )
        return self

    def __exit__(self, *_exc) -> None:
        subprocess.run(["tmux", "kill-session", "-t", self.name], capture_output=True)

    def screen(self) -> str:
        return subprocess.run(["tmux", "capture-pane", "-p", "-t", self.name], capture_output=True, text=True).stdout

    def send_keys(self, *keys: str) -> None:
        subprocess.run(["tmux", "send-keys", "-t", self.name, *keys], check=True)

    def wait_for(self, text: str, timeout: float = 60) -> str:
        """The screen once it shows `text`, or the last one seen when `timeout` runs out (the caller asserts)."""
        deadline = time.monotonic() + timeout
        screen = ""
        while time.monotonic() < deadline and text not in screen:
            time.sleep(0.2)
            screen = self.screen()
        return screen
