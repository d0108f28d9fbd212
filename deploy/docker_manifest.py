"""Adds Docker's ``manifest.json`` to an OCI archive, so that ``docker load`` reads it too.

``python deploy/docker_manifest.py ARCHIVE NAME:TAG`` (``bin/image`` runs it). An OCI archive is
an OCI image layout in a tar file: ``index.json`` names the image's manifest, and every manifest,
configuration and layer is a blob under ``blobs/sha256/``. ``podman load`` reads that; ``docker
load`` reads a ``manifest.json`` listing, per image, its configuration and layers as paths in the
tar and its tags. Both can point at the same blobs, which is what ``docker save`` writes since
Docker 25; its layers may be compressed, docker load detects that.
"""
from __future__ import annotations

import io
import json
import sys
import tarfile
from pathlib import Path

#: The manifest media types whose configuration and layers Docker reads: Docker's own, and OCI's.
MANIFEST_TYPES = ("application/vnd.docker.distribution.manifest.v2+json", "application/vnd.oci.image.manifest.v1+json")


def blob_path(digest: str) -> str:
    """Where an OCI image layout keeps the blob ``digest`` (``sha256:…``)."""
    algorithm, _, encoded = digest.partition(":")
    return f"blobs/{algorithm}/{encoded}"


def docker_manifest(archive: tarfile.TarFile, tag: str) -> list[dict]:
    """The ``manifest.json`` entries for the one image of ``archive``'s ``index.json``."""
    index = json.load(archive.extractfile("index.json"))
    images = [entry for entry in index["manifests"] if entry["mediaType"] in MANIFEST_TYPES]
    if len(images) != 1:
        raise ValueError(f"the archive must hold exactly one image, not {len(images)}")
    manifest = json.load(archive.extractfile(blob_path(images[0]["digest"])))
    return [{
        "Config": blob_path(manifest["config"]["digest"]),
        "RepoTags": [tag],
        "Layers": [blob_path(layer["digest"]) for layer in manifest["layers"]],
    }]


def add_docker_manifest(path: Path, tag: str) -> None:
    """Append ``manifest.json`` naming the image ``tag`` to the OCI archive at ``path``."""
    with tarfile.open(path) as archive:
        if "manifest.json" in archive.getnames():
            raise ValueError(f"{path} has a manifest.json already")
        content = json.dumps(docker_manifest(archive, tag)).encode()
    with tarfile.open(path, "a") as archive:
        member = tarfile.TarInfo("manifest.json")
        member.size = len(content)
        member.mode = 0o644
        archive.addfile(member, io.BytesIO(content))


if __name__ == "__main__":
    add_docker_manifest(Path(sys.argv[1]), sys.argv[2])
