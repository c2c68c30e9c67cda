"""graph.build walks each object once for the references and for byname's
pod strings: both must be what walking each spec set on its
own finds, over every golden fixture's objects and a workload full of args,
commands and env values."""

import pytest
from conftest import FIXTURES

from postrender import fieldspecs
from postrender.options import RenderOptions
from postrender.pipeline.graph.byname import find_readers, may_name_config, other_kind, pod_string_specs, says_kind
from postrender.pipeline.graph.references import build, find_all
from postrender.pipeline.index.objects import ObjectIndex
from postrender.pipeline.read import read
from postrender.pipeline.read.documents import Source
from postrender.syntax.nodes import is_string

TABLE = fieldspecs.load_table()

WORKLOAD = """\
apiVersion: v1
kind: ConfigMap
metadata: {name: settings}
data: {a: b}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: app}
spec:
  template:
    spec:
      initContainers:
      - name: init
        command: [/bin/init, --source, settings]
      containers:
      - name: app
        command: ["/bin/server", "--log-level=info"]
        args: [--config=/etc/app, --configmap=$(POD_NAMESPACE)/settings, --port, "8080", ""]
        env:
        - {name: MODE, value: production}
        - {name: SETTINGS, value: settings}
        - {name: EMPTY, value: ""}
        - name: FROM
          valueFrom: {configMapKeyRef: {name: settings, key: a}}
"""


def _streams():
    for case in sorted((FIXTURES / "golden").iterdir()):
        path = case / "input.yaml"
        if path.exists():
            yield read([Source(str(path), path.read_text())], RenderOptions().limits)
    yield read([Source("workload.yaml", WORKLOAD)], RenderOptions().limits)


def _strings_alone(index):
    """What byname walked on its own before: each object's pod strings."""
    specs = pod_string_specs(TABLE)
    found = []
    for obj in index.objects:
        compiled = specs.applicable(obj.kind, obj.group, obj.api_version.rpartition("/")[2])
        for ref in find_all(obj, compiled) if compiled is not None else ():
            found.append((id(obj), id(ref.node), ref.path))
    return found


def test_one_walk_finds_the_references_and_the_pod_strings():
    scanned = 0
    for stream in _streams():
        index = ObjectIndex(stream.objects, None, frozenset(TABLE.cluster_scoped))
        alone, none = build(index, TABLE)
        together, strings = build(index, TABLE, pod_string_specs(TABLE))
        assert [(id(r.node), r.path, r.spec, r.name, r.resolution) for r in together.references] == \
            [(id(r.node), r.path, r.spec, r.name, r.resolution) for r in alone.references]
        assert none == []
        assert [(id(obj), id(node), path) for obj, node, _, path in strings] == _strings_alone(index)
        assert all(is_string(node) and node.value for _, node, _, _ in strings)
        scanned += len(strings)
    assert scanned > 20


def _readers(graph, strings):
    return [(id(r.target), id(r.node), r.path, r.name, r.why, r.via) for r in find_readers(graph, strings).readers]


def test_readers_found_from_the_scanned_strings():
    stream = read([Source("workload.yaml", WORKLOAD)], RenderOptions().limits)
    index = ObjectIndex(stream.objects, None, frozenset(TABLE.cluster_scoped))
    readers = find_readers(*build(index, TABLE, pod_string_specs(TABLE), may_name_config(index))).readers
    assert sorted((r.field_path, r.via) for r in readers) == [
        ("spec.template.spec.containers[0].env[1].value", "SETTINGS"),
        ("spec.template.spec.initContainers[0].command[2]", "--source"),
    ]


def test_the_strings_kept_for_byname_are_all_it_reads():
    # may_name_config drops strings naming no config object of the stream:
    # find_readers must find the same readers as from every string.
    kept = 0
    for stream in _streams():
        index = ObjectIndex(stream.objects, None, frozenset(TABLE.cluster_scoped))
        graph, every = build(index, TABLE, pod_string_specs(TABLE))
        screened, some = build(index, TABLE, pod_string_specs(TABLE), may_name_config(index))
        assert _readers(screened, some) == _readers(graph, every)
        assert len(some) <= len(every)
        kept += len(some)
    assert kept > 0


def _graph_facts(graph, strings):
    return ([(id(r.node), r.path, r.spec, r.name, r.namespace, r.prefix, r.optional, r.resolution, id(r.target))
             for r in graph.references],
            [(id(obj), id(node), context, path) for obj, node, context, path in strings])


def test_what_read_found_is_what_build_finds_walking():
    # render walks each object as its document is read (needs.Needs runs a
    # Finder), then prunes the document: build must give from those finds
    # exactly what its own walk of the whole objects gives.
    from postrender.pipeline.needs import Needs

    compared = 0
    for case in sorted((FIXTURES / "golden").iterdir()):
        path = case / "input.yaml"
        if not path.exists():
            continue
        sources = [Source(str(path), path.read_text())]
        whole = read(sources, RenderOptions().limits)
        needs = Needs(TABLE, pod_string_specs(TABLE), prune=False)  # walks, prunes nothing: the same nodes either way
        walked = read([Source(str(path), path.read_text())], RenderOptions().limits, needs)
        assert all(needs.found_in(obj) is not None for obj in walked.objects)
        index = ObjectIndex(walked.objects, None, frozenset(TABLE.cluster_scoped))
        asked = []

        def found_in(obj):
            asked.append(needs.found_in(obj))
            return asked[-1]

        from_read = build(index, TABLE, pod_string_specs(TABLE), found=found_in)
        assert len(asked) == len(walked.objects) and None not in asked  # what read found was used
        from_walk = build(index, TABLE, pod_string_specs(TABLE))
        assert _graph_facts(*from_read) == _graph_facts(*from_walk)
        compared += len(from_walk[0].references)
        del whole
    assert compared > 50


def test_a_pruned_stream_gives_the_graph_of_the_whole_one():
    # Every document pruned to what the stages read after read: the
    # references and strings found as it was read are those of the whole.
    from postrender.pipeline.needs import Needs

    def facts(stream, found):
        index = ObjectIndex(stream.objects, None, frozenset(TABLE.cluster_scoped))
        graph, strings = build(index, TABLE, pod_string_specs(TABLE), found=found)
        where = {id(obj): i for i, obj in enumerate(stream.objects)}
        return ([(where[id(r.referrer)], r.node.start_mark, r.path, r.name, r.resolution,
                  where.get(id(r.target))) for r in graph.references],
                [(where[id(obj)], node.start_mark, context, path) for obj, node, context, path in strings])

    for case in sorted((FIXTURES / "golden").iterdir()):
        path = case / "input.yaml"
        if not path.exists():
            continue
        whole = read([Source(str(path), path.read_text())], RenderOptions().limits)
        needs = Needs(TABLE, pod_string_specs(TABLE))
        pruned = read([Source(str(path), path.read_text())], RenderOptions().limits, needs)
        assert facts(pruned, needs.found_in) == facts(whole, None), case.name


# --- a flag or variable that names another kind ------------------------------

SHARED = """\
apiVersion: v1
kind: ConfigMap
metadata: {name: ctl, namespace: edge}
data: {a: b}
---
apiVersion: v1
kind: Secret
metadata: {name: ctl, namespace: edge}
data: {a: Yg==}
---
apiVersion: v1
kind: Service
metadata: {name: ctl, namespace: edge}
spec: {ports: [{port: 80}]}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: app, namespace: edge}
spec:
  template:
    spec:
      containers:
      - name: app
        image: i
"""


def _readers_of(container: str) -> list[tuple[str, str]]:
    text = SHARED + "".join(f"        {line}\n" for line in container.splitlines())
    stream = read([Source("shared.yaml", text)], RenderOptions().limits)
    index = ObjectIndex(stream.objects, None, frozenset(TABLE.cluster_scoped))
    found = find_readers(*build(index, TABLE, pod_string_specs(TABLE), may_name_config(index)))
    return sorted({(r.target.kind, r.via) for r in found.readers})


# Each names a Service, an Ingress class, a Lease, a namespace, a pod, a
# node, a workload, a Gateway or an Issuer (sources in fixednames.yaml
# nameHints), written every way a container gives a flag or a variable.
OTHER_KINDS = [
    "args: [--publish-service=$(POD_NAMESPACE)/ctl]",        # ingress-nginx, haproxy-ingress
    "args: [--default-backend-service=edge/ctl]",             # ingress-nginx
    "args: [--publish-service, $(POD_NAMESPACE)/ctl]",        # the value as the next item
    "args: [--ingress-class=ctl]",                            # ingress-nginx, external-dns
    "args: [--election-id=ctl]",                              # ingress-nginx: its Lease
    "args: [--leader-elect-resource-name=ctl]",               # client-go (cluster-autoscaler)
    "args: [--leader-election-id=ctl]",                       # controller-runtime operators
    "args: [--watch-namespace=ctl]",                          # ingress-nginx
    'args: ["--namespaces=other,ctl"]',                       # kube-state-metrics, prometheus-operator
    "args: [--kubelet-service=edge/ctl]",                     # prometheus-operator
    "args: [--dynamic-serving-dns-names=ctl]",                # cert-manager webhook
    "args: [--host=ctl]",                                     # kube-webhook-certgen
    "args: [--pod=ctl, --node=ctl]",                          # kube-state-metrics sharding
    "args: [--gateway-name=ctl]",                             # external-dns
    "args: [--default-issuer-name=ctl]",                      # cert-manager
    "args: [--deployment=ctl]",
    "args: [--providers.kubernetesingress.ingressendpoint.publishedservice=edge/ctl]",  # Traefik
    "command: [sh, -c, exec controller --publish-service=edge/ctl]",
    "env: [{name: CONTROLLER_PUBLISH_SERVICE, value: edge/ctl}]",   # Kong
    "env: [{name: CONTROLLER_KONG_ADMIN_SVC, value: edge/ctl}]",    # Kong
    "env: [{name: CONTROLLER_ELECTION_ID, value: ctl}]",            # Kong
    "env: [{name: WATCH_NAMESPACE, value: ctl}]",                   # operator-sdk
    "env: [{name: publishService, value: ctl}]",                    # camelCase words
    "env: [{name: REDIS_ALIAS, value: ctl}]",                       # redis_exporter (Bitnami valkey)
    "env: [{name: MY_STS_NAME, value: ctl}]",                       # Bitnami etcd: its StatefulSet
    "env: [{name: MONGODB_REPLICA_SET_NAME, value: ctl}]",          # Bitnami MongoDB: its replica set
    "args: [create, --host=ctl, --webhook-name=ctl]",               # kube-webhook-certgen: its webhook
    "args: [--preset, ctl]",                                  # nginx-prometheus-exporter (Loki's gateway)
    "args: [--preset=ctl, --log-level=ctl, --log.format=ctl, --mode=ctl]",  # settings, not names
    "env: [{name: LOG_LEVEL, value: ctl}]",
]


@pytest.mark.parametrize("container", OTHER_KINDS)
def test_a_flag_or_variable_that_names_another_kind_reads_no_config(container):
    # The Service (or Lease, namespace ...) shares the configs' name: that
    # the word matches them is a coincidence, not a read by name.
    assert _readers_of(container) == []
    assert other_kind(_via(container)) is not None


# A word of a config kind counts whatever else the name says; a name that
# says no kind at all still counts (a program may read anything by name).
# A flag that spells a kind out reads only that kind; a looser word
# (`config`, `cert`) may name either.
READS = {
    "args: [--service-configmap=edge/ctl]": {"ConfigMap"},
    "args: [--ingress-tls-secret=ctl]": {"Secret"},
    "args: [--leader-election-configmap=ctl]": {"ConfigMap"},
    "env: [{name: APP_CONFIGMAP_SECRET, value: ctl}]": {"ConfigMap", "Secret"},
    "args: [--cert=ctl]": {"ConfigMap", "Secret"},
    "env: [{name: SERVICE_CONFIG, value: ctl}]": {"ConfigMap", "Secret"},
    "args: [--settings=$(POD_NAMESPACE)/ctl]": {"ConfigMap", "Secret"},
    "args: [serve, ctl]": {"ConfigMap", "Secret"},
    "env: [{name: RELEASE_NAME, value: ctl}]": {"ConfigMap", "Secret"},     # `release` is no `lease`
    "env: [{name: GHOST, value: ctl}]": {"ConfigMap", "Secret"},            # nor `ghost` a `host`
    "args: [--publish-service=edge/ctl, --source=ctl]": {"ConfigMap", "Secret"},
    # A setting word beside any other word may still name a config.
    "args: [--log-cfg=ctl]": {"ConfigMap", "Secret"},
    "args: [--log-credentials, ctl]": {"ConfigMap", "Secret"},
    "env: [{name: LOG_CONFIGMAP, value: ctl}]": {"ConfigMap"},
    "args: [--mode-config=ctl]": {"ConfigMap", "Secret"},
    "args: [--log=ctl]": {"ConfigMap", "Secret"},            # `log` alone says no setting
}


@pytest.mark.parametrize("container", READS)
def test_a_flag_that_says_a_config_kind_or_no_kind_still_reads_it(container):
    assert {kind for kind, _ in _readers_of(container)} == READS[container]
    assert all(other_kind(via) is None for _, via in _readers_of(container))


def _via(container: str) -> str:
    """The flag or variable of a one-item container line above."""
    if container.startswith("env"):
        return container.split("name: ")[1].split(",")[0]
    flags = [word for word in container.replace("[", " ").replace(",", " ").replace('"', " ").split()
             if word.startswith("--")]
    return flags[-1].partition("=")[0]


@pytest.mark.parametrize("script, via", [
    # A flag's reach ends with its line: the host on the next one was read
    # as named by --state (Bitnami mlflow's wait-for-port init container).
    ('"wait-for-port --host=db --state=inuse 5432\\ncheck ctl now"', ""),
    ('"wait-for-port --state=inuse 5432; check ctl now"', ""),
    ('"wait-for-port --state=inuse 5432 && check ctl"', ""),
    ('"prog --state inuse | grep ctl"', ""),
    # Within its command, it still reaches its value and the words after,
    # on the next line too where the line before goes on (`\\`).
    ('"prog --settings ctl"', "--settings"),
    ('"prog --settings \\\\\\n  ctl"', "--settings"),
    ('"prog --settings=a ctl"', "--settings"),
    # A script's `name;` is its name (the script is the value of `-ec`).
    ('"kubectl get secret ctl; echo done"', "-ec"),
])
def test_a_flags_reach_in_a_script_ends_with_its_command(script, via):
    assert _readers_of(f"command: [bash, -ec, {script}]") == [("ConfigMap", via), ("Secret", via)]


@pytest.mark.parametrize("script", [
    # A script that waits for a Service names its host: followed by a port,
    # or after a database client's -h (Bitnami mlflow's init containers kept
    # three password Secrets named as their Services from being versioned).
    '"check_host() { nc -z $1 $2; }\\ncheck_host ctl 5432"',
    '"retry_while \\"check_host ctl 443\\""',
    '"until nc -z ctl 5432; do sleep 1; done"',
    '"pg_isready -h ctl -p 5432"',
    '"redis-cli -h ctl ping"',
])
def test_a_host_a_script_waits_for_reads_no_config(script):
    assert _readers_of(f"command: [bash, -ec, {script}]") == []


@pytest.mark.parametrize("script", ['"echo ctl 99999"', '"echo ctl 0"', '"echo ctl 5432x"'])
def test_a_word_followed_by_what_is_no_port_still_reads(script):
    assert _readers_of(f"command: [bash, -ec, {script}]") == [("ConfigMap", "-ec"), ("Secret", "-ec")]


def test_the_reason_shown_is_the_reader_whose_flag_says_the_kind():
    found = _readers_of("args: [--source=ctl, --settings-secret=ctl]")
    assert found == [("ConfigMap", "--source"), ("Secret", "--settings-secret"), ("Secret", "--source")]
    text = SHARED + "        args: [--source=ctl, --settings-secret=ctl]\n"
    stream = read([Source("shared.yaml", text)], RenderOptions().limits)
    index = ObjectIndex(stream.objects, None, frozenset(TABLE.cluster_scoped))
    why = find_readers(*build(index, TABLE, pod_string_specs(TABLE), may_name_config(index))).read()
    secret = next(o for o in index.objects if o.kind == "Secret")
    assert "(--settings-secret)" in why[id(secret)]


def test_the_name_hints_are_data_and_every_config_kind_has_words():
    hints = fieldspecs.data("fixednames.yaml")["nameHints"]
    assert set(hints["configKinds"]) == {"ConfigMap", "Secret"}
    assert {"Service", "Lease", "Namespace"} <= set(hints["otherKinds"])
    for kind, words in hints["configKinds"].items():
        assert all(says_kind(f"--x-{word}-y", kind) for word in words)


def test_pod_strings_keep_what_comes_before_each_and_share_their_lists_paths():
    # The strings are held as columns from read to build (PodStrings): each
    # must come back with its context and its whole path, and the items of
    # one list must hold its path once, not a tuple each.
    from postrender.pipeline.graph.references import Finder

    stream = read([Source("workload.yaml", WORKLOAD)], RenderOptions().limits)
    deployment = next(obj for obj in stream.objects if obj.kind == "Deployment")
    found = Finder(TABLE, pod_string_specs(TABLE))(deployment)
    scanned = [(node.value, context, path) for _, node, context, path in found.strings.wanted(deployment, lambda text, context: bool(text))]
    container = ("spec", "template", "spec", "containers", 0)
    assert (("/bin/server", "", container + ("command", 0)) in scanned
            and ("8080", "--port", container + ("args", 3)) in scanned
            and ("settings", "SETTINGS", container + ("env", 1, "value")) in scanned
            and ("settings", "--source", ("spec", "template", "spec", "initContainers", 0, "command", 2)) in scanned)
    assert not any(value == "" for value, _, _ in scanned)
    args = [at for at, path in enumerate(found.strings.paths) if path == container + ("args",)]
    assert len(args) == 4 and len({id(found.strings.paths[at]) for at in args}) == 1
    # `wanted` keeps only what it is asked to.
    assert [node.value for _, node, _, _ in found.strings.wanted(deployment, lambda text, context: text == "settings")] \
        == ["settings", "settings"]
