"""The Docker Compose invocation Harbor 0.18 makes for a task's agent environment, computed by
Harbor's own code (harbor.environments.docker.DockerEnvironment), not copied by hand.

    python scripts/harbor_compose.py TASK_DIR OUT_JSON

Writes a JSON object:
  files        the -f compose files in Harbor's order (base build file, the task's
               docker-compose.yaml, then, when a phase run in this environment is not public,
               the egress-control sidecar file and the services overlay that Harbor's
               `_write_egress_control_services_compose_file()` writes; that overlay is copied
               next to OUT_JSON, since Harbor deletes its temporary directory)
  project_directory, env (the variables Harbor sets for `docker compose`),
  egress_image (the content-addressed tag Harbor looks for before building its sidecar),
  egress (whether the egress overlay is used), environment_mode.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import sys
import tempfile
from pathlib import Path

from harbor.environments.docker.docker import DockerEnvironment
from harbor.environments.docker.utils import _compute_image_name, default_docker_platform, docker_build_context_hash
from harbor.models.task.config import NetworkPolicy
from harbor.models.task.task import Task
from harbor.models.trial.paths import TrialPaths


def main() -> int:
    task_dir, out = Path(sys.argv[1]).resolve(), Path(sys.argv[2]).resolve()
    task = Task(task_dir)
    config = task.config
    environment = config.environment
    startup = NetworkPolicy(network_mode=environment.network_mode, allowed_hosts=list(environment.allowed_hosts or []))
    agent_phase = config.agent.explicit_phase_policy() or startup
    verifier_phase = config.verifier.explicit_phase_policy() or startup
    separate = str(getattr(config.verifier.environment_mode, "value", config.verifier.environment_mode)) == "separate"
    # As Trial does: the verifier phase joins the agent environment's policies only when it
    # shares that environment.
    phases = [agent_phase] if separate else [agent_phase, verifier_phase]
    trial_dir = Path(tempfile.mkdtemp(prefix="harbor-proof-trial-"))
    env = DockerEnvironment(
        environment_dir=task_dir / "environment",
        environment_name=task_dir.name,
        session_id="harness-proof__env",
        trial_paths=TrialPaths(trial_dir),
        task_env_config=environment,
        network_policy=startup,
        phase_network_policies=phases,
    )
    overlay = env._write_egress_control_services_compose_file()
    files = [Path(path) for path in env._docker_compose_paths]
    if overlay is not None:
        kept = out.parent / overlay.name
        shutil.copyfile(overlay, kept)
        files = [kept if path == overlay else path for path in files]
    egress_image = None
    if env._enable_egress_control:
        context = env._EGRESS_CONTROL_SIDECAR_CONTEXT_PATH
        key = docker_build_context_hash(
            context=context,
            dockerfile_path=env._egress_control_sidecar_dockerfile_path(),
            build_args={},
            platform=asyncio.run(default_docker_platform()),
        )
        egress_image = _compute_image_name(env._EGRESS_CONTROL_SIDECAR_DOCKER_NAME, key)
        env._env_vars.egress_control_sidecar_image_name = egress_image
    result = {
        "files": [str(path) for path in files],
        "project_directory": str((task_dir / "environment").resolve()),
        "env": env._compose_env_vars(include_os_env=False),
        "egress": env._enable_egress_control,
        "egress_image": egress_image,
        "environment_mode": "separate" if separate else "shared",
        "main_image": env._main_image_name,
    }
    out.write_text(json.dumps(result, indent=2))
    env._cleanup_egress_control_services_compose_file()
    shutil.rmtree(trial_dir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
