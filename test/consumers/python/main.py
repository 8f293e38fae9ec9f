"""The gopveqemu resource plugin's Python consumer, as an Automation API inline program.

One Vm, its cpu from the stack's config. Runs one operation per invocation:

    python main.py up|preview|refresh|destroy

in the folder that becomes the stack's workspace, with the stack's name in
CONSUMER_STACK and its configuration in CONSUMER_CONFIG; with CONSUMER_PROGRAM
(a file of Python), that file is the program instead (a program as a user
writes it, the README's) (a JSON object: a
string, or {"secret": value} for a secret). The engine's output goes to stdout as it comes; a failed
operation prints the engine's error and exits 1. The Python SDK serves the
program in-process, so no Python language host is needed.
"""

import json
import os
import runpy
import sys

import pulumi
import pulumi_gopveqemu as gopveqemu
from pulumi import automation as auto


def program() -> None:
    config = pulumi.Config()
    web = gopveqemu.Vm(
        "web",
        os="ubuntu",
        version="24.04",
        name="web",
        cpu=config.require_int("cpu"),
        memory_mb=2048,
    )
    pulumi.export("vmid", web.vmid)
    pulumi.export("cpu", web.cpu)


def program_file() -> None:
    runpy.run_path(os.environ["CONSUMER_PROGRAM"], run_name="__main__")


def echo(line: str) -> None:
    print(line, flush=True)


def echo_error(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def main(op: str) -> int:
    stack = auto.create_or_select_stack(
        stack_name=os.environ["CONSUMER_STACK"],
        project_name="consumer-python",
        program=program_file if os.environ.get("CONSUMER_PROGRAM") else program,
        opts=auto.LocalWorkspaceOptions(work_dir=os.getcwd()),
    )
    config = json.loads(os.environ.get("CONSUMER_CONFIG", "{}"))
    stack.set_all_config(
        {
            key: auto.ConfigValue(value=value["secret"], secret=True)
            if isinstance(value, dict)
            else auto.ConfigValue(value=value)
            for key, value in config.items()
        }
    )
    try:
        if op == "up":
            stack.up(on_output=echo, on_error=echo_error)
        elif op == "preview":
            stack.preview(on_output=echo, on_error=echo_error, expect_no_changes=True, diff=True)
        elif op == "refresh":
            stack.refresh(on_output=echo, on_error=echo_error)
        elif op == "destroy":
            stack.destroy(on_output=echo, on_error=echo_error)
        else:
            print(f"unknown operation {op!r}: up, preview, refresh or destroy", file=sys.stderr)
            return 2
    except auto.CommandError as error:
        print(error, file=sys.stderr, flush=True)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else ""))
