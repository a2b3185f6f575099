"""Headless Chromium (Debian's `chromium`) for the report tests: finding it, running a page,
and the console messages and failed loads it logged for the page."""
import shutil
import subprocess


def binary():
    """The chromium executable, or None when it is not installed."""
    return shutil.which("chromium") or shutil.which("chromium-browser")


def run(args, url, profile, budget_ms=3000):
    """Chromium on `url` with `args` (--screenshot=..., --dump-dom, ...): the page's scripts get
    `budget_ms` of virtual time; `profile` is a user-data directory of the test's own."""
    command = [binary(), "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run",
               f"--user-data-dir={profile}", "--enable-logging=stderr", "--v=0",
               f"--virtual-time-budget={budget_ms}", *args, url]
    return subprocess.run(command, capture_output=True, text=True, timeout=120)


def console_errors(stderr, benign=()):
    """Console messages and failed loads Chromium logged, but those containing a `benign` text."""
    return [line.strip() for line in stderr.splitlines()
            if ("CONSOLE" in line and not any(b in line for b in benign))
            or "Uncaught" in line or "net::ERR" in line]
