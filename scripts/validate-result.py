#!/usr/bin/env python3
"""Validates kjudge result documents against docs/result-schema.json (kjudge.result/1).

Usage: scripts/validate-result.py FILE...   ('-' reads standard input)
Exit status 0 when every document validates; 1 with one line per error (the file, the JSON path
of the field and what is wrong) otherwise; 2 when a file cannot be read or is not JSON, or
jsonschema is missing (Debian: python3-jsonschema, scripts/install-deps.sh).
"""
import json
import pathlib
import sys

SCHEMA = pathlib.Path(__file__).resolve().parent.parent / "docs" / "result-schema.json"


def field_path(error):
    return "$" + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in error.absolute_path)


def main(argv):
    if len(argv) < 2 or argv[1] in ("-h", "--help"):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    try:
        import jsonschema
    except ImportError:
        # The python3 on PATH may be another interpreter (pyenv, a virtual environment) than the
        # system's, where install-deps.sh puts Debian's python3-jsonschema: run there instead.
        system = pathlib.Path("/usr/bin/python3")
        if system.exists() and pathlib.Path(sys.executable).resolve() != system.resolve():
            import subprocess
            return subprocess.call([str(system), __file__, *argv[1:]])
        print("validate-result: python3-jsonschema is not installed (scripts/install-deps.sh)", file=sys.stderr)
        return 2
    schema = json.loads(SCHEMA.read_text())
    validator = jsonschema.Draft202012Validator(schema)
    status = 0
    for name in argv[1:]:
        try:
            text = sys.stdin.read() if name == "-" else pathlib.Path(name).read_text()
            doc = json.loads(text)
        except (OSError, ValueError) as e:
            print(f"{name}: cannot read a JSON document: {e}", file=sys.stderr)
            return 2
        errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.absolute_path))
        for e in errors:
            print(f"{name}: {field_path(e)}: {e.message}")
        if errors:
            status = 1
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv))
