"""The deployment files as their tools read them, offline: the Kubernetes manifests against
Kubernetes' own schemas (kubernetes-validate ships them), the Compose file against the Compose
Specification's schema (check-jsonschema ships it), the shell scripts through shellcheck; the
image's archive readable by ``docker load`` as well as ``podman load``."""
from __future__ import annotations

import hashlib
import io
import json
import re
import shutil
import subprocess
import sys
import tarfile
import tomllib
from pathlib import Path

import kubernetes_validate
import pytest
import yaml

from ibiportal.config import settings_table
from kubernetes_validate.utils import latest_version

from deploy.docker_manifest import add_docker_manifest

ROOT = Path(__file__).resolve().parent.parent
KUBERNETES = ROOT / "deploy" / "kubernetes"
COMPOSE = ROOT / "deploy" / "compose.yaml"
VERSION = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
#: The oldest Kubernetes release the manifests are checked against, and the newest the validator
#: knows (CronJob and Job TTLs are in batch/v1 in both).
KUBERNETES_RELEASES = ("1.29.0", latest_version())


def manifests() -> list[tuple[str, dict]]:
    """Every resource of deploy/kubernetes/, the Secret's template included, with its file's name."""
    files = sorted(KUBERNETES.glob("*.yaml")) + sorted(KUBERNETES.glob("*.yaml.template"))
    return [(path.name, resource) for path in files for resource in yaml.safe_load_all(path.read_text()) if resource]


def test_the_kubernetes_manifests_are_what_the_issue_asks_for():
    kinds = sorted(resource["kind"] for _, resource in manifests())
    assert kinds == ["ConfigMap", "CronJob", "Deployment", "Job", "Secret", "Service"]
    deployment = next(resource for _, resource in manifests() if resource["kind"] == "Deployment")
    portal = deployment["spec"]["template"]["spec"]["containers"][0]
    assert portal["readinessProbe"]["httpGet"]["path"] == "/readyz"
    assert portal["livenessProbe"]["httpGet"]["path"] == "/healthz"


@pytest.mark.parametrize("release", KUBERNETES_RELEASES)
def test_the_kubernetes_manifests_follow_kubernetes_schemas(release):
    for name, resource in manifests():
        try:
            kubernetes_validate.validate(resource, release, strict=True)
        except kubernetes_validate.ValidationError as error:
            pytest.fail(f"{name}: {resource['kind']} at {'.'.join(map(str, error.path))}: {error.message}")


def test_the_compose_file_follows_the_compose_specification():
    checked = subprocess.run([sys.executable, "-m", "check_jsonschema", "--builtin-schema", "vendor.compose-spec",
                              str(COMPOSE)], capture_output=True, text=True, timeout=60)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    services = yaml.safe_load(COMPOSE.read_text())["services"]
    assert services["migrate"]["command"] == ["flask", "--app", "app", "db", "upgrade"]
    assert services["portal"]["depends_on"]["migrate"] == {"condition": "service_completed_successfully"}


def test_the_deployment_files_run_this_version_with_settings_the_portal_reads():
    """Every image of the portal is this version's, and every IBIPORTAL_* variable they set is one
    the portal's code reads (a misspelt one would be ignored without a word)."""
    texts = [COMPOSE.read_text()] + [path.read_text() for path in sorted(KUBERNETES.iterdir())]
    images = {image for text in texts for image in re.findall(r"image: (ibiportal:\S+)", text)}
    assert images == {f"ibiportal:{VERSION}"}
    read = set(re.findall(r"^\| `(IBIPORTAL_[A-Z_]+)`", settings_table(), re.MULTILINE))  # every setting declared
    set_here = {name for text in texts for name in re.findall(r"^\s*(IBIPORTAL_[A-Z_]+):", text, re.MULTILINE)}
    assert set_here and set_here <= read, set_here - read


def shell_scripts() -> list[Path]:
    """Every file of the repository that starts as a bash or sh script does."""
    tracked = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    scripts = []
    for name in tracked.decode().split("\0"):
        path = ROOT / name
        if name and path.is_file():
            with path.open("rb") as file:
                if re.match(rb"#!\s*/(usr/)?bin/(env\s+)?(ba)?sh\b", file.readline()):
                    scripts.append(path)
    return scripts


def test_the_shell_scripts_pass_shellcheck():
    assert shutil.which("shellcheck"), "shellcheck is missing (bin/test installs Debian's)"
    scripts = shell_scripts()
    assert ROOT / "bin" / "image" in scripts and ROOT / "bin" / "run" in scripts
    checked = subprocess.run(["shellcheck", "--format=gcc", *map(str, scripts)], capture_output=True, text=True,
                             timeout=120)
    assert checked.returncode == 0, checked.stdout + checked.stderr


def blob(archive: tarfile.TarFile, content: bytes) -> str:
    digest = hashlib.sha256(content).hexdigest()
    member = tarfile.TarInfo(f"blobs/sha256/{digest}")
    member.size = len(content)
    archive.addfile(member, io.BytesIO(content))
    return f"sha256:{digest}"


def test_the_image_archive_also_names_its_image_for_docker_load(tmp_path):
    """An OCI archive as buildah writes it (a layout whose one manifest is Docker's), then
    Docker's manifest.json beside it, naming the same blobs."""
    path = tmp_path / "image.oci.tar"
    with tarfile.open(path, "w") as archive:
        layers = [blob(archive, b"layer %d" % number) for number in range(2)]
        config = blob(archive, b'{"config": {}}')
        manifest = json.dumps({
            "schemaVersion": 2, "mediaType": "application/vnd.docker.distribution.manifest.v2+json",
            "config": {"mediaType": "application/vnd.docker.container.image.v1+json", "digest": config, "size": 14},
            "layers": [{"mediaType": "application/vnd.docker.image.rootfs.diff.tar.gzip", "digest": layer, "size": 7}
                       for layer in layers]}).encode()
        index = {"schemaVersion": 2, "manifests": [{
            "mediaType": "application/vnd.docker.distribution.manifest.v2+json", "digest": blob(archive, manifest),
            "size": len(manifest), "annotations": {"org.opencontainers.image.ref.name": "ibiportal:9.9"}}]}
        blob(archive, b"")  # an unrelated blob
        member = tarfile.TarInfo("index.json")
        member.size = len(json.dumps(index))
        archive.addfile(member, io.BytesIO(json.dumps(index).encode()))

    add_docker_manifest(path, "ibiportal:9.9")

    with tarfile.open(path) as archive:
        [entry] = json.load(archive.extractfile("manifest.json"))
        assert entry == {"Config": "blobs/sha256/" + config.partition(":")[2], "RepoTags": ["ibiportal:9.9"],
                         "Layers": ["blobs/sha256/" + layer.partition(":")[2] for layer in layers]}
        assert archive.extractfile(entry["Layers"][1]).read() == b"layer 1"
        assert "index.json" in archive.getnames()
    with pytest.raises(ValueError, match="manifest.json already"):
        add_docker_manifest(path, "ibiportal:9.9")
