"""deploy/ checked by the tools that will read it.

* Every Kubernetes object — the output of ``kubectl kustomize deploy/kubernetes`` when kubectl is
  installed, else the files the kustomization lists — and the example Secret / ConfigMap are valid
  against the Kubernetes OpenAPI schemas in strict mode (no unknown field anywhere), for the oldest
  Kubernetes the manifests aim at and the newest the ``kubernetes-validate`` package knows.
* The image: every container names the image ``wordarena``, which kustomization.yaml's ``images:``
  turns into the configured name and tag; an overlay's ``images:`` does the same (as documented).
* ``promtool check rules`` accepts the alert rules and ``promtool check config`` the compose
  Prometheus configuration (Debian's promtool is built without Kubernetes discovery, so it cannot
  read prometheus.yml itself; test_manifests.py checks that file's jobs and rule files).

kubectl and promtool: without them a test skips, and fails under CI.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from functools import cache
from pathlib import Path
from typing import Any

import kubernetes_validate
import pytest
import yaml
from deploy_helpers import DEPLOY, ROOT, require_tool
from test_manifests import K8S, all_containers, example_objects, k8s_objects, kustomization

OLDEST_KUBERNETES = "1.30.0"
VERSIONS = (OLDEST_KUBERNETES, f"{kubernetes_validate.latest_version()}.0")


def kustomize(folder: Path) -> list[dict[str, Any]]:
    kubectl = require_tool("kubectl", "renders the kustomization")
    out = subprocess.run([kubectl, "kustomize", str(folder)], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return [d for d in yaml.safe_load_all(out.stdout) if d]


@cache
def objects_to_validate() -> tuple[tuple[str, dict[str, Any]], ...]:
    """(where, object): the rendered kustomization if kubectl is here, else the raw resources
    (the kustomize tests below need kubectl, and fail under CI without it)."""
    if shutil.which("kubectl"):
        objs, where = kustomize(K8S), "kubectl kustomize"
    else:
        objs, where = list(k8s_objects()), "raw"
    out = [(f"{where}:{o['kind']}/{o['metadata']['name']}", o) for o in objs]
    out += [(f"secrets.example.yaml:{o['kind']}/{o['metadata']['name']}", o) for o in example_objects()]
    return tuple(out)


@pytest.mark.parametrize("version", VERSIONS)
def test_manifests_are_valid_kubernetes_objects_strictly(version: str) -> None:
    objs = objects_to_validate()
    assert len(objs) > len(example_objects())
    errors = []
    for where, obj in objs:
        try:
            kubernetes_validate.validate(obj, version, strict=True)
        except (kubernetes_validate.ValidationError, kubernetes_validate.SchemaNotFoundError) as exc:
            errors.append(f"{where}: {exc}")
    assert not errors, f"Kubernetes {version}:\n" + "\n".join(errors)


def test_strict_validation_refuses_an_unknown_field() -> None:
    obj = next(o for _, o in objects_to_validate() if o["kind"] == "StatefulSet")
    bad = yaml.safe_load(yaml.safe_dump(obj))
    bad["spec"]["template"]["spec"]["containers"][0]["imagePullPolicyy"] = "Always"
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(bad, VERSIONS[-1], strict=True)


# ------------------------------------------------------------------------------------------------
# The image name


def containers(objs: list[dict[str, Any]] | tuple[dict[str, Any], ...]) -> list[dict[str, Any]]:
    return [c for o in objs if "template" in o.get("spec", {}) for c in all_containers(o)]


def test_every_container_runs_the_image_kustomize_renames() -> None:
    (image,) = kustomization()["images"]
    assert image["newName"] and image["newTag"]
    cs = containers(k8s_objects())
    assert cs and {c["image"] for c in cs} == {image["name"]}


def test_kustomize_sets_the_configured_image() -> None:
    (image,) = kustomization()["images"]
    assert {c["image"] for c in containers(kustomize(K8S))} == {f"{image['newName']}:{image['newTag']}"}


def test_an_overlay_sets_its_own_image(tmp_path: Path) -> None:
    """docs/operations.md: keep deploy/kubernetes as it is and set ``images:`` in an overlay, whose
    ``name`` is the base's ``newName`` (the base has renamed ``wordarena`` already)."""
    (base,) = kustomization()["images"]
    doc = (ROOT / "docs" / "operations.md").read_text(encoding="utf-8")
    assert f"`name: {base['newName']}`" in doc
    overlay = {"apiVersion": "kustomize.config.k8s.io/v1beta1", "kind": "Kustomization",
               "resources": [os.path.relpath(K8S, tmp_path)],
               "images": [{"name": base["newName"], "newName": "registry.test/team/wordarena",
                           "newTag": "1.2.3"}]}
    (tmp_path / "kustomization.yaml").write_text(yaml.safe_dump(overlay))
    assert {c["image"] for c in containers(kustomize(tmp_path))} == {"registry.test/team/wordarena:1.2.3"}


# ------------------------------------------------------------------------------------------------
# Prometheus


@pytest.mark.parametrize("path", sorted((DEPLOY / "prometheus").rglob("*.rules.yml")), ids=lambda p: p.name)
def test_promtool_accepts_the_rules(path: Path) -> None:
    promtool = require_tool("promtool", "checks the Prometheus rules")
    out = subprocess.run([promtool, "check", "rules", str(path)], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stdout + out.stderr


def test_promtool_accepts_the_compose_configuration() -> None:
    promtool = require_tool("promtool", "checks the Prometheus configuration")
    config = DEPLOY / "prometheus" / "compose.yml"
    out = subprocess.run([promtool, "check", "config", str(config)], capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "SUCCESS" in out.stdout + out.stderr
