"""Flags a host that owns postrender's input and output refuses.

A host runs postrender with the stream on standard input and reads its
output from standard output: kustomize's exec plugin, Argo CD's Config
Management Plugin (integrations/argocd/postrender-cmp). A flag that makes
postrender read or write elsewhere would, under it, replace or empty the
stream without an error: `-o FILE` left kustomize 0 bytes, exit 0.
Each table maps an argparse destination (cli.parse) to the flag as written.
"""

from __future__ import annotations

import argparse

# Where the stream comes from, where it goes, and in which format.
CHANNELS = {
    "filenames": "-f/--filename",
    "output_file": "-o/--output",
    "krm": "--krm",
}
# Which PostRender config applies: the host's.
PLUGIN_CONFIG = {"plugin_config": "--plugin-config"}
# A host may allow these: they change no channel, but touch the machine or the cluster.
LOG = {"log_file": "--log-file"}
CLUSTER = {"retain": "--retain", "kubeconfig": "--kubeconfig", "context": "--context"}


def refused(parsed: argparse.Namespace, table: dict[str, str]) -> str | None:
    """The first flag of `table` that `parsed` sets, or None."""
    for dest, flag in table.items():
        if getattr(parsed, dest, None) not in (None, False, []):
            return flag
    return None
