"""The gc executor: delete what the planner chose, and nothing that
changed since — each delete carries uid and resourceVersion preconditions."""

from __future__ import annotations

from dataclasses import dataclass

from ..report import Reporter
from .client import Cluster, ClusterError, DeleteOutcome
from .gc import Decision


@dataclass(frozen=True)
class Outcome:
    decision: Decision
    result: str  # "kept", or a DeleteOutcome, or "error: ..."

    @property
    def failed(self) -> bool:
        return self.result.startswith("error")


def execute(cluster: Cluster, decisions: list[Decision], reporter: Reporter) -> list[Outcome]:
    outcomes: list[Outcome] = []
    for decision in decisions:
        if not decision.delete:
            outcomes.append(Outcome(decision, "kept"))
            continue
        version = decision.version
        try:
            result = cluster.delete(cluster.resource(version.kind, ""), version.namespace, version.name,
                                    version.uid, version.resource_version)
        except ClusterError as exc:
            # One refused delete must not stop the others; the exit status says it.
            reporter.error(str(exc))
            outcomes.append(Outcome(decision, f"error: {exc}"))
            continue
        if result == DeleteOutcome.CONFLICT:
            reporter.warn(f"{version.describe()} changed since planning; not deleted")
        else:
            reporter.info(f"{version.describe()}: {result}")
        outcomes.append(Outcome(decision, result))
    return outcomes
