"""The CLI imports only the module of the command it runs: ``wordarena analyze`` (an offline
engine command) must not pay for gRPC, protobuf and rich, which the networked commands need."""

from __future__ import annotations

import argparse
import importlib
import json
import subprocess
import sys

from wordarena.clients.cli.main import COMMANDS, command_modules

CGP = "15/15/15/15/15/15/15/15/15/15/15/15/15/15/15 AEINRST/ 0/0 0"
HEAVY = ("grpc", "rich", "google.protobuf", "wordarena.v1")


def _imported_after(argv: list[str]) -> tuple[dict[str, object], list[str]]:
    """Run the CLI on ``argv`` in a fresh interpreter: its JSON output and the heavy modules
    loaded by the end."""
    probe = (
        "import sys; from wordarena.clients.cli.main import main; code = main(sys.argv[1:]); "
        f"heavy = sorted(m for m in sys.modules if m.startswith({HEAVY!r})); "
        "import json; print(json.dumps(heavy), file=sys.stderr); sys.exit(code)"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe, *argv], capture_output=True, text=True, timeout=120, check=True
    )
    return json.loads(done.stdout), json.loads(done.stderr.strip().splitlines()[-1])


def test_analyze_imports_no_grpc_protobuf_or_rich() -> None:
    out, heavy = _imported_after(["analyze", "--cgp", CGP, "--top", "1", "--json"])
    assert out["total"] == 2974 and len(out["moves"]) == 1
    assert heavy == []


def test_a_networked_command_still_gets_its_modules() -> None:
    """The probe above can fail: loading a networked command's module does import gRPC."""
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; from wordarena.clients.cli.main import build_parser; "
            "build_parser([sys.argv[1]]); print('grpc' in sys.modules)",
            COMMANDS["table"],
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    assert done.stdout.strip() == "True"


def test_the_command_table_names_every_command_each_module_registers() -> None:
    registered: dict[str, str] = {}
    for name in command_modules():
        subparsers = argparse.ArgumentParser().add_subparsers()
        importlib.import_module(f"wordarena.clients.cli.{name}").add_parser(subparsers)
        registered.update(dict.fromkeys(subparsers.choices, name))
    assert registered == COMMANDS
