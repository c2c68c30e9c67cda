"""The names postrender writes into objects and reads back from them.

Every `postrender.io/*` label and annotation, and the names of other tools
that more than one stage reads, live here: a renamed mark is then one edit,
and no stage has to import another's module to learn a name.
"""

from __future__ import annotations

from .lazyre import LazyPattern

# On a versioned ConfigMap or Secret (rewrite.py writes them; a second run
# and the cluster code read them back).
LABEL_VERSIONED = "postrender.io/versioned"
LABEL_BASE_NAME = "postrender.io/base-name"
LABEL_CONTENT_HASH = "postrender.io/content-hash"
# Which release or app a version belongs to: versions are grouped by
# namespace, base name and scope for retention and gc (see plan/keep.py).
LABEL_SCOPE = "postrender.io/scope"
ANNOTATION_ORIGINAL_NAME = "postrender.io/original-name"
# Set by a chart author: opt an object in or out ("true"/"false"), or ask
# for an unsuffixed copy; set by postrender on that copy.
ANNOTATION_VERSIONED = "postrender.io/versioned"
ANNOTATION_KEEP_ORIGINAL = "postrender.io/keep-original"
ANNOTATION_COPY_OF = "postrender.io/copy-of"
# On a referrer's pod template (or metadata): the versions it uses, so copies
# in ReplicaSets and ControllerRevisions keep the record for gc.
ANNOTATION_REFS = "postrender.io/refs"
# On a pod template (or a referrer's metadata): a hash over the config it uses.
ANNOTATION_CONFIG_HASH = "postrender.io/config-hash"

# The plugin configuration's apiVersion (kustomize exec plugin, KRM function).
CONFIG_API_VERSION = "postrender.io/v1alpha1"

# What the scope defaults to (Helm and most charts set it to the release).
INSTANCE_LABEL = "app.kubernetes.io/instance"

# --keep-previous: the annotations each deployer that prunes honours.
KEEP_POLICIES: dict[str, dict[str, str]] = {
    "argocd": {
        "argocd.argoproj.io/sync-options": "Prune=false",
        # Without it Argo CD reports the app OutOfSync for every kept version.
        "argocd.argoproj.io/compare-options": "IgnoreExtraneous",
    },
    "flux": {"kustomize.toolkit.fluxcd.io/prune": "disabled"},
    "helm": {"helm.sh/resource-policy": "keep"},
}
# Of those, the annotations that hold a comma-separated list of options
# (Argo CD splits them on `,`): an object's own options are kept beside ours.
OPTION_LISTS = frozenset(("argocd.argoproj.io/sync-options", "argocd.argoproj.io/compare-options"))

# --strategy: rename objects (the default), or only annotate pod templates.
STRATEGIES = ("rename", "annotate")

# kustomize's own marks.
KUSTOMIZE_NEEDS_HASH = "internal.config.kubernetes.io/needsHashSuffix"
# What kustomize records on an object its namePrefix/nameSuffix/namespace
# renamed, in the stream it hands a transformer (exec plugin, KRM function):
# the earlier ids, one comma-separated item per rename, oldest first, a
# namespace never set written "default". References in that stream still
# name the earlier names; kustomize rewrites them only after every
# transformer ran, to the current name of the one object with that earlier
# name (graph/references.py resolves them the same way).
KUSTOMIZE_PREVIOUS_NAMES = "internal.config.kubernetes.io/previousNames"
KUSTOMIZE_PREVIOUS_KINDS = "internal.config.kubernetes.io/previousKinds"
KUSTOMIZE_PREVIOUS_NAMESPACES = "internal.config.kubernetes.io/previousNamespaces"
# The prefixes and suffixes applied to an object: when a name leads to
# several objects, kustomize picks the one renamed as its referrer was.
KUSTOMIZE_RENAMES = ("internal.config.kubernetes.io/prefixes", "internal.config.kubernetes.io/suffixes")
PATH_ANNOTATIONS = ("internal.config.kubernetes.io/path", "config.kubernetes.io/path")
INDEX_ANNOTATIONS = ("internal.config.kubernetes.io/index", "config.kubernetes.io/index")
# Where an orchestrator (kustomize, kpt) keeps an item's identity and file. A keep-original copy
# is a new item: inheriting these would make it claim its original's identity
# and file position (kpt would write both to one place).
IDENTITY_ANNOTATIONS = (
    *PATH_ANNOTATIONS,
    *INDEX_ANNOTATIONS,
    "internal.config.kubernetes.io/id",
    "internal.config.kubernetes.io/annotations-migration-resource-id",
    "config.k8s.io/id",
    "kustomize.config.k8s.io/id",
)

MAX_LABEL_VALUE = 63
_LABEL_VALUE = LazyPattern(r"^(?:[A-Za-z0-9](?:[-A-Za-z0-9_.]*[A-Za-z0-9])?)?\Z")


def is_label_value(text: str) -> bool:
    """Whether Kubernetes takes `text` as a label value."""
    return len(text) <= MAX_LABEL_VALUE and _LABEL_VALUE.match(text) is not None

# The KRM function protocol's input and output (frontends/krm.py), a kind
# no cluster applies: read checks no `items` of it as kubectl's.
KRM_RESOURCE_LIST = "ResourceList"
