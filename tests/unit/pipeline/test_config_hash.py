"""postrender.io/config-hash: --strategy=annotate, mixed use, Reloader."""

import pytest
from ruamel.yaml import YAML

from conftest import run_postrender

KEY = "postrender.io/config-hash"


def _docs(text: str) -> list[dict]:
    return [d for d in YAML(typ="safe").load_all(text) if d]


def _by_name(text: str) -> dict[tuple[str, str], dict]:
    return {(d["kind"], d["metadata"]["name"]): d for d in _docs(text)}


def _template_hash(doc: dict) -> str | None:
    return ((doc["spec"]["template"].get("metadata") or {}).get("annotations") or {}).get(KEY)


def _run(stream: str, *args: str):
    result = run_postrender(list(args), stream)
    assert result.status == 0, result.stderr
    return result


CM = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: {name}
  labels: {{helm.sh/chart: app-{version}}}
data: {{key: {value}}}
"""
DEPLOY = """\
apiVersion: apps/v1
kind: Deployment
metadata: {{name: {name}}}
spec:
  template:
    spec:
      containers:
        - name: c
          image: x
          envFrom:
            - configMapRef: {{name: {config}}}
"""


def _stream(value="v1", version="1.0.0", other="o1") -> str:
    return "---\n".join([
        CM.format(name="app", version=version, value=value),
        CM.format(name="other", version=version, value=other),
        DEPLOY.format(name="web", config="app"),
        DEPLOY.format(name="worker", config="other"),
    ])


def test_annotate_strategy_keeps_every_name_and_marks_nothing_immutable():
    out = _run(_stream(), "--strategy=annotate").stdout
    docs = _by_name(out)
    assert ("ConfigMap", "app") in docs and ("ConfigMap", "other") in docs
    assert "immutable" not in out and "postrender.io/versioned" not in out
    assert docs["Deployment", "web"]["spec"]["template"]["spec"]["containers"][0]["envFrom"][0]["configMapRef"]["name"] == "app"
    assert _template_hash(docs["Deployment", "web"]) is not None


def test_the_hash_covers_data_only_so_a_chart_version_label_does_not_roll_pods():
    before = _by_name(_run(_stream(), "--strategy=annotate").stdout)
    relabelled = _by_name(_run(_stream(version="2.0.0"), "--strategy=annotate").stdout)
    changed = _by_name(_run(_stream(value="v2"), "--strategy=annotate").stdout)
    web = _template_hash(before["Deployment", "web"])
    assert _template_hash(relabelled["Deployment", "web"]) == web
    assert _template_hash(changed["Deployment", "web"]) != web


def test_each_template_hashes_exactly_the_objects_it_references():
    before = _by_name(_run(_stream(), "--strategy=annotate").stdout)
    after = _by_name(_run(_stream(other="o2"), "--strategy=annotate").stdout)
    assert _template_hash(after["Deployment", "web"]) == _template_hash(before["Deployment", "web"])
    assert _template_hash(after["Deployment", "worker"]) != _template_hash(before["Deployment", "worker"])


def test_secrets_count_and_the_hash_lands_in_every_kind_of_template():
    stream = """\
apiVersion: v1
kind: Secret
metadata: {name: creds}
type: Opaque
stringData: {token: "%s"}
---
apiVersion: batch/v1
kind: CronJob
metadata: {name: nightly}
spec:
  schedule: "0 0 * * *"
  jobTemplate:
    spec:
      template:
        spec:
          containers:
            - name: c
              image: x
              envFrom: [{secretRef: {name: creds}}]
---
apiVersion: external-secrets.io/v1beta1
kind: SecretStore
metadata: {name: vault}
spec:
  provider:
    vault:
      server: https://vault
      auth:
        tokenSecretRef: {name: creds, key: token}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: read-creds}
rules:
  - apiGroups: [""]
    resources: [secrets]
    resourceNames: [creds]
    verbs: [get]
"""
    one = _by_name(_run(stream % "a", "--strategy=annotate").stdout)
    two = _by_name(_run(stream % "b", "--strategy=annotate").stdout)
    cron = lambda docs: docs["CronJob", "nightly"]["spec"]["jobTemplate"]["spec"]["template"]["metadata"]["annotations"][KEY]
    store = lambda docs: docs["SecretStore", "vault"]["metadata"]["annotations"][KEY]
    assert cron(one) != cron(two)
    # A custom resource without a pod template carries it in its metadata.
    assert store(one) != store(two)
    assert cron(one) == store(one)
    # RBAC resourceNames grant access; they do not consume the data.
    assert "annotations" not in one["Role", "read-creds"]["metadata"]


def test_the_default_strategy_adds_no_hash_when_names_carry_every_change():
    out = _run(_stream()).stdout
    assert KEY not in out


def test_an_opted_out_object_keeps_its_name_but_still_rolls_its_referrers():
    opted = _stream().replace("  name: app\n", '  name: app\n  annotations: {postrender.io/versioned: "false"}\n')
    changed = _stream(value="v2").replace("  name: app\n", '  name: app\n  annotations: {postrender.io/versioned: "false"}\n')
    one, two = _by_name(_run(opted).stdout), _by_name(_run(changed).stdout)
    assert ("ConfigMap", "app") in one  # kept its name
    assert _template_hash(one["Deployment", "web"]) != _template_hash(two["Deployment", "web"])
    # `worker` uses only a versioned object: its new name is enough.
    assert _template_hash(one["Deployment", "worker"]) is None


RELOAD = """\
apiVersion: v1
kind: ConfigMap
metadata: {name: flags}
data: {beta: "%s"}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: app}
data: {k: v}
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  annotations:
    configmap.reloader.stakater.com/reload: flags
spec:
  template:
    spec:
      containers:
        - name: c
          image: x
          envFrom: [{configMapRef: {name: app}}]
"""


@pytest.mark.parametrize("strategy", [[], ["--strategy=annotate"]])
def test_a_reload_list_rolls_the_workload_for_an_unmounted_object(strategy):
    one = _by_name(_run(RELOAD % "off", *strategy).stdout)
    two = _by_name(_run(RELOAD % "on", *strategy).stdout)
    assert _template_hash(one["Deployment", "web"]) is not None
    assert _template_hash(one["Deployment", "web"]) != _template_hash(two["Deployment", "web"])
    # The rest of the template is the same: the hash is what rolls it.
    spec = lambda docs: docs["Deployment", "web"]["spec"]["template"]["spec"]
    assert spec(one) == spec(two)


def test_reloader_auto_false_leaves_the_workload_alone_and_keeps_what_it_uses():
    stream = RELOAD % "off" + """\
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: legacy
  annotations: {reloader.stakater.com/auto: "false"}
spec:
  template:
    spec:
      containers:
        - name: c
          image: x
          envFrom: [{configMapRef: {name: app}}]
"""
    result = _run(stream)
    docs = _docs(result.stdout)
    legacy = next(d for d in docs if d["metadata"]["name"] == "legacy")
    web = next(d for d in docs if d["metadata"]["name"] == "web")
    assert legacy["spec"]["template"]["spec"]["containers"][0]["envFrom"][0]["configMapRef"]["name"] == "app"
    assert _template_hash(legacy) is None
    renamed = web["spec"]["template"]["spec"]["containers"][0]["envFrom"][0]["configMapRef"]["name"]
    assert renamed.startswith("app-")
    names = [d["metadata"]["name"] for d in docs if d["kind"] == "ConfigMap"]
    assert "app" in names and renamed in names  # the copy legacy uses, and the version
    assert 'reloader.stakater.com/auto: "false"' in result.stderr and "unsuffixed copy" in result.stderr


def test_reloader_search_rolls_only_for_matched_objects():
    stream = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: matched
  annotations: {reloader.stakater.com/match: "true"}
data: {k: v}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: unmatched}
data: {k: v}
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  annotations: {reloader.stakater.com/search: "true"}
spec:
  template:
    spec:
      containers:
        - name: c
          image: x
          envFrom: [{configMapRef: {name: matched}}, {configMapRef: {name: unmatched}}]
"""
    docs = _by_name(_run(stream).stdout)
    refs = docs["Deployment", "web"]["spec"]["template"]["spec"]["containers"][0]["envFrom"]
    assert refs[0]["configMapRef"]["name"].startswith("matched-")
    assert refs[1]["configMapRef"]["name"] == "unmatched"
    assert ("ConfigMap", "unmatched") in docs
    annotated = _by_name(_run(stream, "--strategy=annotate").stdout)
    changed = _by_name(_run(stream.replace("metadata: {name: unmatched}\ndata: {k: v}",
                                           "metadata: {name: unmatched}\ndata: {k: w}"), "--strategy=annotate").stdout)
    assert _template_hash(annotated["Deployment", "web"]) == _template_hash(changed["Deployment", "web"])


def test_reloader_ignore_keeps_the_name_and_feeds_no_hash():
    stream = (RELOAD % "off").replace("metadata: {name: flags}",
                                      'metadata:\n  name: flags\n  annotations: {reloader.stakater.com/ignore: "true"}')
    docs = _by_name(_run(stream, "--strategy=annotate").stdout)
    assert ("ConfigMap", "flags") in docs
    changed = _by_name(_run(stream.replace('beta: "off"', 'beta: "on"'), "--strategy=annotate").stdout)
    assert _template_hash(docs["Deployment", "web"]) == _template_hash(changed["Deployment", "web"])
    renamed = _by_name(_run(stream).stdout)
    assert ("ConfigMap", "flags") in renamed


def test_a_sealed_secret_feeds_the_hash_of_the_templates_using_its_secret():
    stream = """\
apiVersion: bitnami.com/v1alpha1
kind: SealedSecret
metadata: {name: creds}
spec:
  encryptedData: {token: %s}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  template:
    spec:
      containers:
        - name: c
          image: x
          envFrom: [{secretRef: {name: creds}}]
"""
    one = _run(stream % "AgAAAA")
    two = _run(stream % "AgBBBB")
    assert "not in the stream" not in one.stderr
    assert _template_hash(_by_name(one.stdout)["Deployment", "web"]) != \
        _template_hash(_by_name(two.stdout)["Deployment", "web"])


def test_unknown_strategy_is_a_usage_error():
    assert run_postrender(["--strategy=shuffle"], _stream()).status == 2


def test_reloader_auto_false_on_a_config_object_that_references_holds_its_reference(tmp_path):
    # A user's field spec can make a ConfigMap or Secret a referrer; Reloader's
    # annotation on it then holds its references as on any workload, also
    # when no workload in the stream carries a Reloader annotation.
    spec = tmp_path / "specs.yaml"
    spec.write_text("nameReference:\n- kind: ConfigMap\n  fieldSpecs:\n  - {kind: Secret, path: metadata/annotations/settings}\n")
    stream = """\
apiVersion: v1
kind: ConfigMap
metadata: {name: settings}
data: {k: v}
---
apiVersion: v1
kind: Secret
metadata:
  name: creds
  annotations: {settings: settings, reloader.stakater.com/auto: "false"}
data: {k: dg==}
"""
    result = _run(stream, "--config", str(spec), "--version-all")
    docs = _by_name(result.stdout)
    assert ("ConfigMap", "settings") in docs, "the held reference still finds its object"
    assert docs["Secret", "creds"]["metadata"]["annotations"]["settings"] == "settings"
    assert 'reloader.stakater.com/auto: "false"' in result.stderr


# --- kinds whose controller copies a mapping of theirs into their pods' metadata ----

from postrender import fieldspecs  # noqa: E402

_TABLE = fieldspecs.load_table()
POD_METADATA_KINDS = sorted({(h["kind"], h["group"], h["podMetadata"]) for h in _TABLE.pod_holders()
                             if h.get("podMetadata")})
OWN_POD_SPEC = """\
apiVersion: {group}/v1
kind: {kind}
metadata: {{name: main, namespace: mon, annotations: {{team: obs}}}}
spec:
  podMetadata:
    labels: {{app: main}}
  containers:
    - name: sidecar
      envFrom: [{{configMapRef: {{name: settings}}}}]
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
  namespace: mon
  annotations: {{postrender.io/versioned: "false"}}
data: {{level: {level}}}
"""


def test_every_kind_with_pod_metadata_is_exercised():
    assert {kind for kind, _, _ in POD_METADATA_KINDS} >= {"Prometheus", "PrometheusAgent", "Alertmanager",
                                                           "ThanosRuler"}


@pytest.mark.parametrize("kind, group, at", POD_METADATA_KINDS)
def test_the_hash_of_a_kind_without_a_pod_template_goes_where_its_pods_take_their_metadata(kind, group, at):
    """The Prometheus Operator copies spec.podMetadata into its pods, never
    the object's own metadata: a hash there rolled no pod (and diff said
    it did)."""
    hashes = []
    for level in ("info", "debug"):
        out = _run(OWN_POD_SPEC.format(kind=kind, group=group, level=level)).stdout
        (obj,) = [d for d in _docs(out) if d["kind"] == kind]
        holder = obj
        for key in at.split("/"):
            holder = holder[key]
        assert holder["labels"] == {"app": "main"}
        hashes.append(holder["annotations"][KEY])
        assert obj["metadata"]["annotations"] == {"team": "obs"}
        assert _run(out).stdout == out  # idempotent
    assert hashes[0] != hashes[1]


@pytest.mark.parametrize("pod_spec_at", ["spec", "spec/pod", "spec/workload/pod"])
def test_a_users_pod_spec_row_with_pod_metadata_gets_the_hash_there_wherever_its_pod_spec_sits(tmp_path, pod_spec_at):
    # The README's podSpecs + podMetadata, for a PodSpec below `spec`: the
    # hash went into `spec.metadata`, which no controller reads (outside tester).
    config = tmp_path / "specs.yaml"
    config.write_text(f"podSpecs: [{{kind: Database, path: {pod_spec_at}, podMetadata: spec/podMetadata}}]\n")
    nested = "".join(f"{'  ' * (i + 1)}{key}:\n" for i, key in enumerate(pod_spec_at.split("/")[1:]))
    indent = "  " * len(pod_spec_at.split("/"))
    stream = ("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings, annotations: {postrender.io/versioned: 'false'}}\n"
              "data: {a: b}\n---\napiVersion: db.example.com/v1\nkind: Database\nmetadata: {name: db}\nspec:\n"
              f"{nested}{indent}volumes: [{{name: v, configMap: {{name: settings}}}}]\n")
    out = run_postrender(["--config", str(config)], stream)
    assert out.status == 0, out.stderr
    (db,) = [d for d in _docs(out.stdout) if d["kind"] == "Database"]
    assert KEY in db["spec"]["podMetadata"]["annotations"] and "metadata" not in db["spec"], db


EXPERIMENT = """\
apiVersion: v1
kind: ConfigMap
metadata: {{name: cfg-a}}
data: {{k: a}}
---
apiVersion: v1
kind: ConfigMap
metadata: {{name: cfg-b}}
data: {{k: {b}}}
---
apiVersion: argoproj.io/v1alpha1
kind: Experiment
metadata: {{name: ex}}
spec:
  templates:
  - name: a
    template:
      metadata: {{labels: {{x: a}}}}
      spec:
        containers: [{{name: c, image: x, envFrom: [{{configMapRef: {{name: cfg-a}}}}]}}]
  - name: b
    template:
      metadata: {{labels: {{x: b}}}}
      spec:
        containers: [{{name: c, image: x, envFrom: [{{configMapRef: {{name: cfg-b}}}}]}}]
"""


def test_each_of_an_objects_templates_gets_the_hash_of_what_it_uses():
    # Two hash places of one object: each template's annotation is its own
    # (rewrite._config_hashes finds each place's mapping by its path).
    def hashes(b: str) -> list[str | None]:
        ex = _by_name(_run(EXPERIMENT.format(b=b), "--strategy=annotate").stdout)["Experiment", "ex"]
        return [((t["template"].get("metadata") or {}).get("annotations") or {}).get(KEY)
                for t in ex["spec"]["templates"]]

    one, two = hashes("b"), hashes("c")
    assert None not in one + two
    assert one[0] == two[0] and one[1] != two[1] and one[0] != one[1]
