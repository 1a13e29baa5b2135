"""Installing the `cartograph` binaries on the runner.

Either the release archive for the runner's OS and architecture, whose SHA-256 must equal the one
pinned in this action's own `checksums.txt` (a sums file downloaded next to the asset could be
replaced along with it, so it is not trusted), or, with `version: source`, a `cargo build` of the
action's own checkout (`$GITHUB_ACTION_PATH/..`). Nothing from the analysed repository is run.

A release is kept in the runner's tool cache (`$RUNNER_TOOL_CACHE/cartograph/VERSION/ARCH/`, with
an `ARCH.complete` marker beside it: the layout of @actions/tool-cache), as the verified archive
plus its binaries. A later job on the same runner (self-hosted, or an image that ships the tool
cache) uses that copy only when the archive still has the pinned SHA-256 and every binary in the
folder is byte for byte the one in the archive; anything else is removed and downloaded again.

The install step also says which build of cartograph was installed (`cartograph --version`), which
keys the fact cache, and where the fact cache lives (empty when the `cache` input is false, and in
`mode: install`, where the workflow keeps its own).
"""

import hashlib
import os
import re
import shutil
import subprocess
import tarfile
import urllib.parse
import urllib.request
import zipfile

import runner
from runner import ActionError

DEFAULT_RELEASES = "https://github.com/cartograph-dev/cartograph/releases/download"
_TARGETS = {
    ("Linux", "X64"): "x86_64-unknown-linux-musl",
    ("Linux", "ARM64"): "aarch64-unknown-linux-musl",
    ("macOS", "X64"): "x86_64-apple-darwin",
    ("macOS", "ARM64"): "aarch64-apple-darwin",
    ("Windows", "X64"): "x86_64-pc-windows-msvc",
    ("Windows", "ARM64"): "aarch64-pc-windows-msvc",
}
_VERSION = re.compile(r"^v[0-9][0-9A-Za-z.+-]*$")
_HEX64 = re.compile(r"^[0-9a-f]{64}$")


def target():
    os_name = os.environ.get("RUNNER_OS", "")
    arch = os.environ.get("RUNNER_ARCH", "")
    try:
        return _TARGETS[(os_name, arch)]
    except KeyError:
        raise ActionError(
            f"no Cartograph release is built for runner {os_name or '?'}/{arch or '?'}; set `version: source`"
        ) from None


def parse_asset(name):
    """(version, target) of `cartograph-VERSION-TARGET.tar.gz|zip`, or None. The target is matched
    as a known suffix, since both a version (v1.0.0-rc1) and a target contain hyphens."""
    if not name.startswith("cartograph-"):
        return None
    for triple in _TARGETS.values():
        for extension in ("tar.gz", "zip"):
            suffix = f"-{triple}.{extension}"
            if name.endswith(suffix):
                version = name[len("cartograph-") : -len(suffix)]
                return (version, triple) if _VERSION.match(version) else None
    return None


def read_checksums(path):
    """{asset name: sha256} from lines `SHA256  ASSET` (# comments and blank lines ignored)."""
    pins = {}
    if not os.path.isfile(path):
        return pins
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            fields = line.split()
            if len(fields) != 2 or not _HEX64.match(fields[0].lower()) or not parse_asset(fields[1].lstrip("*")):
                raise ActionError(f"checksums.txt line {number} is not `SHA256  cartograph-VERSION-TARGET.tar.gz`")
            pins[fields[1].lstrip("*")] = fields[0].lower()
    return pins


def _version_key(version):
    # The newest stable release wins; a pre-release only when no stable release is pinned.
    numbers = [int(n) for n in re.findall(r"\d+", version.split("-", 1)[0])]
    stable = "-" not in version
    return (stable, numbers, version)


def choose_version(requested, pins, triple):
    if requested not in ("", "pinned", "latest"):
        return requested if requested.startswith("v") else "v" + requested
    versions = {parsed[0] for parsed in map(parse_asset, pins) if parsed and parsed[1] == triple}
    if not versions:
        raise ActionError(
            "this copy of the action pins no release for this runner yet; use a released tag of the action or `version: source`"
        )
    return max(versions, key=_version_key)


def _download(url, destination):
    parsed = urllib.parse.urlparse(url)
    loopback = parsed.hostname in ("127.0.0.1", "localhost", "::1")
    if parsed.scheme != "https" and not (parsed.scheme == "http" and loopback):
        raise ActionError("the release download URL must be https")
    request = urllib.request.Request(url, headers={"User-Agent": "cartograph-action"})
    try:
        with urllib.request.urlopen(request, timeout=120) as response, open(destination, "wb") as out:
            if urllib.parse.urlparse(response.geturl()).scheme != "https" and not loopback:
                raise ActionError("the release download was redirected away from https")
            shutil.copyfileobj(response, out)
    except OSError as error:
        raise ActionError(f"could not download the release asset ({type(error).__name__})") from None


def _sha256(path):
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


_WANTED = ("cartograph", "cartograph.exe", "cartograph-ask", "cartograph-ask.exe")


def _members(archive):
    """Yields (base name, readable file) for each of the two binaries in a release archive, by base
    name only, so an archive cannot name a place to write."""
    if archive.endswith(".zip"):
        with zipfile.ZipFile(archive) as zf:
            for info in zf.infolist():
                name = info.filename.rsplit("/", 1)[-1]
                if name in _WANTED and not info.is_dir():
                    with zf.open(info) as src:
                        yield name, src
    else:
        with tarfile.open(archive, "r:gz") as tf:
            for member in tf.getmembers():
                name = member.name.rsplit("/", 1)[-1]
                if name in _WANTED and member.isfile():
                    with tf.extractfile(member) as src:
                        yield name, src


def _extract(archive, destination):
    """Extracts only the two binaries into `destination`; returns their names."""
    found = []
    for name, src in _members(archive):
        with open(os.path.join(destination, name), "wb") as out:
            shutil.copyfileobj(src, out)
        found.append(name)
    for name in found:
        os.chmod(os.path.join(destination, name), 0o755)
    return found


def _member_digests(archive):
    """{base name: SHA-256} of the binaries in a release archive, without writing them anywhere."""
    digests = {}
    for name, src in _members(archive):
        digest = hashlib.sha256()
        for block in iter(lambda: src.read(1 << 20), b""):
            digest.update(block)
        digests[name] = digest.hexdigest()
    return digests


# ---- the runner's tool cache ------------------------------------------------------------------
_TOOL = "cartograph"


def _tool_cache_folder(version):
    """`$RUNNER_TOOL_CACHE/cartograph/VERSION/ARCH` as @actions/tool-cache lays it out (the version
    without its `v`, the architecture in lower case), or None without a tool cache."""
    root = os.environ.get("RUNNER_TOOL_CACHE", "").strip()
    arch = os.environ.get("RUNNER_ARCH", "").strip().lower()
    if not root or not arch or not os.path.isabs(root):
        return None
    clean = version[1:] if re.match(r"^v\d", version) else version
    return os.path.join(root, _TOOL, clean, arch)


def _remove_tool_cache_entry(folder):
    try:
        if os.path.exists(folder + ".complete"):
            os.remove(folder + ".complete")
        shutil.rmtree(folder, ignore_errors=True)
    except OSError:
        pass


def from_tool_cache(version, asset, expected, exe):
    """The tool cache's copy of `asset`'s binaries when it is complete and verified: the archive
    has the pinned SHA-256, and every binary in the folder is the archive's own. Else None (a
    copy that fails the check is removed, when the folder may be written)."""
    folder = _tool_cache_folder(version)
    if not folder or not os.path.isdir(folder) or not os.path.isfile(folder + ".complete"):
        return None
    archive = os.path.join(folder, asset)
    problem = None
    try:
        if not os.path.isfile(archive) or _sha256(archive) != expected:
            problem = "its archive does not match the pinned SHA-256"
        else:
            inside = _member_digests(archive)
            present = [name for name in _WANTED if os.path.lexists(os.path.join(folder, name))]
            if "cartograph" + exe not in inside:
                problem = "its archive holds no cartograph binary"
            elif sorted(present) != sorted(inside):
                problem = "its binaries are not the archive's"
            elif any(os.path.islink(os.path.join(folder, name)) or _sha256(os.path.join(folder, name)) != inside[name] for name in present):
                problem = "a binary differs from the one in the pinned archive"
    except (OSError, tarfile.TarError, zipfile.BadZipFile, EOFError):
        problem = "it cannot be read"
    if problem:
        runner.annotate("warning", f"the runner's tool cache holds a copy of {asset} that is not used ({problem}); downloading it again")
        _remove_tool_cache_entry(folder)
        return None
    return folder


def to_tool_cache(version, asset, archive, bin_dir, found):
    """Copies a verified download into the tool cache (the archive and its binaries, then the
    `.complete` marker). Skipped, with a log line, when there is no tool cache or it may not be
    written: the job goes on with the binaries it has."""
    folder = _tool_cache_folder(version)
    root = os.environ.get("RUNNER_TOOL_CACHE", "").strip()
    if not folder:
        return
    if not os.path.isdir(root) or not os.access(root, os.W_OK | os.X_OK):
        runner.log("the runner's tool cache is not writable; cartograph is not kept there")
        return
    try:
        _remove_tool_cache_entry(folder)
        os.makedirs(folder)
        shutil.copyfile(archive, os.path.join(folder, asset))
        for name in found:
            shutil.copyfile(os.path.join(bin_dir, name), os.path.join(folder, name))
            os.chmod(os.path.join(folder, name), 0o755)
        with open(folder + ".complete", "w", encoding="utf-8"):
            pass
    except OSError as error:
        _remove_tool_cache_entry(folder)
        runner.log(f"cartograph could not be kept in the runner's tool cache ({type(error).__name__})")
        return
    runner.log(f"kept cartograph {version} in the runner's tool cache")


def from_release(requested):
    action_path = os.environ.get("GITHUB_ACTION_PATH") or os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    triple = target()
    pins = read_checksums(os.path.join(action_path, "checksums.txt"))
    version = choose_version(requested, pins, triple)
    extension = "zip" if "windows" in triple else "tar.gz"
    asset = f"cartograph-{version}-{triple}.{extension}"
    expected = pins.get(asset)
    if not expected:
        raise ActionError(f"{asset} has no SHA-256 pinned in this action's checksums.txt; refusing to install it")
    exe = ".exe" if "windows" in triple else ""
    cached = from_tool_cache(version, asset, expected, exe)
    if cached:
        runner.log(f"using cartograph {version} ({triple}) from the runner's tool cache, checksum verified")
        return version, cached, exe
    base = os.environ.get("CARTOGRAPH_RELEASE_BASE_URL", "").strip() or DEFAULT_RELEASES
    work = os.path.join(runner.runner_temp(), "install", version)
    os.makedirs(work, exist_ok=True)
    archive = os.path.join(work, asset)
    runner.log(f"downloading {asset}")
    _download(f"{base.rstrip('/')}/{version}/{asset}", archive)
    actual = _sha256(archive)
    if actual != expected:
        os.remove(archive)
        raise ActionError(
            f"{asset} does not match the SHA-256 pinned in this action (expected {expected[:12]}…, got {actual[:12]}…); refusing to install it"
        )
    bin_dir = os.path.join(work, "bin")
    if os.path.isdir(bin_dir):
        shutil.rmtree(bin_dir)
    os.makedirs(bin_dir)
    found = _extract(archive, bin_dir)
    if "cartograph" + exe not in found:
        raise ActionError(f"{asset} holds no cartograph binary")
    runner.log(f"installed cartograph {version} ({triple}), checksum verified")
    to_tool_cache(version, asset, archive, bin_dir, found)
    return version, bin_dir, exe


def from_source():
    action_path = os.environ.get("GITHUB_ACTION_PATH") or os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    source = os.path.normpath(os.path.join(action_path, ".."))
    if not os.path.isfile(os.path.join(source, "Cargo.toml")):
        raise ActionError("`version: source` needs the action's own repository checkout (no Cargo.toml beside action/)")
    target_dir = os.environ.get("CARGO_TARGET_DIR") or os.path.join(runner.runner_temp(), "cargo-target")
    env = runner.scrubbed_env({"CARGO_TARGET_DIR": target_dir})
    packages = ["-p", "cartograph-cli"]
    if os.path.isfile(os.path.join(source, "crates", "cartograph-ask", "Cargo.toml")):
        packages += ["-p", "cartograph-ask"]
    runner.log("building cartograph from the action's source (cargo build --release)")
    runner.run(["cargo", "build", "--release", "--locked", *packages], cwd=source, env=env, capture=False)
    exe = ".exe" if os.environ.get("RUNNER_OS") == "Windows" else ""
    return "source", os.path.join(target_dir, "release"), exe


def build_of(cartograph):
    """The build of the installed binary, as `cartograph --version` prints it (`cartograph 0.2.0`
    gives `0.2.0`), reduced to characters a cache key may hold."""
    try:
        completed = subprocess.run(
            [cartograph, "--version"], env=runner.scrubbed_env(), stdin=subprocess.DEVNULL,
            capture_output=True, text=True, encoding="utf-8", errors="replace", timeout=60, check=False,
        )
    except (OSError, subprocess.SubprocessError):
        completed = None
    words = (completed.stdout if completed and completed.returncode == 0 else "").split()
    if not words:
        raise ActionError("the installed cartograph binary does not run on this runner")
    text = words[-1] if len(words) > 1 and words[0] == "cartograph" else "-".join(words)
    return re.sub(r"[^0-9A-Za-z._+-]", "_", text)[:64]


def cache_dir():
    """Where the fact cache lives (restored before the analysis, saved after it), or "" when the
    `cache` input is false."""
    if not runner.flag("cache", True):
        return ""
    return os.path.join(runner.runner_temp(), "fact-cache")


def install(fact_cache=True):
    """Installs the binaries and writes the install step's outputs. `fact_cache` False (install
    mode): no fact cache directory, so action.yml neither restores nor saves one."""
    requested = runner.get("version", "pinned")
    if requested == "source":
        version, bin_dir, exe = from_source()
    else:
        version, bin_dir, exe = from_release(requested)
    bin_dir = os.path.abspath(bin_dir)
    cartograph = os.path.join(bin_dir, "cartograph" + exe)
    ask = os.path.join(bin_dir, "cartograph-ask" + exe)
    runner.set_output("version", version)
    runner.set_output("build", build_of(cartograph))
    runner.set_output("cache-dir", cache_dir() if fact_cache else "")
    runner.set_output("cartograph", cartograph)
    runner.set_output("cartograph-ask", ask if os.path.isfile(ask) else "")
    runner.add_path(bin_dir)
