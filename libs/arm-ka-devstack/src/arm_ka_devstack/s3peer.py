"""A real S3 protocol peer (moto's server) on a free port, with a bucket created over HTTP."""

from __future__ import annotations

import sys

import httpx

from arm_ka_devstack.processes import Child, free_port, wait_for_port

ACCESS_KEY_ID = "devstack-access-key"
SECRET_ACCESS_KEY = "devstack-secret-key"  # noqa: S105 (moto accepts any key)


class S3Peer:
    def __init__(self, port: int | None = None) -> None:
        self.port = port or free_port()
        self._child: Child | None = None

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> str:
        argv = [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(self.port)]
        self._child = Child("moto", argv)
        wait_for_port(self.port, timeout=30)
        return self.endpoint

    def create_bucket(self, bucket: str) -> None:
        # moto accepts unsigned requests; a plain PUT is the whole S3 CreateBucket call.
        response = httpx.put(f"{self.endpoint}/{bucket}", timeout=10)
        if response.status_code not in (200, 409):
            raise RuntimeError(f"create bucket {bucket}: HTTP {response.status_code}")

    def stop(self) -> None:
        if self._child is not None:
            self._child.stop(timeout=5)
            self._child = None
