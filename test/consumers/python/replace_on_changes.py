"""A Python program whose Vm is replaced on a cpu change (`replace_on_changes`).

Run by main.py as CONSUMER_PROGRAM (test/consumers/python-replace.test.ts).
"""

import pulumi
import pulumi_gopveqemu as gopveqemu

config = pulumi.Config()
web = gopveqemu.Vm(
    "web",
    os="ubuntu",
    version="24.04",
    name="web",
    cpu=config.require_int("cpu"),
    opts=pulumi.ResourceOptions(replace_on_changes=["cpu"]),
)
pulumi.export("vmid", web.vmid)
