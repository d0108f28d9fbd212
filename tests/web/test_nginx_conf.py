"""nginx's settings in front of gunicorn (``nginx_conf.py`` rendering ``nginx.conf.template``):
what follows from the IBIPORTAL_* variables, and Debian's nginx accepting the result
(``nginx -t``). Requests through it: tests/reliability/test_slow_clients.py."""
from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from ibiportal.config import DEFAULTS
from ibiportal.web.files import FORM_OVERHEAD_BYTES
from nginx_conf import render

NGINX = shutil.which("nginx", path="/usr/sbin:/usr/bin")


#: The template's locations whose body is a file, alone or in a multipart form.
FILE_BODY = "~ ^/(api/v1|admin)/items/.+/files/."
FILE_FORM = "~ ^/(admin/items/.+/files|api/v1/items/import)$"


def body_limits(text: str) -> dict[str, int]:
    """``client_max_body_size`` by location (``/`` for the server's own, which ``location /``
    inherits)."""
    limits = {"/": int(re.search(r"^    client_max_body_size (\d+);", text, re.M)[1])}
    for where, limit in re.findall(r"location (~ \S+) \{\s*client_max_body_size (\d+);", text):
        limits[where] = int(limit)
    return limits


def nginx_accepts(folder: Path, text: str) -> subprocess.CompletedProcess:
    (folder / "nginx.conf").write_text(text)
    return subprocess.run([NGINX, "-t", "-p", str(folder), "-c", str(folder / "nginx.conf"), "-e", "stderr"],
                          capture_output=True, text=True, timeout=30)


def test_the_variables_make_the_listen_trust_and_body_size(tmp_path):
    text = render(str(tmp_path), "127.0.0.1:9001", {
        "IBIPORTAL_BIND": "127.0.0.1:9000, [::1]:9000",
        "IBIPORTAL_TRUSTED_PROXIES": "203.0.113.7, 198.51.100.0/24",
        "IBIPORTAL_MAX_FILE_BYTES": str(200 * 1024 * 1024),
    }, running_as_root=True)
    assert re.findall(r"^\s*listen (\S+);", text, re.M) == ["127.0.0.1:9000", "[::1]:9000"]
    assert re.search(r"^\s*server 127\.0\.0\.1:9001;", text, re.M)
    geo = re.search(r"geo \$from_trusted_proxy \{(.*?)\}", text, re.S)[1]
    assert re.findall(r"^\s*(\S+) 1;", geo, re.M) == ["203.0.113.7", "198.51.100.0/24"]
    assert body_limits(text) == {"/": DEFAULTS["MAX_CONTENT_LENGTH"], FILE_BODY: 200 * 1024 * 1024,
                                 FILE_FORM: 200 * 1024 * 1024 + FORM_OVERHEAD_BYTES}
    assert "{{" not in text and "user nobody nogroup;" in text
    checked = nginx_accepts(tmp_path, text)
    assert checked.returncode == 0, checked.stderr


def test_the_defaults_listen_where_gunicorn_did_and_trust_no_one(tmp_path):
    text = render(str(tmp_path), "127.0.0.1:9001", {}, running_as_root=False)
    assert re.findall(r"^\s*listen (\S+);", text, re.M) == ["127.0.0.1:8000"]
    geo = re.search(r"geo \$from_trusted_proxy \{(.*?)\}", text, re.S)[1]
    assert geo.split() == ["default", "0;"]
    assert body_limits(text) == {"/": DEFAULTS["MAX_CONTENT_LENGTH"], FILE_BODY: DEFAULTS["MAX_FILE_BYTES"],
                                 FILE_FORM: DEFAULTS["MAX_FILE_BYTES"] + FORM_OVERHEAD_BYTES}
    # the portal's own words for it (web/errors.py) and their translation in its catalog, with
    # the limit of the route refused
    assert '"The request is too large: the portal reads at most 8 MB."' in text
    assert '"A requisição é grande demais: o portal lê no máximo 8 MB."' in text
    assert '"The request is too large: the portal reads at most 100 MB."' in text
    assert '"A requisição é grande demais: o portal lê no máximo 100 MB."' in text
    assert not re.search(r"^\s*user ", text, re.M)  # a master that is not root cannot switch users
    checked = nginx_accepts(tmp_path, text)
    assert checked.returncode == 0, checked.stderr


def test_a_bad_variable_stops_the_start_naming_it(tmp_path):
    with pytest.raises(ValueError, match="IBIPORTAL_MAX_FILE_BYTES must be a whole number, not 'lots'"):
        render(str(tmp_path), "127.0.0.1:9001", {"IBIPORTAL_MAX_FILE_BYTES": "lots"}, running_as_root=False)
