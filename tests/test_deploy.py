"""deploy/: what the image, the compose file and the Kubernetes manifests promise, checked
here where no container engine or cluster runs (`make lint-deploy` validates their
schemas and lints the Dockerfile); and /metrics on a port of its own, on a live gunicorn.
"""

from __future__ import annotations

import ast
import os
import re
import runpy
import socket
import sys
import time
import tomllib
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
import requests
import yaml

from tests.bench import compiled
from tests.conftest import ExternalRedis
from tests.devredis import RedisServer
from tests.live import LiveService, free_port

ROOT = Path(__file__).resolve().parent.parent
DEPLOY = ROOT / "deploy"
K8S = DEPLOY / "k8s"


def _name(requirement: str) -> str:
    """A requirement's project name, normalised (PEP 503)."""
    match = re.match(r"[A-Za-z0-9][A-Za-z0-9._-]*", requirement.strip())
    assert match, requirement
    return re.sub(r"[-_.]+", "-", match.group(0)).lower()


def dockerfile_instructions() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) of deploy/Dockerfile, continuation lines joined."""
    text = re.sub(r"\\\n", " ", (DEPLOY / "Dockerfile").read_text())
    found = []
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            word, _, rest = line.partition(" ")
            found.append((word.upper(), rest.strip()))
    return found


def dockerfile_stages() -> list[list[tuple[str, str]]]:
    """The instructions of each stage of deploy/Dockerfile, from its FROM on."""
    stages: list[list[tuple[str, str]]] = []
    for word, args in dockerfile_instructions():
        if word == "FROM":
            stages.append([])
        if stages:
            stages[-1].append((word, args))
    return stages


def image_uid() -> int:
    users = [args for word, args in dockerfile_instructions() if word == "USER"]
    assert users, "the image sets no USER"
    return int(users[-1].split(":")[0])  # numeric, or this raises


def k8s_documents() -> list[dict[str, Any]]:
    kustomization = yaml.safe_load((K8S / "kustomization.yaml").read_text())
    docs = []
    for resource in kustomization["resources"]:
        docs += [d for d in yaml.safe_load_all((K8S / resource).read_text()) if d]
    return docs


def deployments() -> dict[str, dict[str, Any]]:
    return {d["metadata"]["name"]: d for d in k8s_documents() if d["kind"] == "Deployment"}


class TestLockFile:
    def lock(self) -> dict[str, str]:
        """name -> the text of its entry in deploy/requirements.lock."""
        text = (DEPLOY / "requirements.lock").read_text()
        entries = re.split(r"\n(?=\S)", text)
        return {_name(e): e for e in entries if e.strip() and not e.startswith("#")}

    def test_it_pins_every_runtime_dependency_and_the_build_backend(self) -> None:
        pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
        needed = {_name(r) for r in pyproject["project"]["dependencies"]}
        needed |= {_name(r) for r in pyproject["build-system"]["requires"]}
        missing = needed - set(self.lock())
        assert not missing, f"deploy/requirements.lock lacks {sorted(missing)}: run `make lock`"

    def test_every_entry_is_pinned_with_hashes(self) -> None:
        lock = self.lock()
        assert lock
        for name, entry in lock.items():
            assert re.match(r"[A-Za-z0-9._-]+==[^\s\\;]+", entry), entry
            assert "--hash=sha256:" in entry, f"{name} has no hash"

    def test_it_holds_no_test_or_lint_tool(self) -> None:
        assert not {"pytest", "ruff", "mypy", "playwright", "schemathesis"} & set(self.lock())


class TestDockerfile:
    def test_the_user_is_numeric_and_matches_the_manifests(self) -> None:
        uid = image_uid()
        assert uid >= 10000
        for deployment in deployments().values():
            assert deployment["spec"]["template"]["spec"]["securityContext"]["runAsUser"] == uid

    def test_metrics_are_on_a_port_of_their_own_everywhere(self) -> None:
        """The image sets METRICS_PORT (so /metrics is never on the public port, even run
        bare), and exposes it; compose and the manifests name the same port, where the
        scraper looks."""
        image = dockerfile_stages()[-1]
        env = dict(
            re.findall(r"(\w+)=(\S+)", " ".join(args for word, args in image if word == "ENV"))
        )
        port = env["METRICS_PORT"]
        assert int(port) != int(env["PORT"])
        (exposed,) = [args.split() for word, args in image if word == "EXPOSE"]
        assert exposed == [env["PORT"], port]
        compose = yaml.safe_load((DEPLOY / "docker-compose.yml").read_text())
        assert compose["services"]["api"]["environment"]["METRICS_PORT"] == port
        assert "ports" not in compose["services"]["api"]  # neither published
        (config,) = [d for d in k8s_documents() if d["kind"] == "ConfigMap"]
        assert config["data"]["METRICS_PORT"] == port
        pod = deployments()["scopa-api"]["spec"]["template"]
        assert pod["metadata"]["annotations"]["prometheus.io/port"] == port
        (container,) = pod["spec"]["containers"]
        assert {p["name"]: str(p["containerPort"]) for p in container["ports"]}["metrics"] == port

    def test_the_health_check_is_exec_form_on_readiness(self) -> None:
        (check,) = [args for word, args in dockerfile_instructions() if word == "HEALTHCHECK"]
        command = check.split(" CMD ", 1)[1].strip()
        assert command.startswith("["), "HEALTHCHECK CMD must be exec form (a JSON array)"
        assert "/readyz" in command

    def test_dependencies_come_from_the_lock_with_hashes(self) -> None:
        runs = [args for word, args in dockerfile_instructions() if word == "RUN"]
        assert any("--require-hashes" in r and "deploy/requirements.lock" in r for r in runs)
        # the project itself adds nothing unhashed
        project = [r for r in runs if re.search(r"pip install .*\s\.(\s|$)", r)]
        assert project and all("--no-deps" in r for r in project)

    def test_base_images_are_pinned_and_the_command_is_exec_form(self) -> None:
        instructions = dockerfile_instructions()
        for word, args in instructions:
            if word == "FROM":
                image = args.split()[0]
                assert ":" in image and not image.endswith(":latest"), image
        (command,) = [args for word, args in instructions if word == "CMD"]
        assert command.startswith("[")

    def test_the_build_stage_compiles_the_engine_and_the_image_has_no_compiler(self) -> None:
        build, image = dockerfile_stages()
        assert build[0][1].endswith(" AS build")
        build_runs = " ".join(args for word, args in build if word == "RUN")
        assert re.search(r"apt-get install .*\bgcc\b", build_runs)
        # mypyc, on exactly the modules `make compile` builds, as strict as it builds them
        (mypyc,) = re.findall(r"mypyc (--[^&]*)&&", build_runs)
        assert "--strict" in mypyc and "--config-file= " in mypyc
        assert re.findall(r"service/engine/\w+\.py", mypyc) == list(compiled.MODULES)
        # the extension modules go beside their sources, the runtime library to the top
        for module in compiled.MODULES:
            assert f"{module.removesuffix('.py')}.*.so" in build_runs, module
        assert "__mypyc.*.so" in build_runs
        # what it built is what runs, checked in the build already
        assert "SCOPA_ENGINE=compiled python -P -c" in build_runs
        # the image: the venv of the build stage (sources, built modules), and no compiler
        env = " ".join(args for word, args in image if word == "ENV")
        assert re.search(r"\bSCOPA_ENGINE=compiled\b", env)
        copied = [args for word, args in image if word == "COPY" and "--from" in args]
        assert copied == ["--from=build /opt/venv /opt/venv"]
        image_runs = " ".join(args for word, args in image if word == "RUN")
        assert not re.search(r"apt-get|gcc|mypy|pip install", image_runs)

    def test_the_build_context_lets_in_only_what_the_image_copies(self) -> None:
        patterns = [
            line.strip()
            for line in (DEPLOY / "Dockerfile.dockerignore").read_text().splitlines()
            if line.strip() and not line.startswith("#")
        ]
        assert patterns[0] == "*"  # everything out (.git, .venv, .run, ...) ...
        allowed = {p[1:].rstrip("/") for p in patterns if p.startswith("!")}
        # ... but what is copied
        copied = set()
        for word, args in dockerfile_instructions():
            if word == "COPY" and "--from" not in args:
                copied |= {source.rstrip("/") for source in args.split()[:-1]}
        assert copied == allowed
        assert not any(name.startswith((".venv", ".git", ".run", "tests")) for name in allowed)


class TestCompose:
    def compose(self) -> dict[str, Any]:
        compose: dict[str, Any] = yaml.safe_load((DEPLOY / "docker-compose.yml").read_text())
        return compose

    def test_the_api_runs_several_replicas_behind_the_proxy(self) -> None:
        services = self.compose()["services"]
        api = services["api"]
        assert int(re.sub(r"\$\{API_REPLICAS:-(\d+)\}", r"\1", str(api["deploy"]["replicas"]))) > 1
        assert "ports" not in api  # reached through the proxy only
        assert services["proxy"]["ports"]
        assert api["environment"]["TRUSTED_PROXIES"] == "1"
        assert services["worker"]["command"] == ["python", "-m", "service.worker"]
        assert "SERVER_SECRET:?" in api["environment"]["SERVER_SECRET"]

    def test_redis_has_a_password_a_memory_limit_and_no_eviction(self) -> None:
        services = self.compose()["services"]
        command = " ".join(services["redis"]["command"])
        assert "--requirepass" in command and "--maxmemory " in command
        assert "--maxmemory-policy noeviction" in command
        assert services["redis"]["environment"]["REDIS_PASSWORD"].startswith("${REDIS_PASSWORD:?")
        assert "${REDIS_PASSWORD" in services["api"]["environment"]["REDIS_URL"]

    def test_the_proxy_passes_event_streams_unbuffered(self) -> None:
        conf = (DEPLOY / "nginx.conf").read_text()
        stream = re.search(r"location ~ \^/v1/games/\[\^/\]\+/stream\$ \{(.*?)\}", conf, re.S)
        assert stream, "no location for the event streams"
        body = stream.group(1)
        assert "proxy_buffering off;" in body
        timeout = re.search(r"proxy_read_timeout (\d+)s;", body)
        assert timeout and int(timeout.group(1)) > 3600  # STREAM_MAX_SECONDS
        assert re.search(r"location = /metrics \{\s*return 404;", conf)


class TestPushpin:
    """Pushpin holds the streams in front of the API (docs/deploy.md, Event streams)."""

    def test_the_streams_go_to_pushpin_and_the_rest_to_the_api(self) -> None:
        conf = (DEPLOY / "nginx.conf").read_text()
        stream = re.search(r"location ~ \^/v1/games/\[\^/\]\+/stream\$ \{(.*?)\}", conf, re.S)
        assert stream and "proxy_pass http://pushpin;" in stream.group(1)
        rest = re.search(r"location / \{(.*?)\}", conf, re.S)
        assert rest and "proxy_pass http://api;" in rest.group(1)
        compose = yaml.safe_load((DEPLOY / "docker-compose.yml").read_text())["services"]
        assert compose["pushpin"]["environment"]["API_UPSTREAM"] == "api:8000"
        api = compose["api"]["environment"]
        assert api["GRIP_PUBLISH_URLS"] == "http://pushpin:5561"
        assert api["GRIP_KEY"] == compose["pushpin"]["environment"]["GRIP_KEY"]
        assert "ports" not in compose["pushpin"]  # reached through nginx only

    def test_its_configuration_logs_no_url_and_sends_each_event_at_once(self) -> None:
        conf = (DEPLOY / "pushpin" / "pushpin.conf").read_text()
        settings = dict(re.findall(r"^(\w+)=(.*)$", conf, re.M))
        assert settings["log_level"] == "1"  # a stream's URL may hold a seat's token
        assert settings["message_rate"] == "0"
        assert settings["sig_key"] == "@GRIP_KEY@"  # from the environment, at start
        assert settings["x_forwarded_for"] == ""  # TRUSTED_PROXIES=1 either way
        assert "@GRIP_KEY@" in (DEPLOY / "pushpin" / "entrypoint.sh").read_text()

    def test_every_replica_is_published_to_and_runs_locked_down(self) -> None:
        docs = k8s_documents()
        (stateful,) = [d for d in docs if d["kind"] == "StatefulSet"]
        (config,) = [d for d in docs if d["kind"] == "ConfigMap"]
        urls = config["data"]["GRIP_PUBLISH_URLS"].split(",")
        service = stateful["spec"]["serviceName"]
        replicas = stateful["spec"]["replicas"]
        assert urls == [f"http://pushpin-{n}.{service}:5561" for n in range(replicas)]
        pod = stateful["spec"]["template"]["spec"]
        assert pod["securityContext"]["runAsNonRoot"] is True
        (container,) = pod["containers"]
        security = container["securityContext"]
        assert security["readOnlyRootFilesystem"] and not security["allowPrivilegeEscalation"]
        assert security["capabilities"]["drop"] == ["ALL"]
        env = {e["name"]: e.get("valueFrom") for e in container["env"]}
        assert env["GRIP_KEY"] == {"secretKeyRef": {"name": "scopa-secret", "key": "GRIP_KEY"}}


class TestKubernetes:
    def test_the_kustomization_lists_every_manifest_and_only_files_that_exist(self) -> None:
        kustomization = yaml.safe_load((K8S / "kustomization.yaml").read_text())
        listed = set(kustomization["resources"])
        present = {p.name for p in K8S.glob("*.yaml")} - {"kustomization.yaml"}
        assert listed == present
        kinds = {d["kind"] for d in k8s_documents()}
        assert {
            "Deployment", "Service", "HorizontalPodAutoscaler", "PodDisruptionBudget",
            "ConfigMap", "Secret",
        } <= kinds  # fmt: skip
        images = {i["name"] for i in kustomization["images"]}
        for deployment in deployments().values():
            for container in deployment["spec"]["template"]["spec"]["containers"]:
                assert container["image"] in images

    def test_pods_run_locked_down_with_resources(self) -> None:
        for name, deployment in deployments().items():
            pod = deployment["spec"]["template"]["spec"]
            assert pod["securityContext"]["runAsNonRoot"] is True, name
            assert pod["securityContext"]["seccompProfile"]["type"] == "RuntimeDefault"
            for container in pod["containers"]:
                security = container["securityContext"]
                assert security["readOnlyRootFilesystem"] is True, name
                assert security["allowPrivilegeEscalation"] is False, name
                assert security["capabilities"]["drop"] == ["ALL"], name
                for kind in ("requests", "limits"):
                    assert {"cpu", "memory"} <= set(container["resources"][kind]), name
                # /tmp writable (an emptyDir) on a read-only root
                volumes = {v["name"]: v for v in pod["volumes"]}
                mounts = {m["mountPath"]: m["name"] for m in container["volumeMounts"]}
                assert "emptyDir" in volumes[mounts["/tmp"]]

    def test_the_api_probes_and_its_metrics(self) -> None:
        api = deployments()["scopa-api"]["spec"]["template"]
        (container,) = api["spec"]["containers"]
        assert container["readinessProbe"]["httpGet"]["path"] == "/readyz"
        assert container["livenessProbe"]["httpGet"]["path"] == "/healthz"
        env = {e["name"]: e["value"] for e in container["env"]}
        volumes = {v["name"]: v for v in api["spec"]["volumes"]}
        mounts = {m["mountPath"]: m["name"] for m in container["volumeMounts"]}
        assert "emptyDir" in volumes[mounts[env["PROMETHEUS_MULTIPROC_DIR"]]]
        (config,) = [d for d in k8s_documents() if d["kind"] == "ConfigMap"]
        ports = {p["name"]: p["containerPort"] for p in container["ports"]}
        assert ports["metrics"] == int(config["data"]["METRICS_PORT"]) != ports["http"]
        assert api["metadata"]["annotations"]["prometheus.io/port"] == str(ports["metrics"])
        (service,) = [
            d
            for d in k8s_documents()
            if d["kind"] == "Service" and d["metadata"]["name"] == "scopa-api"
        ]
        assert [p["targetPort"] for p in service["spec"]["ports"]] == ["http"]

    def test_the_secret_holds_placeholders_only(self) -> None:
        (secret,) = [d for d in k8s_documents() if d["kind"] == "Secret"]
        assert all("replace-me" in value for value in secret["stringData"].values())


@pytest.mark.parametrize("launcher", ["devredis.py", "devpushpin.py"])
def test_make_run_needs_nothing_but_serving_dependencies(launcher: str) -> None:
    """`make run` installs only the project (no test extra) and runs tests.devpushpin
    and tests.devredis."""
    tree = ast.parse((ROOT / "tests" / launcher).read_text())
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            imported.add(node.module.split(".")[0])
    assert imported - {"__future__"} <= sys.stdlib_module_names
    assert (ROOT / "tests" / "__init__.py").read_text().strip() == ""


def test_gunicorn_clears_a_named_metrics_directory_on_start(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    metrics = tmp_path / "metrics"
    metrics.mkdir()
    (metrics / "counter_123.db").write_bytes(b"stale")
    (metrics / "keep.txt").write_text("not ours")
    monkeypatch.setenv("PROMETHEUS_MULTIPROC_DIR", str(metrics))
    settings = runpy.run_path(str(DEPLOY / "gunicorn.conf.py"))
    settings["on_starting"](SimpleNamespace(cfg=SimpleNamespace(bind=[])))
    assert sorted(os.listdir(metrics)) == ["keep.txt"]


def test_a_service_on_a_port_in_use_refuses_to_start(
    redis_server: RedisServer | ExternalRedis,
) -> None:
    """Another process listens on PORT (a `make run` started before): gunicorn says so
    and exits with 1, rather than come up beside it and take a share of the port's
    connections (each worker binds with SO_REUSEPORT)."""
    with socket.socket() as other:
        other.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)  # as a service's worker
        other.bind(("127.0.0.1", 0))
        other.listen()
        service = LiveService(redis_server.url)
        service.port = other.getsockname()[1]
        try:
            with pytest.raises(RuntimeError, match="gunicorn exited with 1") as refused:
                service.start()
        finally:
            service.stop()
    assert f"Error: 127.0.0.1:{service.port} is in use: another process listens there" in str(
        refused.value
    )


def test_gunicorn_puts_pythonpath_before_its_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """gunicorn has put its working directory first on the path when it reads its
    settings; they move PYTHONPATH's directories ahead of it, in their order."""
    # (named, else reading the settings would set it for the rest of the tests)
    monkeypatch.setenv("PROMETHEUS_MULTIPROC_DIR", str(tmp_path))
    monkeypatch.setattr(sys, "path", [str(ROOT), "/other", *sys.path])
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(["/build/mypyc", "", "/other"]))
    runpy.run_path(str(DEPLOY / "gunicorn.conf.py"))
    assert sys.path[:3] == ["/build/mypyc", "/other", str(ROOT)]
    assert sys.path.count("/other") == 1
    monkeypatch.delenv("PYTHONPATH")
    before = list(sys.path)
    runpy.run_path(str(DEPLOY / "gunicorn.conf.py"))
    assert sys.path == before


def test_metrics_on_a_port_of_their_own(redis_server: RedisServer | ExternalRedis) -> None:
    """... and the engine each worker runs: the mypyc build under SCOPA_ENGINE=compiled
    (`make test-compiled-engine`, PYTHONPATH=build/mypyc), else the .py sources."""
    engine = "mypyc" if os.environ.get("SCOPA_ENGINE") == "compiled" else "python"
    metrics_port = free_port()
    with LiveService(redis_server.url, METRICS_PORT=str(metrics_port)) as service:
        assert service.session.get(service.url + "/healthz", timeout=5).status_code == 200
        assert service.session.get(service.url + "/metrics", timeout=5).status_code == 404
        answer = requests.get(f"http://127.0.0.1:{metrics_port}/metrics", timeout=5)
        assert answer.status_code == 200
        assert answer.headers["Content-Type"].startswith("text/plain")
        # every worker's figures, added up: the two requests above were counted
        counted = re.findall(
            r'^scopa_http_requests_total\{method="GET",route="/healthz",status="200"\} (\S+)$',
            answer.text,
            re.M,
        )
        assert counted and float(counted[0]) >= 1
        # /metrics on the API port is no route of the app's: a 404 counted as unmatched
        assert re.search(
            r'^scopa_http_requests_total\{method="GET",route="unmatched",status="404"\} ',
            answer.text,
            re.M,
        )
        assert not service.server_errors(), service.server_errors()
        # one gauge for all the workers; and one log line each (once each has built its
        # app: /healthz may have been answered by the first one up)
        assert f'scopa_engine_info{{build="{engine}"}} 1.0' in answer.text.splitlines()
        deadline = time.monotonic() + 10
        while True:
            lines = [line for line in service.log_text().splitlines() if '"engine: ' in line]
            if len(lines) >= service.workers or time.monotonic() > deadline:
                break
            time.sleep(0.05)
        assert len(lines) == service.workers, lines
        assert all(f'"engine": "{engine}"' in line for line in lines), lines


@pytest.mark.parametrize(
    ("host", "bind"),
    [(None, "127.0.0.1:8000"), ("0.0.0.0", "0.0.0.0:8000"), ("::", "[::]:8000")],
)
def test_gunicorn_listens_on_this_machine_only_unless_host_says_otherwise(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, host: str | None, bind: str
) -> None:
    """`make run` (and gunicorn.conf.py) on 127.0.0.1 by default: an instance reached
    directly has no proxy in front (docs/deploy.md, "What sits in front")."""
    monkeypatch.setenv("PROMETHEUS_MULTIPROC_DIR", str(tmp_path))
    monkeypatch.delenv("PORT", raising=False)
    if host is None:
        monkeypatch.delenv("HOST", raising=False)
    else:
        monkeypatch.setenv("HOST", host)
    assert runpy.run_path(str(DEPLOY / "gunicorn.conf.py"))["bind"] == bind


def test_containers_listen_on_all_their_interfaces() -> None:
    """The image, compose's API replicas and the Kubernetes pods set HOST=0.0.0.0: a
    container is reached through its interfaces, never its loopback."""
    env = [args for word, args in dockerfile_stages()[-1] if word == "ENV"]
    assert any(re.search(r"(^|\s)HOST=0\.0\.0\.0(\s|$)", args) for args in env), env
    compose = yaml.safe_load((DEPLOY / "docker-compose.yml").read_text())
    assert compose["services"]["api"]["environment"]["HOST"] == "0.0.0.0"
    (api,) = deployments()["scopa-api"]["spec"]["template"]["spec"]["containers"]
    assert {"name": "HOST", "value": "0.0.0.0"} in api["env"]
