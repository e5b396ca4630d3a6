"""Renders deploy/k8s/base as `kubectl kustomize` does, for machines without kubectl.

The kustomization uses only what this reads: resources, a namespace, labels (not on selectors),
an image tag and ConfigMaps generated from files. kustomize also appends a hash of a generated
ConfigMap's content to its name (and to the references to it); this leaves the names as they are.
tests/test_k8s.py checks that both renderings hold the same resources where kubectl is installed.

    python deploy/k8s/render.py [DIR]    (default deploy/k8s/base): the resources as YAML
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import yaml

BASE = Path(__file__).resolve().parent / "base"


def _images(resource: dict[str, Any], images: dict[str, str]) -> None:
    spec = resource.get("spec", {}).get("template", {}).get("spec", {})
    for container in spec.get("initContainers", []) + spec.get("containers", []):
        if container["image"] in images:
            container["image"] = images[container["image"]]


def render(base: Path = BASE) -> list[dict[str, Any]]:
    kustomization = yaml.safe_load((base / "kustomization.yaml").read_text())
    resources: list[dict[str, Any]] = []
    for name in kustomization["resources"]:
        resources += [doc for doc in yaml.safe_load_all((base / name).read_text()) if doc]
    for generator in kustomization.get("configMapGenerator", []):
        data = {file: (base / file).read_text() for file in generator["files"]}
        resources.append(
            {
                "apiVersion": "v1",
                "kind": "ConfigMap",
                "metadata": {"name": generator["name"]},
                "data": data,
            }
        )
    labels: dict[str, str] = {}
    for entry in kustomization.get("labels", []):
        labels |= entry["pairs"]
    images = {
        image["name"]: f"{image.get('newName', image['name'])}:{image['newTag']}"
        for image in kustomization.get("images", [])
    }
    for resource in resources:
        metadata = resource["metadata"]
        if resource["kind"] != "Namespace":
            metadata["namespace"] = kustomization["namespace"]
        metadata["labels"] = metadata.get("labels", {}) | labels
        _images(resource, images)
    return resources


class _Dumper(yaml.SafeDumper):
    def ignore_aliases(self, data: Any) -> bool:  # the same dict twice is written out twice
        return True


if __name__ == "__main__":
    base = Path(sys.argv[1]) if len(sys.argv) > 1 else BASE
    yaml.dump_all(render(base), sys.stdout, Dumper=_Dumper, sort_keys=False)
