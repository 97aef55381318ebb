"""The browser extension ships in the package: every file of src/jobctrl/extension is
package data (a file the patterns miss would be left out of the wheel, and the unpacked
extension a person loads would break), and its manifest asks only for what it uses."""

from __future__ import annotations

import json
import re
import tomllib
from fnmatch import fnmatch
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "src" / "jobctrl"
EXTENSION = PACKAGE / "extension"


def test_every_file_of_the_extension_is_package_data() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    patterns = config["tool"]["setuptools"]["package-data"]["jobctrl"]
    files = [p.relative_to(PACKAGE).as_posix() for p in EXTENSION.rglob("*") if p.is_file()]
    assert "extension/manifest.json" in files
    missed = [f for f in files if not any(fnmatch(f, pattern) for pattern in patterns)]
    assert not missed, f"add these to [tool.setuptools.package-data]: {missed}"


def test_the_manifest_asks_only_for_what_the_extension_uses() -> None:
    manifest = json.loads((EXTENSION / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["manifest_version"] == 3
    assert set(manifest["permissions"]) == {"activeTab", "storage", "scripting", "alarms", "tabs"}
    assert manifest["host_permissions"] == ["http://127.0.0.1/*", "http://localhost/*"]
    assert "content_scripts" not in manifest  # pages are read only when asked, by injection
    for name in ("background.js", "api.js", "extract.js", "sites.js", "popup.js", "popup.html"):
        text = (EXTENSION / name).read_text(encoding="utf-8")
        assert "eval(" not in text and "new Function" not in text, name
        assert "innerHTML" not in text, name  # page and jobctrl text is set as text
    # No remote code: the popup's scripts and the modules' imports are the extension's own.
    popup = (EXTENSION / "popup.html").read_text(encoding="utf-8")
    sources = re.findall(r'<script[^>]*src="([^"]+)"', popup)
    assert sources == ["popup.js"]
    for path in EXTENSION.glob("*.js"):
        text = path.read_text(encoding="utf-8")
        imports = re.findall(r'^import\s[^;]*?from\s+"([^"]+)";', text, re.M)
        assert all(i.startswith("./") for i in imports), (path.name, imports)
        if path.name in ("background.js", "popup.js"):
            assert "./api.js" in imports and "./sites.js" in imports, path.name
