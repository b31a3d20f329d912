"""Start-up: ``lantag --help`` process start, and time to the console's first paint.

* ``lantag --help``: wall time of the whole process (subprocess, output discarded),
  median of N runs, against ``python -c pass`` with the same interpreter as the floor,
  and ``python -c "import lanTag.cli.entry"`` to split import from parser work.  Page cache
  warm ("cold" means a fresh process, not a cold disk).  The slowest imports of the
  ``--help`` path are listed from ``python -X importtime``.
* first paint: ``lantag play`` (you + 2 bot peers on loopback, the default game) under a
  pseudo-terminal of --size (default 80x24, TERM=xterm-256color), with a throwaway
  XDG_CONFIG_HOME/XDG_DATA_HOME; time from spawn to the first output that shows text
  (after removing escape sequences), and to the first byte of any output.  If nothing is
  painted within --paint-timeout, the run is repeated with a faulthandler traceback
  dumped just before the timeout to show where the console is stuck.  "n/a" when
  lanTag/ui/app.py does not exist.

Usage::

    python -m scripts.bench.bench_startup            # 21 runs each, 3 paints
    python -m scripts.bench.bench_startup --quick    # 5 runs each, 1 paint
    python -m scripts.bench.bench_startup --json
"""

from __future__ import annotations

import argparse
import fcntl
import os
import pty
import re
import select
import shutil
import signal
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import time
from pathlib import Path
from typing import Any

from scripts.bench import benchlib as bl

PY = sys.executable
BIN = Path(PY).parent
LANTAG = str(BIN / "lantag") if (BIN / "lantag").exists() else shutil.which("lantag") or "lantag"
ANSI = re.compile(
    rb"\x1b(\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)|[()][0-9A-Za-z]|[=>78DEHMc])"
)


def time_process(cmd: list[str], runs: int) -> list[float]:
    out = []
    for _ in range(runs):
        t0 = time.perf_counter()
        subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        out.append(time.perf_counter() - t0)
    return out


def import_times(limit: int) -> list[dict[str, Any]]:
    code = "import sys; sys.argv = ['lantag', '--help']; from lanTag.cli.entry import main; main()"
    proc = subprocess.run(
        [PY, "-X", "importtime", "-c", code],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        check=False,
    )
    rows: list[dict[str, Any]] = []
    for line in proc.stderr.splitlines():
        m = re.match(r"import time:\s+(\d+) \|\s+(\d+) \|( *)(\S+)", line)
        if m:
            rows.append(
                {
                    "module": m.group(4),
                    "self_ms": int(m.group(1)) / 1e3,
                    "cum_ms": int(m.group(2)) / 1e3,
                    "depth": len(m.group(3)) // 2,
                }
            )
    top = [r for r in rows if r["depth"] <= 1]
    return sorted(top, key=lambda r: -r["cum_ms"])[:limit]


def paint_once(
    cols: int, lines: int, timeout: float, argv: list[str], env_dir: str
) -> dict[str, Any]:
    env = dict(
        os.environ,
        XDG_CONFIG_HOME=f"{env_dir}/config",
        XDG_DATA_HOME=f"{env_dir}/data",
        TERM="xterm-256color",
        COLUMNS=str(cols),
        LINES=str(lines),
    )
    env.pop("NO_COLOR", None)
    t0 = time.monotonic()
    pid, fd = pty.fork()
    if pid == 0:  # child: size the terminal before the program can ask
        try:
            fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", lines, cols, 0, 0))
            os.chdir(env_dir)
            os.execve(argv[0], argv, env)
        finally:
            os._exit(127)
    first_byte = first_text = None
    buf = b""
    exited = False
    try:
        while time.monotonic() - t0 < timeout:
            r, _, _ = select.select([fd], [], [], 0.02)
            if not r:
                continue
            try:
                data = os.read(fd, 65536)
            except OSError:
                exited = True
                break
            if not data:
                exited = True
                break
            now = time.monotonic() - t0
            if first_byte is None:
                first_byte = now
            buf += data
            if b"\x1b[6n" in data:  # cursor position request: answer like a terminal
                os.write(fd, b"\x1b[1;1R")
            if first_text is None and ANSI.sub(b"", buf).strip():
                first_text = now
                break
    finally:
        try:
            os.kill(pid, signal.SIGTERM)
            time.sleep(0.2)
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        os.waitpid(pid, 0)
        os.close(fd)
    visible = ANSI.sub(b"", buf).decode(errors="replace")
    return {
        "first_byte": first_byte,
        "first_text": first_text,
        "exited": exited,
        "bytes": len(buf),
        "visible": " ".join(visible.split())[:120],
    }


def hang_stack(cols: int, lines: int, timeout: float) -> str:
    """Run the same `lantag play` path with faulthandler dumping the stack before timeout."""
    with tempfile.TemporaryDirectory(prefix="lantag-paint-") as d:
        dump = Path(d) / "stack.txt"
        code = (
            "import faulthandler, sys; "
            f"faulthandler.dump_traceback_later({max(1.0, timeout - 1):g}, "
            f"file=open({str(dump)!r}, 'w')); "
            "sys.argv = ['lantag', 'play']; from lanTag.cli.entry import main; sys.exit(main())"
        )
        paint_once(cols, lines, timeout, [PY, "-c", code], d)
        text = dump.read_text() if dump.exists() else ""
    lines_ = [ln.strip() for ln in text.splitlines() if ln.strip().startswith("File")]
    return "\n".join(lines_[:14])


def main() -> None:
    ap = argparse.ArgumentParser(
        prog="python -m scripts.bench.bench_startup", description=__doc__.splitlines()[0]
    )
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--runs", type=int, help="process starts per row (default 21, quick 5)")
    ap.add_argument("--paints", type=int, help="first-paint runs (default 3, quick 1)")
    ap.add_argument("--size", default="80x24", help="terminal COLSxLINES for the first paint")
    ap.add_argument("--paint-timeout", type=float, help="seconds (default 10, quick 3)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    runs = args.runs or (5 if args.quick else 21)
    paints = args.paints or (1 if args.quick else 3)
    timeout = args.paint_timeout or (3.0 if args.quick else 10.0)
    cols, lines = (int(x) for x in args.size.lower().split("x"))

    table = bl.Table(
        f"process start, median of {runs} runs (page cache warm)",
        [
            ("what", "command", ""),
            ("median_ms", "median ms", ".1f"),
            ("min_ms", "min ms", ".1f"),
            ("p90_ms", "p90 ms", ".1f"),
            ("over_floor", "minus floor ms", ".1f"),
        ],
    )
    cmds = [
        ("python -c pass (floor)", [PY, "-c", "pass"]),
        ("python -c 'import lanTag.cli.entry'", [PY, "-c", "import lanTag.cli.entry"]),
        ("lantag --help", [LANTAG, "--help"]),
    ]
    samples = {}
    for _ in range(1):  # warm the page cache once, untimed
        for _, cmd in cmds:
            subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    for name, cmd in cmds:
        samples[name] = time_process(cmd, runs)
    floor = statistics.median(samples[cmds[0][0]]) * 1e3
    for name, _ in cmds:
        s = bl.stats_ms(samples[name])
        median = s["median_ms"]
        assert median is not None  # runs >= 1
        table.add(
            what=name,
            median_ms=median,
            min_ms=s["min_ms"],
            p90_ms=s["p90_ms"],
            over_floor=median - floor,
        )
    table.close()

    imports = bl.Table(
        "slowest top-level imports of `lantag --help` (python -X importtime, one run)",
        [
            ("module", "module", ""),
            ("cum_ms", "cumulative ms", ".1f"),
            ("self_ms", "self ms", ".1f"),
        ],
        rows=import_times(10),
    )
    imports.close()

    tables = [table, imports]
    help_ms = statistics.median(samples["lantag --help"]) * 1e3
    targets: list[dict[str, Any]] = [
        {
            "target": "lantag --help cold start <= 150 ms",
            "measured": f"median {help_ms:.0f} ms (floor {floor:.0f} ms)",
            "met": help_ms <= 150,
        }
    ]
    extra: dict[str, Any] = {}
    app = bl.REPO / "lanTag" / "ui" / "app.py"
    paint = bl.Table(
        f"first paint of `lantag play` in a {cols}x{lines} pty (you + 2 bot peers, default game)",
        [
            ("run", "run", ""),
            ("first_byte", "first byte ms", ".0f"),
            ("first_text", "first text ms", ".0f"),
            ("bytes", "bytes read", ""),
            ("visible", "visible text (start)", ""),
        ],
    )
    if not app.exists():
        paint.notes.append("n/a: UI not present (lanTag/ui/app.py)")
        targets.append(
            {"target": "first paint <= 400 ms", "measured": "n/a: UI not present", "met": None}
        )
    else:
        results = []
        for i in range(paints):
            with tempfile.TemporaryDirectory(prefix="lantag-paint-") as d:
                r = paint_once(cols, lines, timeout, [LANTAG, "play"], d)
            results.append(r)
            paint.add(
                run=i + 1,
                first_byte=None if r["first_byte"] is None else r["first_byte"] * 1e3,
                first_text=None if r["first_text"] is None else r["first_text"] * 1e3,
                bytes=r["bytes"],
                visible=r["visible"]
                or ("(process exited)" if r["exited"] else f"(nothing in {timeout:g} s)"),
            )
        painted = [r["first_text"] for r in results if r["first_text"] is not None]
        if len(painted) < len(results):
            stack = hang_stack(cols, lines, timeout)
            extra["paint_stack"] = stack
            paint.notes.append(
                f"no text within {timeout:g} s in {len(results) - len(painted)} run(s); stack then:"
            )
            paint.notes += ["  " + ln for ln in stack.splitlines()]
        med = statistics.median(painted) * 1e3 if painted else None
        targets.append(
            {
                "target": "first paint <= 400 ms",
                "measured": f"median {med:.0f} ms"
                if med is not None
                else f"no paint within {timeout:g} s",
                "met": med is not None and len(painted) == len(results) and med <= 400,
            }
        )
    paint.close()
    tables.append(paint)
    bl.output("bench_startup", tables, targets, args.json, extra)


if __name__ == "__main__":
    main()
