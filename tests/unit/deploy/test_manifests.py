"""deploy/ never drifts from the code.

* Every YAML / JSON file under deploy/ parses (PyYAML, a dev dependency).
* Kubernetes manifests hang together: kinds and names, selectors that select, probes on declared
  ports, resources on every container, referenced ConfigMaps / Secrets / volumes that exist,
  ``$(VAR)`` references that resolve, a termination grace period that covers the drain, and
  ``kubectl kustomize`` builds when kubectl is installed.
* Every ``WORDARENA_*`` variable a manifest sets is one the service in that container reads (a
  flag of ``services.common.config`` / the service's ``main.py``, or a direct environment read).
* Every metric named in the alert rules and the Grafana dashboard is defined in services/
  (``Counter(`` / ``Gauge(`` / ``Histogram(`` / ``Summary(`` calls, the ``grpc_server_*`` family
  included), with label names the metric has and label values the code produces.
* docs/operations.md lists every flag, environment variable and metric.
"""

from __future__ import annotations

import json
import re
import subprocess
from functools import cache
from pathlib import Path
from typing import Any

import grpc
import pytest
import yaml
from deploy_helpers import require_tool

ROOT = Path(__file__).resolve().parents[3]
DEPLOY = ROOT / "deploy"
K8S = DEPLOY / "kubernetes"
SERVICES = ROOT / "services"
DOCS = ROOT / "docs" / "operations.md"

YAML_FILES = sorted([*DEPLOY.rglob("*.yaml"), *DEPLOY.rglob("*.yml")])
JSON_FILES = sorted(DEPLOY.rglob("*.json"))


def _rel(p: Path) -> str:
    return str(p.relative_to(ROOT))


@cache
def load_yaml(path: Path) -> tuple[Any, ...]:
    return tuple(d for d in yaml.safe_load_all(path.read_text(encoding="utf-8")) if d is not None)


@cache
def load_json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


# ------------------------------------------------------------------------------------------------
# Parsing


def test_deploy_has_files() -> None:
    assert (K8S / "kustomization.yaml").is_file()
    assert (DEPLOY / "prometheus" / "prometheus.yml").is_file()
    assert (DEPLOY / "grafana" / "wordarena.json").is_file()


@pytest.mark.parametrize("path", YAML_FILES, ids=_rel)
def test_yaml_parses(path: Path) -> None:
    docs = load_yaml(path)
    assert docs, f"{_rel(path)} holds no document"
    for doc in docs:
        assert isinstance(doc, dict), f"{_rel(path)}: a document is not a mapping"


@pytest.mark.parametrize("path", JSON_FILES, ids=_rel)
def test_json_parses(path: Path) -> None:
    assert isinstance(load_json(path), dict)


# ------------------------------------------------------------------------------------------------
# Kubernetes


@cache
def kustomization() -> dict[str, Any]:
    (doc,) = load_yaml(K8S / "kustomization.yaml")
    return doc


@cache
def k8s_objects() -> tuple[dict[str, Any], ...]:
    """The objects of the kustomization's resources (as written, before kustomize)."""
    out: list[dict[str, Any]] = []
    for res in kustomization()["resources"]:
        out.extend(load_yaml(K8S / res))
    return tuple(out)


@cache
def example_objects() -> tuple[dict[str, Any], ...]:
    return load_yaml(K8S / "secrets.example.yaml")


def of_kind(kind: str, objs: tuple[dict[str, Any], ...] | None = None) -> list[dict[str, Any]]:
    return [o for o in (objs if objs is not None else k8s_objects()) if o["kind"] == kind]


WORKLOAD_KINDS = ("Deployment", "StatefulSet", "DaemonSet", "Job")


def workloads() -> list[dict[str, Any]]:
    return [o for o in k8s_objects() if o["kind"] in WORKLOAD_KINDS]


def pod_spec(w: dict[str, Any]) -> dict[str, Any]:
    return w["spec"]["template"]["spec"]


def all_containers(w: dict[str, Any]) -> list[dict[str, Any]]:
    spec = pod_spec(w)
    return [*spec.get("initContainers", []), *spec["containers"]]


@cache
def generated_configmaps() -> dict[str, dict[str, str]]:
    out: dict[str, dict[str, str]] = {}
    for gen in kustomization().get("configMapGenerator", []):
        data = out.setdefault(gen["name"], {})
        for lit in gen.get("literals", []):
            k, _, v = lit.partition("=")
            data[k] = v
    return out


def configmaps() -> dict[str, dict[str, Any]]:
    cms = {o["metadata"]["name"]: o.get("data", {}) for o in of_kind("ConfigMap")}
    cms.update({o["metadata"]["name"]: o.get("data", {}) for o in of_kind("ConfigMap", example_objects())})
    cms.update(generated_configmaps())
    return cms


def secrets() -> dict[str, dict[str, Any]]:
    out = {}
    for o in [*of_kind("Secret"), *of_kind("Secret", example_objects())]:
        out[o["metadata"]["name"]] = {**o.get("data", {}), **o.get("stringData", {})}
    return out


def test_kustomization_lists_every_manifest() -> None:
    listed = set(kustomization()["resources"])
    for res in listed:
        assert (K8S / res).is_file(), f"kustomization.yaml lists missing {res}"
    present = {p.name for p in K8S.glob("*.yaml")} - {"kustomization.yaml", "secrets.example.yaml"}
    assert present == listed, "every manifest but the secrets example belongs in kustomization.yaml"
    assert "secrets.example.yaml" not in listed, "placeholder secrets must never be applied over real ones"


def test_objects_have_identity() -> None:
    seen = set()
    for o in [*k8s_objects(), *example_objects()]:
        assert o.get("apiVersion") and o.get("kind"), o
        name = o.get("metadata", {}).get("name")
        assert name and re.fullmatch(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?", name), f"bad name {name!r}"
        key = (o["kind"], name)
        assert key not in seen, f"duplicate {key}"
        seen.add(key)
    kinds = {o["kind"] for o in k8s_objects()}
    assert {"Namespace", "Deployment", "StatefulSet", "Service", "PodDisruptionBudget"} <= kinds
    assert {o["kind"] for o in example_objects()} == {"Secret", "ConfigMap"}


def test_selectors_select() -> None:
    pod_labels = {w["metadata"]["name"]: w["spec"]["template"]["metadata"]["labels"] for w in workloads()}
    for w in workloads():
        sel = w["spec"]["selector"]["matchLabels"]
        assert sel.items() <= pod_labels[w["metadata"]["name"]].items(), w["metadata"]["name"]

    def selects(sel: dict[str, str]) -> bool:
        return any(sel.items() <= labels.items() for labels in pod_labels.values())

    for svc in of_kind("Service"):
        if svc["spec"].get("type") == "ExternalName":
            continue
        assert selects(svc["spec"]["selector"]), f"Service {svc['metadata']['name']} selects no pod"
    for pdb in of_kind("PodDisruptionBudget"):
        assert selects(pdb["spec"]["selector"]["matchLabels"]), pdb["metadata"]["name"]
        assert ("minAvailable" in pdb["spec"]) != ("maxUnavailable" in pdb["spec"])


def test_statefulset_service_is_headless() -> None:
    (ss,) = of_kind("StatefulSet")
    services = {s["metadata"]["name"]: s for s in of_kind("Service")}
    headless = services[ss["spec"]["serviceName"]]
    assert headless["spec"]["clusterIP"] == "None"
    assert ss["spec"]["replicas"] >= 2, "several match servers"


def test_lobby_runs_several_replicas_and_rolls() -> None:
    """The lobby keeps its state in the shared database (services/lobby/app.py: the table cache
    and the quick-match queue say how), so it runs several replicas and rolls them one at a
    time, never all down at once."""
    (lobby,) = [d for d in of_kind("Deployment") if d["metadata"]["name"] == "wordarena-lobby"]
    assert lobby["spec"]["replicas"] >= 2, "several lobbies"
    strategy = lobby["spec"]["strategy"]
    assert strategy["type"] == "RollingUpdate"
    assert strategy.get("rollingUpdate", {}).get("maxUnavailable", 1) == 0
    (pdb,) = [p for p in of_kind("PodDisruptionBudget") if p["metadata"]["name"] == "wordarena-lobby"]
    assert pdb["spec"].get("maxUnavailable") == 1 and "minAvailable" not in pdb["spec"]
    # the lobby's own code must not claim it runs alone any more
    service = "".join((SERVICES / "lobby" / f).read_text(encoding="utf-8")
                      for f in ("app.py", "table_cache.py", "quickmatch.py"))
    assert "FOR UPDATE" in service and "SKIP LOCKED" in service and "NOTIFY" in service


def test_containers() -> None:
    cms, secs = configmaps(), secrets()
    for w in workloads():
        spec = pod_spec(w)
        volumes = {v["name"]: v for v in spec.get("volumes", [])}
        for v in volumes.values():
            if "configMap" in v:
                assert v["configMap"]["name"] in cms, v
            if "secret" in v:
                sec = secs[v["secret"]["secretName"]]
                for item in v["secret"].get("items", []):
                    assert item["key"] in sec, item
        for c in all_containers(w):
            where = f"{w['metadata']['name']}/{c['name']}"
            assert c.get("image"), where
            res = c.get("resources", {})
            assert res.get("requests", {}).keys() >= {"cpu", "memory"}, f"{where}: requests"
            assert res.get("limits", {}).keys() >= {"cpu", "memory"}, f"{where}: limits"
            ports = {p["containerPort"] for p in c.get("ports", [])}
            for probe in ("startupProbe", "readinessProbe", "livenessProbe"):
                if probe in c:
                    assert "grpc" in c[probe], f"{where}: {probe} should use the gRPC health service"
                    assert c[probe]["grpc"]["port"] in ports, f"{where}: {probe} port not declared"
            for ref in c.get("envFrom", []):
                if "configMapRef" in ref:
                    assert ref["configMapRef"]["name"] in cms, f"{where}: {ref}"
            defined: set[str] = set()
            for e in c.get("env", []):
                for var in re.findall(r"\$\(([A-Za-z_][A-Za-z0-9_]*)\)", str(e.get("value", ""))):
                    assert var in defined, f"{where}: $({var}) used before it is defined"
                src = e.get("valueFrom", {})
                if "secretKeyRef" in src:
                    ref = src["secretKeyRef"]
                    assert ref["key"] in secs[ref["name"]], f"{where}: secret key {ref}"
                if "configMapKeyRef" in src:
                    ref = src["configMapKeyRef"]
                    assert ref["key"] in cms[ref["name"]], f"{where}: config key {ref}"
                defined.add(e["name"])
            for arg in [*c.get("command", []), *c.get("args", [])]:
                for var in re.findall(r"\$\(([A-Za-z_][A-Za-z0-9_]*)\)", arg):
                    assert var in defined, f"{where}: $({var}) in command/args is not defined"
            for m in c.get("volumeMounts", []):
                assert m["name"] in volumes, f"{where}: mount of unknown volume {m['name']}"


def service_container(w: dict[str, Any]) -> dict[str, Any]:
    """The container running wordarena-lobby / wordarena-match."""
    return next(c for c in pod_spec(w)["containers"] if c.get("command", [""])[0].startswith("wordarena-"))


def test_services_have_grpc_health_probes_and_metrics_port() -> None:
    for w in workloads():
        main = service_container(w)
        for probe in ("readinessProbe", "livenessProbe"):
            assert "grpc" in main[probe], f"{w['metadata']['name']}: {probe}"
        names = {p["name"]: p["containerPort"] for p in main["ports"]}
        env = container_env(main)
        assert env["WORDARENA_LISTEN"].endswith(f":{names['grpc']}")
        assert env["WORDARENA_METRICS_LISTEN"].endswith(f":{names['metrics']}")
        assert env["WORDARENA_LOG_FORMAT"] == "json"


def test_termination_grace_covers_the_drain() -> None:
    # GrpcServer.stop: drain hooks (each bounded by the grace) then server.stop(grace).
    for w in workloads():
        main = service_container(w)
        grace = float(container_env(main).get("WORDARENA_SHUTDOWN_GRACE", 10.0))
        assert pod_spec(w)["terminationGracePeriodSeconds"] >= 2 * grace + 1, w["metadata"]["name"]


def test_match_servers_advertise_their_own_address() -> None:
    (ss,) = of_kind("StatefulSet")
    main = next(c for c in pod_spec(ss)["containers"] if c["command"] == ["wordarena-match"])
    env = container_env(main)
    assert "$(POD_NAME)" in env["WORDARENA_SERVER_ID"]
    assert env["WORDARENA_ADVERTISE_ADDRESS"].startswith(f"$(POD_NAME).{ss['spec']['serviceName']}.")
    assert "WORDARENA_TOKEN_PRIVATE_KEY" not in env, "match servers only verify tokens"


def test_servers_require_keys_and_init_containers_migrate() -> None:
    """Production switches: no development keys, no start-up migrations in the servers (their
    init containers run ``--migrate-only``, under the migrations' advisory lock)."""
    servers = 0
    for w in workloads():
        spec = pod_spec(w)
        for c in spec["containers"]:
            if c.get("command", [""])[0] not in ("wordarena-lobby", "wordarena-match"):
                continue
            servers += 1
            env = container_env(c)
            where = f"{w['metadata']['name']}/{c['name']}"
            assert env.get("WORDARENA_REQUIRE_KEYS") == "1", where
            assert env.get("WORDARENA_NO_MIGRATE") == "1", where
            inits = [ic.get("command", []) for ic in spec.get("initContainers", [])]
            assert [c["command"][0], "--migrate-only"] in inits, f"{where}: no migrate init container"
    assert servers == 2


def test_kustomize_builds() -> None:
    kubectl = require_tool("kubectl", "renders the kustomization")
    out = subprocess.run([kubectl, "kustomize", str(K8S)], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    kinds = [d["kind"] for d in yaml.safe_load_all(out.stdout) if d]
    assert kinds.count("ConfigMap") == len(generated_configmaps())


# ------------------------------------------------------------------------------------------------
# Environment variables


_ADD_FLAG = re.compile(r"add_flag\(\s*\w+\s*,\s*\"(--[a-z0-9-]+)\"")
_ENV_READ = re.compile(
    r"(?:environ\.get\(|environ\[|getenv\(|ENV_[A-Z_]+\s*=\s*)\s*\"(WORDARENA_[A-Z0-9_]+)\""
)


def env_name(flag: str) -> str:
    from wordarena.services.common.config import env_name as real

    return real(flag)


@cache
def flag_envs(path: Path) -> frozenset[str]:
    return frozenset(env_name(f) for f in _ADD_FLAG.findall(path.read_text(encoding="utf-8")))


@cache
def direct_env_reads() -> frozenset[str]:
    names: set[str] = set()
    for base in ("services", "engine"):
        for p in (ROOT / base).rglob("*.py"):
            names.update(_ENV_READ.findall(p.read_text(encoding="utf-8")))
    return frozenset(names)


@cache
def service_envs() -> dict[str, frozenset[str]]:
    common = flag_envs(SERVICES / "common" / "config.py")
    out = {}
    for svc in ("lobby", "match"):
        own: set[str] = set()
        for p in (SERVICES / svc).glob("*.py"):
            own |= flag_envs(p)
        out[svc] = frozenset(common | own | direct_env_reads())
    return out


def container_env(c: dict[str, Any]) -> dict[str, str]:
    env: dict[str, str] = {}
    for ref in c.get("envFrom", []):
        if "configMapRef" in ref:
            env.update({k: str(v) for k, v in configmaps()[ref["configMapRef"]["name"]].items()})
    for e in c.get("env", []):
        env[e["name"]] = str(e["value"]) if "value" in e else f"<{next(iter(e['valueFrom']))}>"
    return env


def test_flags_are_found() -> None:
    envs = service_envs()
    both = envs["lobby"] & envs["match"]
    assert {"WORDARENA_LISTEN", "WORDARENA_DATABASE_URL", "WORDARENA_SERVER_ID"} <= both
    assert "WORDARENA_LEASE_SECONDS" in envs["match"] - envs["lobby"]
    assert "WORDARENA_TOKEN_TTL" in envs["lobby"] - envs["match"]
    from wordarena.services.match.main import parser

    real = {env_name(s) for a in parser()._actions for s in a.option_strings if s.startswith("--")}
    assert real - {"WORDARENA_HELP"} <= envs["match"]


def test_manifest_env_vars_are_read_by_the_services() -> None:
    everything = frozenset().union(*service_envs().values())
    for w in workloads():
        for c in all_containers(w):
            where = f"{w['metadata']['name']}/{c['name']}"
            command = c.get("command", [""])
            if command[0] in ("wordarena-lobby", "wordarena-match"):
                allowed = service_envs()[command[0].removeprefix("wordarena-")]
            else:  # scripts: the service code they import, plus what the script itself reads
                script = " ".join([*command, *c.get("args", [])])
                allowed = everything | set(re.findall(r"environ\[\"(\w+)\"\]", script))
            text = json.dumps(c)
            helpers = set(re.findall(r"\$\(([A-Za-z_][A-Za-z0-9_]*)\)", text))
            for name in container_env(c):
                if name.startswith("WORDARENA_"):
                    assert name in allowed, f"{where}: {name} is not read by the code this container runs"
                else:
                    assert name in helpers, f"{where}: {name} is neither a setting nor used as $({name})"


# ------------------------------------------------------------------------------------------------
# Metrics


_METRIC_DEF = re.compile(r"\b(Counter|Gauge|Histogram|Summary)\(\s*\"([a-zA-Z_:][a-zA-Z0-9_:]*)\"")


@cache
def defined_metrics() -> dict[str, str]:
    """Metric name (as defined) → type, from every ``Counter(`` / ``Gauge(`` … call in services/."""
    out: dict[str, str] = {}
    for p in SERVICES.rglob("*.py"):
        for kind, name in _METRIC_DEF.findall(p.read_text(encoding="utf-8")):
            out[name] = kind
    return out


@cache
def exposed_series() -> dict[str, str]:
    """Series name as scraped → defining metric name."""
    out: dict[str, str] = {}
    for name, kind in defined_metrics().items():
        if kind == "Counter":
            base = name.removesuffix("_total")
            out |= {base + "_total": name, base + "_created": name}
        elif kind in ("Histogram", "Summary"):
            extra = ("_sum", "_count", "_created") + (("_bucket",) if kind == "Histogram" else ())
            out |= {name + s: name for s in extra}
        else:
            out[name] = name
    return out


@cache
def metric_labels() -> dict[str, frozenset[str]]:
    """Label names of each metric, from the registered collectors."""
    import prometheus_client

    import wordarena.services.common.metrics
    import wordarena.services.lobby.metrics
    import wordarena.services.match.metrics  # noqa: F401

    out: dict[str, frozenset[str]] = {}
    for collector, names in prometheus_client.REGISTRY._collector_to_names.items():
        labels = frozenset(getattr(collector, "_labelnames", ()))
        for n in names:
            out[n] = labels
    return out


TARGET_LABELS = frozenset({"job", "instance", "namespace", "pod"})

_PROMQL_WORDS = frozenset((
    "sum", "min", "max", "avg", "count", "stddev", "stdvar", "topk", "bottomk", "quantile",
    "count_values", "group", "by", "without", "on", "ignoring", "group_left", "group_right", "and",
    "or", "unless", "bool", "offset", "inf", "nan",
))
_SELECTOR = re.compile(r"([A-Za-z_:][A-Za-z0-9_:]*)\s*\{([^}]*)\}")
_MATCHER = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\s*(=~|!~|!=|=)\s*\"((?:\\.|[^\"\\])*)\"")


def promql_metrics(expr: str) -> set[str]:
    """The metric names an expression selects."""
    s = re.sub(r"\"(?:\\.|[^\"\\])*\"", '""', expr)
    s = re.sub(r"\{[^}]*\}", " ", s)
    s = re.sub(r"\[[^\]]*\]", " ", s)
    s = re.sub(r"\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)", " ", s)
    names = set()
    for m in re.finditer(r"(?<![\w.])[A-Za-z_:][A-Za-z0-9_:]*", s):
        if s[m.end():].lstrip().startswith("(") or m.group() in _PROMQL_WORDS:
            continue
        names.add(m.group())
    return names


def rule_exprs() -> list[tuple[str, str]]:
    out = []
    for path in (DEPLOY / "prometheus").rglob("*.rules.yml"):
        for doc in load_yaml(path):
            for group in doc["groups"]:
                for rule in group["rules"]:
                    out.append((f"{_rel(path)}:{rule.get('alert') or rule.get('record')}", rule["expr"]))
    return out


def dashboard_exprs() -> list[tuple[str, str]]:
    out = []
    for path in (DEPLOY / "grafana").glob("*.json"):
        stack = list(load_json(path)["panels"])
        while stack:
            panel = stack.pop()
            stack.extend(panel.get("panels", []))
            for t in panel.get("targets", []):
                out.append((f"{_rel(path)}:{panel['title']}/{t['refId']}", t["expr"]))
    return out


ALL_EXPRS = rule_exprs() + dashboard_exprs()


def test_metric_definitions_found() -> None:
    series = exposed_series()
    for std in ("grpc_server_started_total", "grpc_server_handled_total",
                "grpc_server_handling_seconds_bucket", "grpc_server_msg_received_total",
                "grpc_server_msg_sent_total"):
        assert std in series
    assert "wordarena_allocations_total" in series
    assert promql_metrics('sum by (le) (rate(a_b_bucket{x="y"}[5m])) / on() max(c) > 0.5e3 or vector(0)') == {
        "a_b_bucket", "c"}


def test_rules_and_dashboard_use_existing_metrics() -> None:
    known = set(exposed_series()) | {"up"}
    assert ALL_EXPRS
    for where, expr in ALL_EXPRS:
        used = promql_metrics(expr)
        assert used, f"{where}: no metric in {expr!r}"
        missing = used - known
        assert not missing, f"{where}: {sorted(missing)} not defined in services/ (or mistyped)"


@cache
def label_values_in_code() -> dict[str, set[str]]:
    """Values the code gives to some labels."""
    lobby = (SERVICES / "lobby" / "allocation.py").read_text(encoding="utf-8")
    values: dict[str, set[str]] = {
        "grpc_code": {c.name for c in grpc.StatusCode},
        "grpc_type": {"unary", "server_stream", "client_stream", "bidi_stream"},
        "result": set(re.findall(r"ALLOCATIONS\.labels\(\s*\"(\w+)\"", lobby)),
    }
    from wordarena.services.lobby.metrics import SERVER_STATES

    values["state"] = set(SERVER_STATES)
    manager = (SERVICES / "match" / "manager.py").read_text(encoding="utf-8")
    values["reason"] = set(re.findall(r"reason = \"(\w+)\" if .* else \"(\w+)\"", manager)[0])
    return values


@cache
def grpc_methods() -> dict[str, set[str]]:
    from wordarena.v1 import control_pb2, lobby_pb2, match_pb2

    out: dict[str, set[str]] = {"grpc.health.v1.Health": {"Check", "Watch"}}
    for mod in (control_pb2, lobby_pb2, match_pb2):
        for svc in mod.DESCRIPTOR.services_by_name.values():
            out[svc.full_name] = {m.name for m in svc.methods}
    return out


def test_selectors_use_real_labels_and_values() -> None:
    labels = metric_labels()
    values = label_values_in_code()
    assert values["result"] >= {"ok"}
    assert values["state"] == {"healthy", "stale", "draining"}
    assert values["reason"] == {"restart", "takeover"}
    jobs = {j["job_name"] for j in load_yaml(DEPLOY / "prometheus" / "prometheus.yml")[0]["scrape_configs"]}
    for where, expr in ALL_EXPRS:
        for metric, body in _SELECTOR.findall(expr):
            defining = exposed_series().get(metric)
            allowed = TARGET_LABELS | labels.get(defining or "", frozenset())
            if metric.endswith("_bucket"):
                allowed |= {"le"}
            matchers = _MATCHER.findall(body)
            got = {m[0]: m for m in matchers}
            for name, op, value in matchers:
                if metric != "up" and defining in labels:
                    assert name in allowed, f"{where}: {metric} has no label {name!r}"
                if name == "job" and op == "=":
                    assert value in jobs, f"{where}: no scrape job {value!r}"
                if name in values and value:
                    wanted = value.split("|") if op in ("=~", "!~") else [value]
                    for v in wanted:
                        assert v in values[name], f"{where}: {name}={v!r} never produced by the code"
            if "grpc_service" in got and got["grpc_service"][1] == "=":
                service = got["grpc_service"][2]
                assert service in grpc_methods(), f"{where}: unknown service {service}"
                if "grpc_method" in got and got["grpc_method"][1] == "=":
                    assert got["grpc_method"][2] in grpc_methods()[service], f"{where}: unknown method"


def test_alert_rules_shape() -> None:
    rules = [r for doc in load_yaml(DEPLOY / "prometheus" / "rules" / "wordarena.rules.yml")
             for g in doc["groups"] for r in g["rules"]]
    names = [r["alert"] for r in rules]
    assert len(names) == len(set(names))
    for r in rules:
        assert r["labels"]["severity"] in ("info", "warning", "critical"), r["alert"]
        assert r["annotations"]["summary"], r["alert"]
        if "for" in r:
            assert re.fullmatch(r"\d+[smh]", r["for"]), r["alert"]
    used = " ".join(r["expr"] for r in rules)
    for needed in ("grpc_server_handled_total", "grpc_server_handling_seconds_bucket",
                   "wordarena_event_append_seconds_bucket", "wordarena_allocations_total",
                   "wordarena_stream_cutoffs_total", "wordarena_recoveries_total", "Heartbeat",
                   'wordarena_match_servers{job="wordarena-lobby", state="healthy"}'):
        assert needed in used, needed
    prom = load_yaml(DEPLOY / "prometheus" / "prometheus.yml")[0]
    for rf in prom["rule_files"]:
        assert (DEPLOY / "prometheus" / rf).is_file(), rf


def test_dashboard_shape() -> None:
    dash = load_json(DEPLOY / "grafana" / "wordarena.json")
    ids = [p["id"] for p in dash["panels"]]
    assert len(ids) == len(set(ids))
    for p in dash["panels"]:
        assert {"x", "y", "w", "h"} <= p["gridPos"].keys()
        for t in p.get("targets", []):
            assert t["refId"] and t["expr"]
    text = json.dumps(dash)
    for needed in ("SubmitTurn", "wordarena_event_append_seconds_bucket",
                   "wordarena_allocations_total", "wordarena_stream_cutoffs_total",
                   "wordarena_recoveries_total", "wordarena_matches_active"):
        assert needed in text, needed


# ------------------------------------------------------------------------------------------------
# Documentation


def test_operations_doc_lists_every_setting_and_metric() -> None:
    doc = DOCS.read_text(encoding="utf-8")
    for svc, envs in service_envs().items():
        for env in envs:
            assert f"`{env}`" in doc, f"docs/operations.md does not document {env} ({svc})"
    for p in [SERVICES / "common" / "config.py", *SERVICES.glob("*/main.py")]:
        for flag in _ADD_FLAG.findall(p.read_text(encoding="utf-8")):
            assert f"`{flag}`" in doc, f"docs/operations.md does not document {flag}"
    for name in defined_metrics():
        assert f"`{name}`" in doc, f"docs/operations.md does not describe the metric {name}"


def test_readme_links_operations() -> None:
    assert "docs/operations.md" in (ROOT / "README.md").read_text(encoding="utf-8")

